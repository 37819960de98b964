"""The prompt history: what was sent, newest last, kept in the data folder; up/down and ctrl+r."""

from __future__ import annotations

import json
from pathlib import Path

MAX_ENTRIES = 1000


class InputHistory:
    """Browsing with :meth:`older` / :meth:`newer`; the draft being typed comes back at the end."""

    def __init__(self, entries: list[str] | None = None, *, path: Path | None = None) -> None:
        self.entries: list[str] = list(entries or [])
        self.path = path
        self._index: int | None = None
        self._draft = ""

    @classmethod
    def load(cls, path: Path) -> InputHistory:
        entries: list[str] = []
        try:
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                if isinstance(value, str):
                    entries.append(value)
        except OSError:
            pass
        return cls(entries[-MAX_ENTRIES:], path=path)

    def add(self, text: str) -> None:
        self._index = None
        if not text.strip() or (self.entries and self.entries[-1] == text):
            return
        self.entries.append(text)
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(text) + "\n")
            except OSError:
                pass  # a history that cannot be kept is no reason to stop

    def older(self, draft: str) -> str | None:
        if not self.entries:
            return None
        if self._index is None:
            self._draft, self._index = draft, len(self.entries)
        if self._index == 0:
            return None
        self._index -= 1
        return self.entries[self._index]

    def newer(self) -> str | None:
        if self._index is None:
            return None
        self._index += 1
        if self._index >= len(self.entries):
            self._index = None
            return self._draft
        return self.entries[self._index]

    def search(self, query: str) -> list[str]:
        """Entries holding ``query`` (case-insensitive), newest first, each once."""
        seen: set[str] = set()
        found = []
        for entry in reversed(self.entries):
            if query.lower() in entry.lower() and entry not in seen:
                seen.add(entry)
                found.append(entry)
        return found


__all__ = ["InputHistory"]
