"""Every answer's Markdown is read by one shared parser, built once, and safe on any thread:
Textual parses a whole answer on a thread and the streamed pieces on the event loop."""

from __future__ import annotations

import threading

from circle.entrypoints.tui.widgets.markdown import chat_parser


def links(tokens: list[object]) -> list[str]:
    found: list[str] = []
    for token in tokens:
        for child in getattr(token, "children", None) or ():
            if child.type == "link_open":
                found.append(str(child.attrs["href"]))
    return found


def test_every_markdown_widget_shares_one_parser() -> None:
    assert chat_parser() is chat_parser()


def test_parsing_on_several_threads_at_once_keeps_each_text_its_own_links() -> None:
    parser = chat_parser()
    wrong: list[str] = []

    def read(index: int) -> None:
        for _ in range(200):
            text = f"see https://host{index}.example/page{index} and https://site{index}.example now"
            expected = [f"https://host{index}.example/page{index}", f"https://site{index}.example"]
            if (got := links(parser.parse(text))) != expected:
                wrong.append(f"{index}: {got}")

    threads = [threading.Thread(target=read, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
