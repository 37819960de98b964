"""A fake LanguageServers: answers from a dict, every query recorded."""

from __future__ import annotations

from dataclasses import dataclass, field

from circle.application.ports.language_servers import LspOperation
from circle.domain.errors import ToolError


@dataclass(frozen=True, slots=True)
class LspQuery:
    operation: LspOperation
    file_path: str
    line: int
    character: int


@dataclass
class FakeLanguageServers:
    """Answers ``answers[(operation, file_path)]``; an unknown pair raises ToolError like a missing server."""

    answers: dict[tuple[str, str], str] = field(default_factory=dict)
    queries: list[LspQuery] = field(default_factory=list)
    closed: bool = False

    async def query(self, operation: LspOperation, *, file_path: str, line: int, character: int) -> str:
        self.queries.append(LspQuery(operation, file_path, line, character))
        try:
            return self.answers[(operation, file_path)]
        except KeyError:
            raise ToolError(f"no language server for {file_path}") from None

    async def aclose(self) -> None:
        self.closed = True
