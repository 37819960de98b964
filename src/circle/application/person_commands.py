"""The person's own commands: ``!command`` in the interface, ``bash`` over RPC.

The command runs in the workspace, as the person (no approval: they typed it), for up to
:data:`TIMEOUT_S` seconds, its output masked as the model's commands' output is. What it printed
can go with the person's next message, as :meth:`PersonCommand.note` writes it, so the model sees
what they saw. Cancelling the call kills the command with everything it started.
"""

from __future__ import annotations

from dataclasses import dataclass

from circle.domain.messages import Aside

from .runtime import Runtime

TIMEOUT_S = 600
OUTPUT_LIMIT = 30_000
"""Characters of output kept; past it the output is cut (``truncated``)."""


@dataclass(frozen=True, slots=True)
class PersonCommand:
    """A command the person ran and what came of it.

    Attributes:
        command: The command line as given.
        output: What it printed (stdout and stderr together), secrets masked.
        exit_code: Its exit code; None when it was killed (timed out).
        truncated: The output passed :data:`OUTPUT_LIMIT` and was cut.
        timed_out: It ran past :data:`TIMEOUT_S` and was stopped.
    """

    command: str
    output: str
    exit_code: int | None
    truncated: bool = False
    timed_out: bool = False

    def aside(self) -> Aside:
        """The command and its output as they go with the person's next message."""
        return Aside(kind="command", text=self.command, output=self.output, exit_code=self.exit_code)

    def note(self) -> str:
        """The command and its output as the model reads them, with the person's next message."""
        return self.aside().note()


async def run_person_command(runtime: Runtime, command: str) -> PersonCommand:
    """Run the person's ``command`` in ``runtime``'s workspace and return what it printed."""
    result = await runtime.ports.processes.run(
        command,
        cwd=runtime.options.workspace,
        timeout_s=TIMEOUT_S,
        output_limit=OUTPUT_LIMIT,
        env=runtime.options.env or None,
    )
    return PersonCommand(
        command,
        runtime.options.secrets.mask(result.output),
        result.exit_code,
        truncated=result.truncated,
        timed_out=result.timed_out,
    )


__all__ = ["OUTPUT_LIMIT", "TIMEOUT_S", "PersonCommand", "run_person_command"]
