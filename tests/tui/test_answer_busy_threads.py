"""A streamed answer is drawn while the event loop's default thread pool is busy with other work
(files read, a workspace snapshot, an SDK loading): drawing it waits for no thread."""

from __future__ import annotations

import asyncio
import threading

from textual.app import App

from circle.entrypoints.tui.widgets.conversation import Answer

from .conftest import until


async def test_an_answer_streams_in_while_every_pool_thread_is_taken() -> None:
    app: App[None] = App()
    release = threading.Event()
    async with app.run_test(size=(80, 30)) as pilot:
        loop = asyncio.get_running_loop()
        taken = [loop.run_in_executor(None, release.wait, 30.0) for _ in range(40)]
        try:
            answer = Answer()
            app.screen.mount(answer)
            await pilot.pause()
            answer.add("the first words of the answer\n\nand more")
            await until(pilot, lambda: "and more" in str(answer.visual))
        finally:
            release.set()
            await asyncio.gather(*taken)
