"""RPC's session stats count what compaction summarized away, and the summary's own tokens."""

from __future__ import annotations

import io

import pytest

from circle.application.runtime import Runtime
from circle.domain.catalog import ModelInfo, Prices
from circle.domain.messages import Usage
from circle.entrypoints._rpc_io import Output
from circle.entrypoints.rpc import RpcServer
from circle.testing import Call, InMemoryCatalog, answer

from .test_compaction import Setup


async def test_stats_keep_the_messages_a_compaction_summarized_and_count_the_summary() -> None:
    setup = Setup()
    setup.model.add(*[answer("", Call("ls", {})) for _ in range(6)], answer("first done"))
    runtime = setup.runtime()
    session = await runtime.new_session()
    server = RpcServer(runtime, session, Output(io.StringIO()), job_wait_s=0)
    await session.prompt("look around")
    before = await server.commands["get_session_stats"](server, {})
    assert isinstance(before, dict)
    outcome = await session.loop.compact(session.conversation)
    assert outcome is not None and outcome.summarized > 0
    after = await server.commands["get_session_stats"](server, {})
    assert isinstance(after, dict)
    same = ("userMessages", "assistantMessages", "toolCalls", "toolResults", "totalMessages")
    assert [after[k] for k in same] == [before[k] for k in same]
    assert (before["compactions"], after["compactions"]) == (0, 1)
    tokens_before, tokens_after = before["tokens"], after["tokens"]
    assert isinstance(tokens_before, dict) and isinstance(tokens_after, dict)
    assert tokens_after["total"] == tokens_before["total"] + 15  # the summary request's own tokens


async def test_context_usage_is_what_the_endpoint_counted_and_unknown_after_a_compaction() -> None:
    setup = Setup()
    setup.model.add(answer("", Call("ls", {})), answer("first done"))
    runtime = setup.runtime()
    session = await runtime.new_session()
    server = RpcServer(runtime, session, Output(io.StringIO()), job_wait_s=0)
    await session.prompt("look around")
    last = session.conversation.messages[-1].usage
    assert last is not None and last.total > 0
    stats = await server.commands["get_session_stats"](server, {})
    assert isinstance(stats, dict) and isinstance(usage := stats["contextUsage"], dict)
    assert usage["tokens"] == last.total and isinstance(window := usage["contextWindow"], int)
    assert usage["percent"] == round(100 * last.total / window, 2)
    assert await session.loop.compact(session.conversation) is not None
    after = await server.commands["get_session_stats"](server, {})
    assert isinstance(after, dict) and isinstance(usage := after["contextUsage"], dict)
    assert (usage["tokens"], usage["percent"]) == (None, None)


class PricedSetup(Setup):
    """The compaction setup with a model the catalog prices."""

    def runtime(self) -> Runtime:
        runtime = super().runtime()
        prices = Prices(input=3, output=15, cache_read=0.3, cache_write=3.75)
        info = ModelInfo(id="scripted", provider="test", context_window=self.window, prices=prices)
        runtime.ports.catalog = InMemoryCatalog([info])
        return runtime


async def test_the_stats_token_cost_is_the_priced_total_cost_says() -> None:
    setup = PricedSetup()
    setup.model.add(answer("", Call("ls", {}), usage=Usage(input=1000, output=200)), answer("done"))
    runtime = setup.runtime()
    session = await runtime.new_session()
    server = RpcServer(runtime, session, Output(io.StringIO()), job_wait_s=0)
    await session.prompt("look around")

    stats = await server.commands["get_session_stats"](server, {})

    assert isinstance(stats, dict) and isinstance(tokens := stats["tokens"], dict)
    assert isinstance(priced := tokens["cost"], dict) and isinstance(spent := stats["cost"], float)
    assert spent > 0 and priced["total"] == spent
    assert priced["input"] == pytest.approx((1000 + 10) * 3 / 1e6)
    assert priced["output"] == pytest.approx((200 + 5) * 15 / 1e6)
    costs = stats["costs"]
    assert isinstance(costs, dict) and costs["total"] == spent
