"""The FileSystem contract, held against LocalFileSystem and InMemoryFileSystem alike."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from circle._testing.local import InMemoryFileSystem
from circle.adapters.local.files import LocalFileSystem
from circle.application.ports.file_system import FileSystem, PathChangedError

T0 = 1_600_000_000.0


@dataclass
class Harness:
    fs: FileSystem
    root: str
    put: Callable[[str, bytes, float | None], None]
    link: Callable[[str, str], None]
    hard: Callable[[str, str], None]

    def path(self, rel: str) -> str:
        return f"{self.root}/{rel}"

    def write(self, rel: str, data: bytes | str = b"", *, mtime: float | None = None) -> str:
        self.put(self.path(rel), data.encode() if isinstance(data, str) else data, mtime)
        return self.path(rel)

    def symlink(self, rel: str, target: str) -> str:
        self.link(self.path(rel), target)
        return self.path(rel)

    def hardlink(self, rel: str, existing: str) -> str:
        self.hard(self.path(rel), existing)
        return self.path(rel)


def _local(tmp_path: Path) -> Harness:
    def put(path: str, data: bytes, mtime: float | None) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Path(path).write_bytes(data)
        if mtime is not None:
            os.utime(path, (mtime, mtime))

    def link(path: str, target: str) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)

    return Harness(
        LocalFileSystem(), os.path.realpath(tmp_path), put, link, lambda new, old: os.link(old, new)
    )


def _memory() -> Harness:
    fs = InMemoryFileSystem()
    fs.mkdir("/ws")

    def put(path: str, data: bytes, mtime: float | None) -> None:
        fs.put(path, data, mtime=mtime)

    return Harness(fs, "/ws", put, fs.symlink, fs.hardlink)


@pytest.fixture(params=["local", "memory"])
def h(request: pytest.FixtureRequest, tmp_path: Path) -> Harness:
    return _local(tmp_path) if request.param == "local" else _memory()


async def test_written_file_reads_back_with_its_folders_made(h: Harness) -> None:
    async with asyncio.timeout(10):
        path = h.path("a/b/c.txt")
        await h.fs.write_bytes(path, b"hello")
        assert await h.fs.read_bytes(path) == b"hello"
        assert await h.fs.read_bytes(path, limit=2) == b"he"
        info = await h.fs.stat(path)
        assert info is not None
        assert (info.path, info.kind, info.size) == (path, "file", 5)
        folder = await h.fs.stat(h.path("a/b"))
        assert folder is not None
        assert folder.kind == "dir"
        await h.fs.write_bytes(path, b"again")
        assert await h.fs.read_bytes(path) == b"again"


async def test_stat_of_a_missing_path_is_none(h: Harness) -> None:
    async with asyncio.timeout(10):
        h.write("file.txt", "x")
        assert await h.fs.stat(h.path("missing.txt")) is None
        assert await h.fs.stat(h.path("file.txt/below")) is None


async def test_missing_file_raises_file_not_found(h: Harness) -> None:
    async with asyncio.timeout(10):
        missing = h.path("missing.txt")
        with pytest.raises(FileNotFoundError):
            await h.fs.read_bytes(missing)
        with pytest.raises(FileNotFoundError):
            await h.fs.read_lines(missing, offset=1, limit=10)
        with pytest.raises(FileNotFoundError):
            await h.fs.list_dir(h.path("nowhere"))
        with pytest.raises(FileNotFoundError):
            await h.fs.delete(missing)
        with pytest.raises(FileNotFoundError):
            await h.fs.glob(h.path("nowhere"), "*", limit=10)


async def test_folders_and_files_are_not_confused(h: Harness) -> None:
    async with asyncio.timeout(10):
        file = h.write("sub/file.txt", "x")
        folder = h.path("sub")
        with pytest.raises(IsADirectoryError):
            await h.fs.read_bytes(folder)
        with pytest.raises(IsADirectoryError):
            await h.fs.read_lines(folder, offset=1, limit=1)
        with pytest.raises(IsADirectoryError):
            await h.fs.delete(folder)
        with pytest.raises(IsADirectoryError):
            await h.fs.write_bytes(folder, b"x")
        with pytest.raises(NotADirectoryError):
            await h.fs.list_dir(file)
        with pytest.raises(OSError):  # noqa: PT011 - NotADirectoryError or FileExistsError, as the OS says
            await h.fs.write_bytes(f"{file}/below.txt", b"x")


async def test_list_dir_gives_children_sorted_by_path(h: Harness) -> None:
    async with asyncio.timeout(10):
        h.write("b.txt", "bb")
        h.write("a.txt", "a")
        h.write("sub/deep/x.txt", "x")
        infos = await h.fs.list_dir(h.root)
        assert [(i.path, i.kind) for i in infos] == [
            (h.path("a.txt"), "file"),
            (h.path("b.txt"), "file"),
            (h.path("sub"), "dir"),
        ]
        assert infos[1].size == 2


async def test_read_lines_gives_windows_and_whether_more_follow(h: Harness) -> None:
    async with asyncio.timeout(10):
        path = h.write("lines.txt", b"one\ntwo\r\nthree\nfour")
        window = await h.fs.read_lines(path, offset=1, limit=2)
        assert (window.lines, window.offset, window.more) == (["one", "two"], 1, True)
        window = await h.fs.read_lines(path, offset=3, limit=1)
        assert (window.lines, window.more) == (["three"], True)
        window = await h.fs.read_lines(path, offset=3, limit=2)
        assert (window.lines, window.more) == (["three", "four"], False)
        window = await h.fs.read_lines(path, offset=3, limit=100)
        assert (window.lines, window.more) == (["three", "four"], False)
        window = await h.fs.read_lines(path, offset=9, limit=5)
        assert (window.lines, window.offset, window.more) == ([], 9, False)


async def test_read_lines_with_a_final_newline_and_bad_utf8(h: Harness) -> None:
    async with asyncio.timeout(10):
        path = h.write("end.txt", b"a\n\xffb\n")
        window = await h.fs.read_lines(path, offset=1, limit=2)
        assert (window.lines, window.more) == (["a", "\ufffdb"], False)
        empty = h.write("empty.txt", b"")
        window = await h.fs.read_lines(empty, offset=1, limit=2)
        assert (window.lines, window.more) == ([], False)
        with pytest.raises(ValueError, match="offset"):
            await h.fs.read_lines(path, offset=0, limit=2)


async def test_resolve_follows_symlinks_and_keeps_a_missing_tail(h: Harness) -> None:
    async with asyncio.timeout(10):
        target = h.write("real/f.txt", "content")
        h.symlink("link", h.path("real"))
        h.symlink("rel.txt", "real/f.txt")
        assert await h.fs.resolve(h.path("link/f.txt")) == target
        assert await h.fs.resolve(h.path("rel.txt")) == target
        assert await h.fs.resolve(h.path("link/missing/tail.txt")) == h.path("real/missing/tail.txt")
        assert await h.fs.resolve(h.path("real/../real/f.txt")) == target
        assert await h.fs.read_bytes(h.path("link/f.txt")) == b"content"


async def test_writing_through_a_symlink_changes_its_target_and_keeps_the_link(h: Harness) -> None:
    async with asyncio.timeout(10):
        target = h.write("real/f.txt", "old")
        link = h.symlink("alias.txt", "real/f.txt")
        await h.fs.write_bytes(link, b"new")
        assert await h.fs.read_bytes(target) == b"new"
        assert await h.fs.resolve(link) == target


async def test_delete_removes_a_file_and_a_link_but_not_its_target(h: Harness) -> None:
    async with asyncio.timeout(10):
        path = h.write("gone.txt", "x")
        await h.fs.delete(path)
        assert await h.fs.stat(path) is None
        target = h.write("kept.txt", "x")
        link = h.symlink("link.txt", target)
        await h.fs.delete(link)
        assert await h.fs.stat(link) is None
        assert await h.fs.read_bytes(target) == b"x"


@pytest.fixture
def tree(h: Harness) -> Harness:
    h.write("a.py", mtime=T0 + 100)
    h.write("src/b.py", mtime=T0 + 300)
    h.write("src/deep/c.py", mtime=T0 + 200)
    h.write("src/d.txt", mtime=T0 + 400)
    h.write(".hidden/h.py", mtime=T0 + 50)
    h.write("node_modules/m/m.py", mtime=T0 + 500)
    h.write(".git/x.py", mtime=T0 + 600)
    h.write(".venv/lib/v.py", mtime=T0 + 700)
    h.write("__pycache__/p.py", mtime=T0 + 800)
    return h


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.py", ["src/b.py", "src/deep/c.py", "a.py", ".hidden/h.py"]),
        ("*.py", ["a.py"]),
        ("src/*", ["src/d.txt", "src/b.py"]),
        ("src/**", ["src/d.txt", "src/b.py", "src/deep/c.py"]),
        ("src/**/*.py", ["src/b.py", "src/deep/c.py"]),
        ("./src/?.py", ["src/b.py"]),
        ("**/[a-c].py", ["src/b.py", "src/deep/c.py", "a.py"]),
        ("**/*.{py,txt}", ["src/d.txt", "src/b.py", "src/deep/c.py", "a.py", ".hidden/h.py"]),
        ("node_modules/**/*.py", ["node_modules/m/m.py"]),
        (".venv/**", [".venv/lib/v.py"]),
        ("nothing/*.py", []),
        ("*.rs", []),
    ],
)
async def test_glob_matches_newest_first(tree: Harness, pattern: str, expected: list[str]) -> None:
    async with asyncio.timeout(10):
        found = await tree.fs.glob(tree.root, pattern, limit=100)
        assert found == [tree.path(rel) for rel in expected]


async def test_glob_stops_at_the_limit_keeping_the_newest(tree: Harness) -> None:
    async with asyncio.timeout(10):
        found = await tree.fs.glob(tree.root, "**/*", limit=2)
        assert found == [tree.path("src/d.txt"), tree.path("src/b.py")]


async def test_glob_from_a_subfolder(tree: Harness) -> None:
    async with asyncio.timeout(10):
        found = await tree.fs.glob(tree.path("src"), "**/*.py", limit=10)
        assert found == [tree.path("src/b.py"), tree.path("src/deep/c.py")]


async def test_local_write_keeps_the_mode_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    fs = LocalFileSystem()
    script = tmp_path / "run.sh"
    script.write_text("old")
    script.chmod(0o750)
    async with asyncio.timeout(10):
        await fs.write_bytes(str(script), b"new")
    assert script.read_bytes() == b"new"
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.sh"]


async def test_stat_names_the_file_behind_each_hard_link(h: Harness) -> None:
    async with asyncio.timeout(10):
        first = h.write("one.txt", "same")
        second = h.hardlink("two.txt", first)
        alone = h.write("alone.txt", "other")
        one, two, other = [await h.fs.stat(p) for p in (first, second, alone)]
        assert one is not None and two is not None and other is not None
        assert one.identity == two.identity != other.identity
        assert (one.links, two.links, other.links) == (2, 2, 1)
        listed = {info.path: info for info in await h.fs.list_dir(h.root)}
        assert listed[second].identity == one.identity and listed[second].links == 2


async def test_a_write_replaces_the_file_and_leaves_its_other_names_alone(h: Harness) -> None:
    async with asyncio.timeout(10):
        first = h.write("one.txt", "same")
        second = h.hardlink("two.txt", first)
        await h.fs.write_bytes(second, b"changed", follow_symlinks=False)
        assert await h.fs.read_bytes(first) == b"same"
        info = await h.fs.stat(first)
        assert info is not None and info.links == 1


async def test_without_following_a_symlink_in_the_path_fails_and_nothing_happens(h: Harness) -> None:
    async with asyncio.timeout(10):
        outside = h.write("outside/f.txt", "secret")
        h.symlink("inside", h.path("outside"))
        through = h.path("inside/f.txt")
        with pytest.raises(PathChangedError, match="changed while it was being read: a symlink appeared"):
            await h.fs.read_bytes(through, follow_symlinks=False)
        with pytest.raises(PathChangedError, match="being read"):
            await h.fs.read_lines(through, offset=1, limit=5, follow_symlinks=False)
        with pytest.raises(PathChangedError, match="being written: a symlink appeared; nothing was written"):
            await h.fs.write_bytes(h.path("inside/new.txt"), b"x", follow_symlinks=False)
        with pytest.raises(PathChangedError, match="being written"):
            await h.fs.write_bytes(through, b"x", follow_symlinks=False)
        with pytest.raises(PathChangedError, match="being deleted"):
            await h.fs.delete(through, follow_symlinks=False)
        final = h.symlink("final.txt", outside)
        with pytest.raises(PathChangedError):
            await h.fs.read_bytes(final, follow_symlinks=False)
        with pytest.raises(PathChangedError):
            await h.fs.delete(final, follow_symlinks=False)
        assert await h.fs.read_bytes(outside) == b"secret"
        assert await h.fs.stat(h.path("outside/new.txt")) is None
        assert await h.fs.stat(final) is not None


async def test_without_following_symlinks_a_real_path_reads_writes_and_deletes(h: Harness) -> None:
    async with asyncio.timeout(10):
        path = h.path("made/below/f.txt")
        await h.fs.write_bytes(path, b"a\nb\n", follow_symlinks=False)
        assert await h.fs.read_bytes(path, follow_symlinks=False) == b"a\nb\n"
        window = await h.fs.read_lines(path, offset=2, limit=1, follow_symlinks=False)
        assert window.lines == ["b"]
        await h.fs.delete(path, follow_symlinks=False)
        assert await h.fs.stat(path) is None


async def test_a_read_expecting_one_file_refuses_another_at_the_path(h: Harness) -> None:
    async with asyncio.timeout(10):
        path = h.write("f.txt", "first")
        judged = await h.fs.stat(path)
        assert judged is not None
        assert await h.fs.read_bytes(path, follow_symlinks=False, expect=judged) == b"first"
        h.write("secret.txt", "secret")
        other = h.hardlink("other.txt", h.path("secret.txt"))
        await h.fs.delete(path)
        h.hardlink("f.txt", other)
        with pytest.raises(PathChangedError, match="another file stands there now; nothing was read"):
            await h.fs.read_bytes(path, follow_symlinks=False, expect=judged)
        with pytest.raises(PathChangedError):
            await h.fs.read_lines(path, offset=1, limit=1, follow_symlinks=False, expect=judged)


@pytest.mark.parametrize("lines", [3, 40_000], ids=["small", "past the inline size"])
async def test_a_line_window_by_a_held_stat_reads_that_file_and_refuses_another(
    h: Harness, lines: int
) -> None:
    async with asyncio.timeout(10):
        path = h.write("f.txt", "".join(f"line {n}\n" for n in range(1, lines + 1)))
        judged = await h.fs.stat(path)
        assert judged is not None
        window = await h.fs.read_lines(path, offset=lines - 1, limit=5, follow_symlinks=False, expect=judged)
        assert (window.lines, window.more) == ([f"line {lines - 1}", f"line {lines}"], False)
        other = h.write("g.txt", "another file\n")  # made while f.txt stands: another file
        await h.fs.delete(path)
        h.hardlink("f.txt", other)
        with pytest.raises(PathChangedError):
            await h.fs.read_lines(path, offset=1, limit=1, follow_symlinks=False, expect=judged)


async def test_scan_keeps_the_files_asked_for_hidden_ones_included_and_stops_at_its_limit(h: Harness) -> None:
    async with asyncio.timeout(10):
        h.write(".env", "K=1")
        h.write("node_modules/p/.env", "K=2")
        h.write(".git/x/.env", "K=3")
        h.write("src/main.py", "x")
        h.write("elsewhere/.env", "K=4")
        h.symlink("linked", h.path("elsewhere"))

        def keep(path: str) -> bool:
            return path.endswith("/.env")

        scan = await h.fs.scan(h.root, keep=keep, limit=1000)
        assert scan.complete
        found = sorted(info.path for info in scan.files)
        assert found == [h.path(p) for p in (".env", ".git/x/.env", "elsewhere/.env", "node_modules/p/.env")]
        assert all(info.inode for info in scan.files)
        small = await h.fs.scan(h.root, keep=keep, limit=2)
        assert not small.complete
        missing = await h.fs.scan(h.path("nowhere"), keep=keep, limit=10)
        assert missing.complete and missing.files == []
