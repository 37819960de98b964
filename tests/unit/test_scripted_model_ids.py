"""ScriptedModel names each response as an endpoint does, so answers carry pi's ``responseId``."""

from __future__ import annotations

from pathlib import Path

import circle
from circle.application.events import MessageEnded
from circle.application.guards import ask_model
from circle.domain.model import ModelRequest, ResponseIdentified
from circle.entrypoints.event_codec import EventEncoder
from circle.testing import RecordingSink, ScriptedModel, answer

REQUEST = ModelRequest(model="m", system="", messages=())


async def test_each_scripted_answer_has_its_own_response_id_and_the_events_carry_it() -> None:
    model = ScriptedModel([answer("one"), answer("two")])
    sink = RecordingSink()
    first = await ask_model(model, REQUEST, events=sink, model_name="m")
    second = await ask_model(model, REQUEST, events=RecordingSink(), model_name="m")
    assert (first.response_id, second.response_id) == ("scripted-1", "scripted-2")
    encoder = EventEncoder()
    lines = [line for e in [*sink.events, MessageEnded(first, None)] for line in encoder.lines(e)]
    end = lines[-1]["message"]
    assert isinstance(end, dict) and end["responseId"] == "scripted-1"


async def test_a_step_that_names_its_response_keeps_that_name() -> None:
    model = ScriptedModel([[ResponseIdentified("resp_own"), *answer("hi")]])
    message = await ask_model(model, REQUEST, events=RecordingSink(), model_name="m")
    assert message.response_id == "resp_own"


async def test_a_library_run_stores_the_scripted_response_ids(tmp_path: Path) -> None:
    model = ScriptedModel([answer("Done.")])
    async with circle.Agent(tmp_path, model_client=model, trust=True) as agent:
        await agent.run("go")
        answers = [m for m in agent.messages if m.role == "assistant"]
    assert [m.response_id for m in answers] == ["scripted-1"]
