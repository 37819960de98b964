"""The trust question for a folder Circle has not been trusted with."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

TrustAnswer = Literal["always", "once", "no"]
CHOICES: tuple[tuple[TrustAnswer, str], ...] = (
    ("always", "Yes, trust this folder (remembered in the trust list)"),
    ("once", "Yes, for this session only"),
    ("no", "No, leave"),
)


class TrustScreen(Screen[TrustAnswer]):
    CSS_PATH = Path(__file__).with_name("trust.tcss")

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folder = folder
        self.selected = 0
        self.options = Static("", id="trust-options")

    def compose(self) -> ComposeResult:
        with Vertical(id="trust"):
            yield Static(Text("Do you trust the files in this folder?", style="bold"), id="trust-title")
            yield Static(Text(str(self.folder), style="bold"), id="trust-folder")
            yield Static(
                "Circle reads, changes and runs things here when you allow it. A trusted project's "
                ".circle/ settings, approval rules and hooks are used too, so only trust folders whose "
                "files you know.",
                id="trust-body",
            )
            yield self.options
            yield Static("1-3 or ↑↓ enter · esc leaves", id="trust-keys")

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        text = Text()
        for index, (_, label) in enumerate(CHOICES):
            chosen = index == self.selected
            text.append(
                f"{'❯ ' if chosen else '  '}{index + 1}. {label}\n", style="bold reverse" if chosen else ""
            )
        text.rstrip()
        self.options.update(text)

    def on_key(self, event: events.Key) -> None:
        key = event.key
        if key in ("up", "down"):
            self.selected = (self.selected + (1 if key == "down" else -1)) % len(CHOICES)
            self._draw()
        elif key == "enter":
            self.dismiss(CHOICES[self.selected][0])
        elif key in ("1", "2", "3"):
            self.dismiss(CHOICES[int(key) - 1][0])
        elif key == "escape":
            self.dismiss("no")
        else:
            return
        event.stop()


__all__ = ["TrustAnswer", "TrustScreen"]
