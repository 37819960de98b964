"""First run: the setup screen (probe, pick a model, save) and the trust question."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Input, Static

from circle.domain.messages import Message
from circle.entrypoints.tui.app import CircleApp
from circle.entrypoints.tui.screens.setup import SetupScreen
from circle.entrypoints.tui.screens.trust import TrustScreen

from .conftest import SIZE, WORKSPACE, FakeBackend, until


async def test_setup_probes_the_endpoint_and_saves_the_model_picked(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.setup_needed = True
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        screen = app.screen
        screen.query_one("#base-url", Input).value = "http://127.0.0.1:9/bad"
        screen.query_one("#api-key", Input).value = "sk-test"
        screen.query_one("#api-key", Input).focus()
        await pilot.press("enter")
        status = screen.query_one("#setup-status", Static)
        await until(pilot, lambda: "no model listing found" in str(status.content))
        assert backend.saved == []
        screen.query_one("#base-url", Input).value = "http://127.0.0.1:9/v1"
        screen.query_one("#api-key", Input).focus()
        await pilot.press("enter")
        await until(pilot, lambda: "Pick the model" in str(status.content))
        await pilot.press("down", "enter")
        await until(pilot, lambda: app.host is not None)
    assert backend.saved == [("http://127.0.0.1:9/v1", "sk-test", "model-b", "openai-chat")]


async def test_a_base_url_must_be_http(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.setup_needed = True
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.press(*"localhost:8080", "enter")
        status = app.screen.query_one("#setup-status", Static)
        assert "starts with http://" in str(status.content)


async def test_leaving_setup_leaves_circle(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.setup_needed = True
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        await pilot.press("escape")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 1
    assert app.error == "no endpoint was set up"


async def test_trusting_a_folder_remembers_it(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.trust_list.folders.clear()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("enter")
        await until(pilot, lambda: app.host is not None)
    assert list(backend.trust_list.folders) == [WORKSPACE]
    assert app.host is not None and app.host.trusted


async def test_trusting_once_is_not_remembered(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.trust_list.folders.clear()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("2")
        await until(pilot, lambda: app.host is not None)
    assert backend.trust_list.folders == {}


async def test_not_trusting_leaves(make_app: Callable[..., CircleApp], backend: FakeBackend) -> None:
    backend.trust_list.folders.clear()
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("down", "down", "enter")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 1
    assert app.error == f"{WORKSPACE} is not trusted"
    assert backend.runtime is None, "nothing was built"


async def test_yolo_still_asks_to_trust_the_folder(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    backend.trust_list.folders.clear()
    app = make_app(yolo=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, TrustScreen))
        await pilot.press("down", "down", "enter")
        await until(pilot, lambda: not app.is_running)
    assert app.return_code == 1 and backend.runtime is None, "nothing was built"


async def test_an_initial_message_is_sent_at_start(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.testing import answer

    backend.model.add(answer("started"))
    app = make_app(message="begin here")
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(backend.model.requests))
    assert backend.model.requests[0].messages[-1].text == "begin here"


async def test_resume_flag_opens_the_session_picker(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.entrypoints.tui.screens.picker import PickerScreen

    await backend.store.create_session(workspace=WORKSPACE, session_id="earlier", title="the earlier work")
    await backend.store.append("earlier", Message.user("start the earlier work"))  # offered: it has one
    app = make_app(resume=True)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("enter")
        await until(pilot, lambda: app.host is not None)
        assert app.host is not None and app.host.session.session_id == "earlier"


async def test_an_empty_base_url_takes_the_default_the_placeholder_shows(
    make_app: Callable[..., CircleApp], backend: FakeBackend
) -> None:
    from circle.domain.settings import DEFAULT_BASE_URL

    backend.setup_needed = True
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: isinstance(app.screen, SetupScreen))
        screen = app.screen
        assert screen.query_one("#base-url", Input).placeholder == DEFAULT_BASE_URL
        await pilot.press("enter")
        assert screen.query_one("#api-key", Input).has_focus
        await pilot.press(*"sk-test", "enter")
        status = screen.query_one("#setup-status", Static)
        await until(pilot, lambda: "Pick the model" in str(status.content))
        await pilot.press("enter")
        await until(pilot, lambda: app.host is not None)
    assert backend.saved == [(DEFAULT_BASE_URL, "sk-test", "model-a", "openai-chat")]
