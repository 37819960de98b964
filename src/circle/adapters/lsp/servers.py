"""StdioLanguageServers: one language server per language, started on demand over stdio.

A server starts on the first query about a file of its language (``initialize`` with the workspace
as root), the file is opened (or changed) with its text from disk before each query, and the server
is stopped after ``idle_s`` seconds without a query and at :meth:`StdioLanguageServers.aclose`.
Every failure becomes a one-line ``ToolError`` here, in :meth:`StdioLanguageServers.query`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import assert_never

from circle.application.ports.language_servers import LspOperation
from circle.domain.errors import ToolError

from ._format import Formatter, hover_text, to_utf16
from .client import JSON, LspClient, LspError

IDLE_S = 300.0
DIAGNOSTICS_WAIT_S = 5.0
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 3.0


@dataclass(frozen=True, slots=True)
class ServerSpec:
    language: str
    """The LSP language id (``python``)."""
    label: str
    """How the person calls the language (``Python``)."""
    extensions: tuple[str, ...]
    commands: tuple[tuple[str, ...], ...]
    """Candidate command lines, best first; the first whose program is found is used."""
    install_hint: str


SERVERS: tuple[ServerSpec, ...] = (
    ServerSpec(
        "python",
        "Python",
        (".py", ".pyi"),
        (("pylsp",), ("basedpyright-langserver", "--stdio")),
        "install pylsp for Python: pip install 'python-lsp-server[pyflakes]'",
    ),
    ServerSpec(
        "typescript",
        "TypeScript",
        (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs"),
        (("typescript-language-server", "--stdio"),),
        "install typescript-language-server for TypeScript and JavaScript",
    ),
    ServerSpec("go", "Go", (".go",), (("gopls",),), "install gopls for Go"),
    ServerSpec("rust", "Rust", (".rs",), (("rust-analyzer",),), "install rust-analyzer for Rust"),
    ServerSpec(
        "c", "C", (".c", ".h", ".cc", ".cpp", ".hpp", ".cxx"), (("clangd",),), "install clangd for C and C++"
    ),
)


def find_program(name: str) -> str | None:
    """``name`` next to the running Python (its virtual environment) or on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(name)


def spec_for(path: str, servers: tuple[ServerSpec, ...] = SERVERS) -> ServerSpec | None:
    extension = Path(path).suffix.lower()
    return next((spec for spec in servers if extension in spec.extensions), None)


@dataclass
class _Server:
    client: LspClient
    process: asyncio.subprocess.Process | None
    documents: dict[str, tuple[int, str]] = field(default_factory=dict)
    """Open documents: uri -> (version, text)."""
    idle: asyncio.TimerHandle | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class StdioLanguageServers:
    """The :class:`~circle.application.ports.language_servers.LanguageServers` of a workspace."""

    def __init__(
        self,
        workspace: str | os.PathLike[str],
        *,
        idle_s: float = IDLE_S,
        diagnostics_wait_s: float = DIAGNOSTICS_WAIT_S,
        servers: tuple[ServerSpec, ...] = SERVERS,
    ) -> None:
        self.workspace = os.path.abspath(os.fspath(workspace))
        self.idle_s = idle_s
        self.diagnostics_wait_s = diagnostics_wait_s
        self.servers = servers
        self._running: dict[str, _Server] = {}
        self._starting = asyncio.Lock()
        self._format = Formatter(self.workspace, _read_line)

    async def query(self, operation: LspOperation, *, file_path: str, line: int, character: int) -> str:
        spec = spec_for(file_path, self.servers)
        if spec is None:
            hints = ", ".join(f"{s.commands[0][0]} for {s.label}" for s in self.servers)
            raise ToolError(
                f"no language server for {Path(file_path).suffix or 'extensionless'} files ({hints})"
            )
        try:
            text = Path(file_path).read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            raise ToolError(f"{self._format.show(file_path)} does not exist") from None
        except OSError as exc:
            raise ToolError(f"cannot read {self._format.show(file_path)}: {exc.strerror or exc}") from None
        try:
            server = await self._server(spec, file_path)
            async with server.lock:
                self._touch(spec.language, server)
                return await self._ask(
                    server, spec, operation, file_path, text, line=line, character=character
                )
        except LspError as exc:
            await self._stop(spec.language)
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"the {spec.label} language server could not start: {exc}") from None

    async def aclose(self) -> None:
        for language in list(self._running):
            await self._stop(language)

    async def _ask(
        self,
        server: _Server,
        spec: ServerSpec,
        operation: LspOperation,
        path: str,
        text: str,
        *,
        line: int,
        character: int,
    ) -> str:
        uri = Path(path).as_uri()
        client = server.client
        before = client.publications(uri)
        changed = await self._sync(server, spec, uri, text)
        lines = text.splitlines()
        line_text = lines[line] if 0 <= line < len(lines) else ""
        position = {"line": max(line, 0), "character": to_utf16(line_text, max(character, 0))}
        document = {"textDocument": {"uri": uri}}
        asked = f"{self._format.show(path)}:{line + 1}:{character + 1}"
        match operation:
            case "definition":
                result = await client.request("textDocument/definition", {**document, "position": position})
                return self._format.locations(result, what="definition", asked=asked)
            case "references":
                params = {**document, "position": position, "context": {"includeDeclaration": True}}
                result = await client.request("textDocument/references", params)
                return self._format.locations(result, what="reference", asked=asked)
            case "hover":
                result = await client.request("textDocument/hover", {**document, "position": position})
                return hover_text(result) or f"no hover information at {asked}"
            case "symbols":
                result = await client.request("textDocument/documentSymbol", document)
                return self._format.symbols(path, result)
            case "diagnostics":
                if changed or uri not in client.diagnostics:
                    await client.wait_for_diagnostics(uri, after=before, timeout_s=self.diagnostics_wait_s)
                if uri not in client.diagnostics:
                    wait = f"{self.diagnostics_wait_s:g} s"
                    return f"no diagnostics from {client.name} for {self._format.show(path)} within {wait}"
                return self._format.diagnostics(path, client.diagnostics[uri])
            case _:
                assert_never(operation)

    async def _sync(self, server: _Server, spec: ServerSpec, uri: str, text: str) -> bool:
        """Open the document, or send its new text; True when the server was told something new."""
        known = server.documents.get(uri)
        if known is None:
            item = {"uri": uri, "languageId": spec.language, "version": 1, "text": text}
            await server.client.notify("textDocument/didOpen", {"textDocument": item})
            server.documents[uri] = (1, text)
            return True
        version, old = known
        if old == text:
            return False
        params: JSON = {
            "textDocument": {"uri": uri, "version": version + 1},
            "contentChanges": [{"text": text}],
        }
        await server.client.notify("textDocument/didChange", params)
        server.documents[uri] = (version + 1, text)
        return True

    async def _server(self, spec: ServerSpec, path: str) -> _Server:
        async with self._starting:
            running = self._running.get(spec.language)
            if running is not None and not running.client.closed:
                return running
            if running is not None:
                await self._stop(spec.language)
            command = next(
                ((found, *rest) for name, *rest in spec.commands if (found := find_program(name))), None
            )
            if command is None:
                raise ToolError(f"no language server for {Path(path).suffix} files ({spec.install_hint})")
            server = await self._start(spec, command)
            self._running[spec.language] = server
            return server

    async def _start(self, spec: ServerSpec, command: tuple[str, ...]) -> _Server:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=self.workspace,
            limit=2**20,
        )
        assert process.stdin is not None and process.stdout is not None
        name = f"the {spec.label} language server ({Path(command[0]).name})"
        root = Path(self.workspace).as_uri()
        client = LspClient(process.stdout, process.stdin, name=name, root_uri=root)
        client.start()
        server = _Server(client, process)
        try:
            await client.request("initialize", _initialize_params(root), timeout_s=START_TIMEOUT_S)
            await client.notify("initialized", {})
        except BaseException:
            await self._terminate(server)
            raise
        return server

    def _touch(self, language: str, server: _Server) -> None:
        if server.idle is not None:
            server.idle.cancel()
        loop = asyncio.get_running_loop()
        server.idle = loop.call_later(self.idle_s, lambda: loop.create_task(self._stop_if(language, server)))

    async def _stop_if(self, language: str, server: _Server) -> None:
        if self._running.get(language) is server and not server.lock.locked():
            await self._stop(language)

    async def _stop(self, language: str) -> None:
        server = self._running.pop(language, None)
        if server is not None:
            await self._terminate(server)

    async def _terminate(self, server: _Server) -> None:
        if server.idle is not None:
            server.idle.cancel()
        client, process = server.client, server.process
        if not client.closed:
            with contextlib.suppress(LspError, OSError):
                await client.request("shutdown", None, timeout_s=STOP_TIMEOUT_S)
                await client.notify("exit", None)
        await client.aclose()
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            async with asyncio.timeout(STOP_TIMEOUT_S):
                await process.wait()
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


def _initialize_params(root_uri: str) -> JSON:
    return {
        "processId": os.getpid(),
        "clientInfo": {"name": "circle"},
        "rootUri": root_uri,
        "rootPath": root_uri.removeprefix("file://"),
        "workspaceFolders": [{"uri": root_uri, "name": root_uri.rsplit("/", 1)[-1]}],
        "capabilities": {
            "textDocument": {
                "synchronization": {"didSave": False, "dynamicRegistration": False},
                "hover": {"contentFormat": ["plaintext", "markdown"]},
                "definition": {"linkSupport": True},
                "references": {},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                "publishDiagnostics": {"relatedInformation": False},
            },
            "workspace": {"configuration": True, "workspaceFolders": True},
            "window": {"workDoneProgress": True},
        },
    }


def _read_line(path: str, line: int) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            for number, text in enumerate(file):
                if number == line:
                    return text.rstrip("\r\n")
    except OSError:
        return ""
    return ""


__all__ = ["SERVERS", "ServerSpec", "StdioLanguageServers", "find_program", "spec_for"]
