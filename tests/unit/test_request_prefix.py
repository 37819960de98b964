"""A request's preparation reuses what it worked out for the part of the last request's messages the
new one begins with: the results stay those of a preparation that starts afresh, whatever the
history does between requests (grows, ends without the last request's reminder, is compacted or
rewound)."""

from __future__ import annotations

import json

from circle.adapters.models._openai_chat_wire import RequestEncoder
from circle.application.media import MediaFilter
from circle.application.pruning import RequestPruner
from circle.application.token_tally import TokenTally
from circle.domain.context_prune import PruneWindow
from circle.domain.messages import ImagePart, Message, ToolCallPart
from circle.domain.model import ModelRequest
from circle.domain.prefix import seen_length

PNG = "iVBORw0KGgo="


def test_seen_length_is_all_of_the_last_all_but_its_last_item_or_nothing() -> None:
    a, b, c, d = (object() for _ in range(4))
    assert seen_length((a, b), (a, b, c)) == 2
    assert seen_length((a, b), [a, b]) == 2
    assert seen_length((a, b, c), (a, b, d)) == 2  # the last request's reminder is gone
    assert seen_length((a, b, c), (a, d, c)) == 0
    assert seen_length((a, b, c), (a,)) == 0  # rewound
    assert seen_length((), (a,)) == 0
    assert seen_length((a,), ()) == 0


def _round(index: int, *, output: str = "result", image: bool = False) -> list[Message]:
    call = ToolCallPart(id=f"c{index}", name="read_file", arguments=json.dumps({"file_path": f"f{index}"}))
    result = Message.tool_result(call_id=call.id, name="read_file", text=f"{output} {index}")
    if image:
        result = Message.user(f"look {index}", media=(ImagePart(media_type="image/png", data=PNG),))
    return [Message(role="assistant", parts=(call,)), result]


def _requests() -> list[tuple[Message, ...]]:
    """A history as requests carry it: growing, with a reminder once, compacted, rewound."""
    history = [Message.user("go")]
    requests = []
    for index in range(6):
        history += _round(index, output="x" * 900, image=index % 2 == 0)
        requests.append(tuple(history))
        if index == 2:
            requests.append((*history, Message.user("you repeat yourself")))
    compacted = [Message.user("summary"), *history[-4:]]
    requests += [tuple(compacted), tuple(compacted + _round(7)), tuple(history[:3]), tuple(history[:3])]
    return requests


def test_a_reused_preparation_gives_what_a_fresh_one_gives() -> None:
    window = PruneWindow(recent_rounds=1, recent_tokens=300, min_chars=100, recent_images=1)
    pruner, media, tally, encoder = (
        RequestPruner(window),
        MediaFilter(reads_images=False, reads_pdfs=False),
        TokenTally(),
        RequestEncoder(),
    )
    for messages in _requests():
        pruned = pruner.apply(messages)
        assert pruned == RequestPruner(window).apply(messages)
        assert media.apply(pruned) == MediaFilter(reads_images=False, reads_pdfs=False).apply(pruned)
        assert tally.request("s", messages, ()) == TokenTally().request("s", messages, ())
        request = ModelRequest(model="m", system="s", messages=media.apply(pruned))
        assert encoder.encode(request, model="m") == RequestEncoder().encode(request, model="m")


def test_a_history_under_the_window_is_sent_as_it_is_until_it_passes_it() -> None:
    window = PruneWindow(recent_rounds=1, recent_tokens=300, min_chars=100, recent_images=3)
    pruner = RequestPruner(window)
    history = [Message.user("go"), *_round(0, output="y" * 500)]
    assert pruner.apply(history) == tuple(history)
    history += _round(1, output="z" * 900)  # the output passes 300 tokens: the older one is stubbed
    sent = pruner.apply(history)
    assert "older tool output left out" in sent[2].tool_results[0].text
    assert sent[4] is history[4]
