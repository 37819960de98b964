"""Found in tmux: ctrl+c pressed while Circle starts puts up Textual's own 'Do you want to quit?' toast.

Under 'Starting Circle…' ctrl+c reached the app's default binding, whose toast ('Do you want to
quit?' / 'Press ctrl+q to quit the app') then stayed some 5 s over the right half of the input box
once the session screen was up (80x24 and 50x16), the toast d7fc889 took away for ctrl+c, naming a
key the README does not give. What Circle says about ctrl+c goes in the footer's line.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from circle.application.ports.approver import Approver
from circle.application.ports.asker import Asker
from circle.entrypoints.tui._backend import Built
from circle.entrypoints.tui._history import InputHistory
from circle.entrypoints.tui.app import CircleApp

from .conftest import SIZE, WORKSPACE, FakeBackend, FixedClock, main_screen, options, until


@dataclass
class SlowBackend(FakeBackend):
    """A backend that builds once the test says (keys typed meanwhile find no session screen)."""

    ready: asyncio.Event = field(default_factory=asyncio.Event)

    async def build(self, *, person: Approver, asker: Asker, trusted: bool) -> Built:
        await self.ready.wait()
        return await super().build(person=person, asker=asker, trusted=trusted)


async def test_ctrl_c_while_circle_starts_puts_up_no_quit_toast(clock: FixedClock) -> None:
    backend = SlowBackend()
    backend.trust_list.folders[WORKSPACE] = 0.0
    app = CircleApp(backend, options(), clock=clock, history=InputHistory())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h", "i", "ctrl+c")
        await pilot.pause(0.05)
        backend.ready.set()
        await until(pilot, lambda: app.host is not None)
        screen = main_screen(app)
        await until(pilot, lambda: screen.composer.text == "hi")
        await pilot.pause(0.1)
        said = [f"{n.title} {n.message}" for n in app._notifications]
        assert not [s for s in said if "quit" in s.lower()], said
