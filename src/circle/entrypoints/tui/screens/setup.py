"""First run: no endpoint is set up. Ask for a base URL and a key, probe them, pick a model, save."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from circle.application.ports.endpoint_probe import ProbeResult
from circle.domain.errors import CircleError
from circle.domain.settings import DEFAULT_BASE_URL
from circle.entrypoints.tui._backend import Backend

INTRO = (
    "Circle talks to a model endpoint that speaks the OpenAI or Anthropic protocol. "
    "Give its base URL and your API key; Circle asks it for its models and saves both "
    "(settings.json, and credentials.json kept 0600) in {data}."
)


def _base_url(typed: str) -> str:
    """The base URL typed, or (left empty) the default its placeholder shows."""
    return typed.strip() or DEFAULT_BASE_URL


class SetupScreen(Screen[bool]):
    """Dismissed with True once an endpoint is saved, False when the person leaves."""

    CSS_PATH = Path(__file__).with_name("setup.tcss")

    def __init__(self, backend: Backend) -> None:
        super().__init__()
        self.backend = backend
        self.found: ProbeResult | None = None
        self.base_url = ""
        self.api_key = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="setup"):
            yield Static("Set up a model endpoint", id="setup-title")
            yield Static(INTRO.format(data=self.backend.data), id="setup-intro")
            yield Static("Base URL", classes="label")
            yield Input(placeholder=DEFAULT_BASE_URL, id="base-url")
            yield Static("API key", classes="label")
            yield Input(
                placeholder="sk-… (leave empty if the endpoint needs none)", password=True, id="api-key"
            )
            yield Static("", id="setup-status")
            yield OptionList(id="setup-models")
            yield Static("enter goes on · esc leaves", id="setup-keys")

    def on_mount(self) -> None:
        self.query_one("#setup-models", OptionList).display = False
        self.query_one("#base-url", Input).focus()

    def status(self, text: str, *, error: bool = False) -> None:
        widget = self.query_one("#setup-status", Static)
        widget.update(text)
        widget.set_class(error, "error")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "base-url":
            if not _base_url(event.value).startswith(("http://", "https://")):
                self.status("The base URL starts with http:// or https://", error=True)
                return
            self.query_one("#api-key", Input).focus()
            return
        self.base_url = _base_url(self.query_one("#base-url", Input).value)
        self.api_key = self.query_one("#api-key", Input).value.strip()
        if not self.base_url.startswith(("http://", "https://")):
            self.status("The base URL starts with http:// or https://", error=True)
            self.query_one("#base-url", Input).focus()
            return
        self.probe()

    @work(exclusive=True, group="probe")
    async def probe(self) -> None:
        self.status(f"Asking {self.base_url} for its models…")
        try:
            found = await self.backend.probe(self.base_url, self.api_key)
        except CircleError as exc:
            self.status(f"{exc.message}. Check the URL and the key, then press enter again.", error=True)
            return
        self.found = found
        if not found.models:
            self.status("The endpoint lists no models.", error=True)
            return
        self.status(f"{found.base_url} speaks {found.protocol}. Pick the model:")
        models = self.query_one("#setup-models", OptionList)
        models.clear_options()
        models.add_options([Option(Text(model)) for model in found.models])
        models.highlighted = 0
        models.display = True
        models.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.found is None:
            return
        model = self.found.models[event.option_index]
        try:
            self.backend.save_endpoint(
                self.found.base_url, self.api_key, model=model, protocol=self.found.protocol
            )
        except (CircleError, OSError) as exc:
            self.status(f"Could not save: {getattr(exc, 'message', None) or exc}", error=True)
            return
        self.dismiss(True)

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            self.dismiss(False)


__all__ = ["SetupScreen"]
