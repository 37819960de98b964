"""Fakes of Circle's ports, a scripted model and a loopback gateway, for testing agents.

Every fake records what it saw, so tests assert on state rather than on calls::

    from circle.testing import ScriptedModel, answer, Call

    model = ScriptedModel([answer("", Call("ls", {})), answer("done")])
    async with circle.Agent(workspace=tmp, model_client=model) as agent:
        result = await agent.run("look around")
    assert len(model.requests) == 2

``FunctionModel(reply)`` computes each answer instead: ``reply(request)`` sees the request (the
tools offered included) and returns text, a ``Call`` or both. ``ScriptedApprover`` answers the calls
that ask from its ``decisions`` (in order) or its ``allow`` list, recording each request;
``InMemorySessionStore`` keeps sessions and messages in plain attributes.

To test code that makes its own agent, swap the parts of every agent it starts::

    with circle.Agent.override(model=ScriptedModel([answer("Done.")]), store=InMemorySessionStore()):
        await my_program.run_the_agent()
"""

from circle._testing.asker import ScriptedAsker
from circle._testing.catalog import InMemoryCatalog
from circle._testing.compaction import InMemoryCompactionStore
from circle._testing.events import RecordingSink, ScriptedApprover
from circle._testing.faults import Faults
from circle._testing.function_model import FunctionModel
from circle._testing.gateway import (
    GatewayResponse,
    RecordedRequest,
    ScriptedGateway,
    chat_error,
    chat_text,
    chat_tool_calls,
    replay_fixture,
)
from circle._testing.images import FakeImageCodec
from circle._testing.journal import InMemoryFileJournal, InMemoryWorkspaceSnapshots
from circle._testing.lease import InMemorySessionLease
from circle._testing.local import FakeClock, FakeProcessRunner, Hang, InMemoryFileSystem, InMemoryTextSearch
from circle._testing.lsp import FakeLanguageServers
from circle._testing.model import Call, ScriptedModel, answer
from circle._testing.store import InMemorySessionStore, InMemoryTrustList
from circle._testing.web import FakeNativeSearch, FakeWeb
from circle._testing.wire_scripts import anthropic_answer, responses_answer

__all__ = [
    "Call",
    "FakeClock",
    "FakeImageCodec",
    "FakeLanguageServers",
    "FakeNativeSearch",
    "FakeProcessRunner",
    "FakeWeb",
    "Faults",
    "FunctionModel",
    "GatewayResponse",
    "Hang",
    "InMemoryCatalog",
    "InMemoryCompactionStore",
    "InMemoryFileJournal",
    "InMemoryFileSystem",
    "InMemorySessionLease",
    "InMemorySessionStore",
    "InMemoryTextSearch",
    "InMemoryTrustList",
    "InMemoryWorkspaceSnapshots",
    "RecordedRequest",
    "RecordingSink",
    "ScriptedApprover",
    "ScriptedAsker",
    "ScriptedGateway",
    "ScriptedModel",
    "answer",
    "anthropic_answer",
    "chat_error",
    "chat_text",
    "chat_tool_calls",
    "replay_fixture",
    "responses_answer",
]
