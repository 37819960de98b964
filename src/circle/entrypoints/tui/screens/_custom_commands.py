"""The custom commands on the session screen: ``/name arguments`` of ``.circle/commands/NAME.md``
(or ``~/.circle/commands``) sends the file's template, filled, as the person's message, their row
showing what they typed (long pastes folded, as a message's); the completion list and /help list
them; a file that cannot be used is said in one line. They are read again as one runs, so an
edited file is used as it is now."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from circle.application.context.commands import CommandCatalog, load_commands
from circle.domain.custom_commands import expand
from circle.entrypoints.tui import _slash

if TYPE_CHECKING:
    from circle.entrypoints.tui._host import Host
    from circle.entrypoints.tui.screens.main import MainScreen


class CustomCommands:
    """The command files' commands for ``screen``."""

    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.entries: tuple[_slash.SlashCommand, ...] = ()
        """The commands found last, as the completion list and /help show them."""
        self.told: set[str] = set()
        """The problems of command files said already (each once, till /reload)."""

    @property
    def host(self) -> Host:
        return self.screen.host

    def say(self, text: str, *, kind: str = "info") -> None:
        self.screen.conversation.notice(text, kind=kind)

    async def load(self) -> CommandCatalog:
        """The custom commands read now (the project's only in a trusted folder); the completion
        list is given them, and each file left out is said once, in a line."""
        host = self.host
        catalog = await load_commands(
            host.runtime.ports.files,
            workspace=host.workspace,
            home=host.runtime.options.home,
            project=host.trusted,
        )
        self.entries = _slash.custom_entries(catalog.commands)
        self.screen.composer.custom_commands = self.entries
        for problem in catalog.problems:
            if str(problem) not in self.told:
                self.told.add(str(problem))
                shown = self._shown(problem.path)
                self.say(f"Left out the command file {shown}: {problem.reason}", kind="warning")
        for command in catalog.commands:
            said = f"{command.path}: built-in"
            if command.name.lower() in _slash.BY_NAME and said not in self.told:
                self.told.add(said)
                shown = self._shown(command.path)
                self.say(
                    f"Left out the command file {shown}: /{command.name} is Circle's own", kind="warning"
                )
        return catalog

    def _shown(self, path: str) -> str:
        home = self.host.runtime.options.home
        if path.startswith(self.host.workspace.rstrip("/") + "/"):
            return posixpath.relpath(path, self.host.workspace)
        if home.startswith("/") and path.startswith(home.rstrip("/") + "/"):
            return "~/" + posixpath.relpath(path, home)
        return path

    async def run(self, invocation: _slash.Invocation) -> None:
        """``/name arguments`` of a command file: its template, filled, sent as the person's message
        (their row shows what they typed); else the command is unknown."""
        name = invocation.name
        catalog = await self.load()
        command = catalog.find(name)
        if command is None:
            if bad := catalog.problems_for(name):
                self.say(f"/{name}: {self._shown(bad[0].path)} is left out: {bad[0].reason}", kind="warning")
            else:
                self.say(_slash.unknown_message(name, self.entries), kind="warning")
            return
        text = expand(command.template, invocation.argument)
        if not text.strip():
            self.say(f"/{name}: {self._shown(command.path)} has no text to send", kind="warning")
            return
        self.screen.send(text, typed=invocation.text or f"/{name} {invocation.argument}".strip())


__all__ = ["CustomCommands"]
