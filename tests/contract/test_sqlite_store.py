"""What only the SQLite store can promise: a file that survives, is shared, and fails clearly."""

from __future__ import annotations

import ast
import asyncio
import itertools
import os
import re
import sqlite3
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import pytest

from circle.adapters.storage import _sql
from circle.adapters.storage._database import SCHEMA_VERSION, open_connection
from circle.adapters.storage._sql import Table
from circle.adapters.storage.sqlite_store import SqliteSessionStore, SqliteTrustList
from circle.domain.checkpoints import MAIN_BRANCH, Checkpoint, check_tree
from circle.domain.errors import StorageError
from circle.domain.messages import Message

CHILD = """
import asyncio, sys
from pathlib import Path
from circle.adapters.storage.sqlite_store import SqliteSessionStore
from circle.domain.messages import Message

async def main() -> None:
    store = SqliteSessionStore(Path(sys.argv[1]))
    for i in range(1_000_000):
        checkpoint = await store.append(sys.argv[2], Message.user(f"message {i}"))
        print(checkpoint.id, flush=True)

asyncio.run(main())
"""

EVERY_CALL = """
import asyncio, sys
from pathlib import Path
from circle.adapters.storage.sqlite_store import SqliteSessionStore, SqliteTrustList
from circle.domain.messages import Message

async def main() -> None:
    path, folder = Path(sys.argv[1]), sys.argv[2]
    store = SqliteSessionStore(path)
    if await store.get_session("s1") is None:
        await store.create_session(workspace="/w", session_id="s1")
    first = await store.append("s1", Message.user("hi"))
    await store.create_branch("s1", "b" + first.id, head_id=first.id)
    await store.add_label(first.id, "start")
    await store.set_title("s1", "t")
    assert (await store.history("s1"))[-1] == first
    assert await store.list_sessions(workspace="/w") and await store.list_sessions()
    assert await store.branches("s1") and await store.labels("s1") and await store.checkpoints("s1")
    await store.aclose()
    trust = SqliteTrustList(path)
    await trust.trust(folder)
    assert await trust.is_trusted(folder)
    await trust.aclose()
    print(sorted(name for name in ("sqlalchemy", "sqlmodel") if name in sys.modules))

asyncio.run(main())
"""


async def make_session(path: Path, session_id: str = "s1") -> SqliteSessionStore:
    store = SqliteSessionStore(path)
    await store.create_session(workspace="/w", session_id=session_id)
    return store


async def assert_sound(store: SqliteSessionStore, session_id: str) -> None:
    branches = await store.branches(session_id)
    assert check_tree(await store.checkpoints(session_id), branches, await store.labels(session_id)) == []


def integrity(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])


async def test_nothing_is_created_before_first_use(tmp_path: Path) -> None:
    path = tmp_path / "data" / "circle.sqlite"

    store = SqliteSessionStore(path)
    await store.aclose()

    assert not path.parent.exists()


async def test_first_use_makes_the_folder_tables_and_wal(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "data" / "circle.sqlite"
    store = await make_session(path)
    await store.aclose()

    with sqlite3.connect(path) as connection:
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        indexes = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        journal = connection.execute("PRAGMA journal_mode").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    assert {"sessions", "checkpoints", "branches", "labels", "leases", "trusted_folders"} <= tables
    assert {"ix_checkpoints_session_seq", "ix_sessions_workspace_updated"} <= indexes
    assert (journal, version) == ("wal", SCHEMA_VERSION)


async def test_data_survives_reopening_the_file(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store = await make_session(path)
    appended = [await store.append("s1", Message.user(f"m{i}")) for i in range(3)]
    await store.set_title("s1", "kept")
    await store.aclose()
    trust = SqliteTrustList(path)
    await trust.trust(str(tmp_path))
    await trust.aclose()

    reopened = SqliteSessionStore(path)
    again = SqliteTrustList(path)

    assert await reopened.history("s1") == appended
    info = await reopened.get_session("s1")
    assert info is not None and (info.title, info.message_count) == ("kept", 3)
    assert await again.is_trusted(str(tmp_path / "sub"))
    await reopened.aclose()
    await again.aclose()


async def test_two_stores_on_one_file_both_append(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    first = await make_session(path)
    second = SqliteSessionStore(path)

    a = await first.append("s1", Message.user("from first"))
    b = await second.append("s1", Message.user("from second"))
    c = await first.append("s1", Message.user("first again"))

    assert (b.parent_id, c.parent_id) == (a.id, b.id)
    assert await second.history("s1") == [a, b, c]
    await first.aclose()
    await second.aclose()


def test_concurrent_writers_on_one_file_make_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    asyncio.run(_create(path))

    def write(tag: str) -> None:
        async def go() -> None:
            store = SqliteSessionStore(path)
            for i in range(40):
                await store.append("s1", Message.user(f"{tag} {i}"))
            await store.aclose()

        asyncio.run(go())

    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(write, tag) for tag in ("a", "b")]:
            future.result()

    history, problems = asyncio.run(_history_and_problems(path))
    assert [cp.seq for cp in history] == list(range(1, 81))
    texts = [cp.message.text for cp in history]
    for tag in ("a", "b"):
        assert [t for t in texts if t.startswith(tag)] == [f"{tag} {i}" for i in range(40)]
    assert problems == []


async def _create(path: Path) -> None:
    store = await make_session(path)
    await store.aclose()


async def _history_and_problems(path: Path) -> tuple[list[Checkpoint], list[str]]:
    store = SqliteSessionStore(path)
    history = await store.history("s1")
    problems = check_tree(await store.checkpoints("s1"), await store.branches("s1"))
    await store.aclose()
    return history, problems


def test_a_killed_writer_loses_nothing_it_reported(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    asyncio.run(_create(path))
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), "s1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    reported: list[str] = []
    for line in child.stdout:
        reported.append(line.strip())
        if len(reported) == 200:
            break
    child.kill()  # SIGKILL, in the middle of the next appends
    child.wait(timeout=30)
    reported += [line.strip() for line in child.stdout.read().splitlines() if len(line.strip()) == 32]
    assert len(reported) >= 200, child.stderr.read()
    child.stdout.close()
    child.stderr.close()

    assert integrity(path) == "ok"
    store = SqliteSessionStore(path)
    history = asyncio.run(store.history("s1"))
    assert [cp.id for cp in history][: len(reported)] == reported
    after = asyncio.run(store.append("s1", Message.user("after the crash")))
    assert after.parent_id == history[-1].id
    asyncio.run(assert_sound(store, "s1"))
    asyncio.run(store.aclose())


async def test_checkpoint_rows_are_never_updated_or_deleted(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store = await make_session(path)
    first = await store.append("s1", Message.user("one"))
    with sqlite3.connect(path) as connection:
        for verb in ("UPDATE", "DELETE"):
            connection.execute(
                f"CREATE TRIGGER no_{verb.lower()} BEFORE {verb} ON checkpoints"
                " BEGIN SELECT RAISE(ABORT, 'checkpoints are append-only'); END"
            )
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            connection.execute("UPDATE checkpoints SET role = 'user'")  # the guard works
    connection.close()

    await store.append("s1", Message.user("two"))
    await store.create_branch("s1", "fork", head_id=first.id)
    await store.append("s1", Message.user("forked"), branch="fork")
    await store.append("s1", Message.user("side"), branch="side")
    await store.add_label(first.id, "start")
    await store.set_title("s1", "title")

    assert len(await store.checkpoints("s1")) == 4
    await assert_sound(store, "s1")
    await store.aclose()


async def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    path.write_bytes(b"this is not sqlite at all\n" * 100)
    store = SqliteSessionStore(path)

    with pytest.raises(StorageError) as caught:
        await store.list_sessions()

    message = caught.value.message
    assert "not a database" in message and str(path) in message
    assert "\n" not in message
    await store.aclose()


async def test_a_path_under_a_regular_file_is_a_storage_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    store = SqliteSessionStore(blocker / "data" / "circle.sqlite")

    with pytest.raises(StorageError, match="cannot create the folder"):
        await store.create_session(workspace="/w")
    await store.aclose()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes in read-only folders")
async def test_a_read_only_folder_is_a_storage_error(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    store = SqliteSessionStore(folder / "circle.sqlite")
    try:
        with pytest.raises(StorageError, match="cannot open the session store"):
            await store.create_session(workspace="/w")
    finally:
        folder.chmod(0o700)
        await store.aclose()


async def test_a_store_from_a_newer_circle_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    await _create(path)
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA user_version = 99")
    connection.close()
    store = SqliteSessionStore(path)

    with pytest.raises(StorageError, match="newer"):
        await store.get_session("s1")
    await store.aclose()


async def test_an_unreadable_message_names_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store = await make_session(path)
    await store.append("s1", Message.user("fine"))
    odd = await store.append("s1", Message.user("from the future"))
    with sqlite3.connect(path) as connection:  # as a newer Circle might have written it
        connection.execute(
            "UPDATE checkpoints SET message_json = ? WHERE id = ?",
            ('{"role": "user", "parts": [{"type": "hologram"}]}', odd.id),
        )
    connection.close()

    with pytest.raises(StorageError, match=f"checkpoint {odd.id} of session s1 cannot be read"):
        await store.history("s1")
    await store.aclose()


async def test_an_in_memory_store_works(tmp_path: Path) -> None:
    store = SqliteSessionStore(Path(":memory:"))
    await store.create_session(workspace="/w", session_id="s1")
    appended = await store.append("s1", Message.user("hi"))

    assert await store.history("s1") == [appended]
    await store.aclose()


async def test_ten_thousand_messages_load_in_order(tmp_path: Path) -> None:
    store = await make_session(tmp_path / "circle.sqlite")
    count = 10_000
    for i in range(count):
        await store.append("s1", Message.user(f"message {i}"))

    history = await store.history("s1", branch=MAIN_BRANCH)

    assert len(history) == count
    assert [cp.message.text for cp in history[:2]] == ["message 0", "message 1"]
    assert history[-1].message.text == f"message {count - 1}"
    assert [cp.seq for cp in history] == list(range(1, count + 1))
    assert all(child.parent_id == parent.id for parent, child in itertools.pairwise(history))
    info = await store.get_session("s1")
    assert info is not None and info.message_count == count
    await store.aclose()


async def test_one_store_shared_by_threads_makes_one_chain(tmp_path: Path) -> None:
    store = await make_session(tmp_path / "circle.sqlite")

    def write(tag: str) -> None:
        async def go() -> None:
            for i in range(40):
                await store.append("s1", Message.user(f"{tag} {i}"))

        asyncio.run(go())

    with ThreadPoolExecutor(max_workers=2) as pool:
        for future in [pool.submit(write, tag) for tag in ("a", "b")]:
            future.result()

    history = await store.history("s1")
    assert [cp.seq for cp in history] == list(range(1, 81))
    await assert_sound(store, "s1")
    await store.aclose()


async def test_a_store_left_at_version_0_keeps_its_rows_and_is_brought_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    store = await make_session(path)
    appended = await store.append("s1", Message.user("kept"))
    await store.aclose()
    with closing(sqlite3.connect(path)) as connection:
        connection.execute("PRAGMA user_version = 0")

    reopened = SqliteSessionStore(path)

    assert await reopened.history("s1") == [appended]
    await reopened.aclose()
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


VERSION_1 = (  # the schema as Circle wrote it at version 1
    "CREATE TABLE sessions (id VARCHAR NOT NULL, workspace VARCHAR NOT NULL, title VARCHAR,"
    " created_at FLOAT NOT NULL, updated_at FLOAT NOT NULL, PRIMARY KEY (id))",
    "CREATE INDEX ix_sessions_workspace_updated ON sessions (workspace, updated_at)",
    "CREATE TABLE checkpoints (id VARCHAR NOT NULL, session_id VARCHAR NOT NULL, parent_id VARCHAR,"
    " seq INTEGER NOT NULL, role VARCHAR NOT NULL, message_json VARCHAR NOT NULL, created_at FLOAT NOT NULL,"
    " PRIMARY KEY (id), FOREIGN KEY(session_id) REFERENCES sessions (id),"
    " FOREIGN KEY(parent_id) REFERENCES checkpoints (id))",
    "CREATE UNIQUE INDEX ix_checkpoints_session_seq ON checkpoints (session_id, seq)",
    "CREATE TABLE branches (session_id VARCHAR NOT NULL, name VARCHAR NOT NULL, head_id VARCHAR,"
    " PRIMARY KEY (session_id, name), FOREIGN KEY(session_id) REFERENCES sessions (id),"
    " FOREIGN KEY(head_id) REFERENCES checkpoints (id))",
    "CREATE TABLE labels (checkpoint_id VARCHAR NOT NULL, text VARCHAR NOT NULL,"
    " PRIMARY KEY (checkpoint_id, text), FOREIGN KEY(checkpoint_id) REFERENCES checkpoints (id))",
    "CREATE TABLE trusted_folders (path VARCHAR NOT NULL, trusted_at FLOAT NOT NULL, PRIMARY KEY (path))",
    "INSERT INTO sessions VALUES ('old', '/w', 'kept', 1.0, 2.0)",
    "INSERT INTO checkpoints VALUES ('c1', 'old', NULL, 1, 'user',"
    """ '{"role":"user","parts":[{"type":"text","text":"héllo"}]}', 1.5)""",
    "INSERT INTO branches VALUES ('old', 'main', 'c1')",
    "PRAGMA user_version = 1",
)


async def test_a_version_1_store_gets_names_forks_sizes_and_leases(tmp_path: Path) -> None:
    path = tmp_path / "circle.sqlite"
    with closing(sqlite3.connect(path)) as connection:
        for statement in VERSION_1:
            connection.execute(statement)
        connection.commit()
        size = connection.execute("SELECT length(CAST(message_json AS BLOB)) FROM checkpoints").fetchone()[0]

    store = SqliteSessionStore(path)
    info = await store.get_session("old")
    assert info is not None
    assert (info.title, info.name, info.forked_from, info.message_count) == ("kept", None, None, 1)
    assert info.size_bytes == size
    await store.append("old", Message.user("more"))
    grown = await store.get_session("old")
    assert grown is not None and grown.size_bytes == size + len(
        Message.user("more").model_dump_json().encode()
    )
    forked = await store.fork("old", at_checkpoint="c1")
    assert forked.forked_from == "old" and forked.size_bytes == size
    await store.aclose()
    tables, indexes = _layout(path)
    assert tables == _sql.TABLES
    assert indexes == _sql.INDEXES


def _loaded_by_a_fresh_process(path: Path, folder: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", EVERY_CALL, str(path), str(folder)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    loaded = ast.literal_eval(done.stdout.strip())
    assert isinstance(loaded, list)
    return [str(name) for name in loaded]


def test_only_creating_the_file_loads_sqlmodel(tmp_path: Path) -> None:
    path = tmp_path / "data" / "circle.sqlite"

    assert _loaded_by_a_fresh_process(path, tmp_path) == ["sqlalchemy", "sqlmodel"]  # made it
    assert _loaded_by_a_fresh_process(path, tmp_path) == []  # every call, on plain sqlite3


def _make_with_sqlmodel(path: Path) -> None:
    """The schema exactly as ``SQLModel.metadata.create_all`` makes it, apart from the store's code."""
    from sqlalchemy import create_engine

    from circle.adapters.storage._schema import METADATA

    engine = create_engine(f"sqlite:///{path}")
    METADATA.create_all(engine)
    engine.dispose()


def _layout(path: Path) -> tuple[dict[str, Table], dict[str, tuple[str, tuple[str, ...], bool]]]:
    """Tables (columns in order, primary key) and CREATE INDEX indexes, read back from SQLite."""
    tables: dict[str, Table] = {}
    indexes: dict[str, tuple[str, tuple[str, ...], bool]] = {}
    with closing(sqlite3.connect(path)) as connection:
        names = [row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for name in names:
            info = connection.execute(f"PRAGMA table_info({name})").fetchall()  # cid name type notnull _ pk
            key = tuple(row[1] for row in sorted((row for row in info if row[5]), key=lambda row: row[5]))
            tables[name] = Table(tuple(row[1] for row in info), key=key)
            for _, index, unique, origin, _ in connection.execute(f"PRAGMA index_list({name})"):
                if origin == "c":  # a CREATE INDEX, not the one behind a key
                    columns = tuple(row[2] for row in connection.execute(f"PRAGMA index_info({index})"))
                    indexes[index] = (name, columns, bool(unique))
    return tables, indexes


def _schema_sql(path: Path) -> list[tuple[str, str, str | None]]:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()


def test_the_hand_written_sql_expects_the_tables_sqlmodel_makes(tmp_path: Path) -> None:
    _make_with_sqlmodel(tmp_path / "sqlmodel.sqlite")

    tables, indexes = _layout(tmp_path / "sqlmodel.sqlite")

    assert tables == _sql.TABLES
    assert indexes == _sql.INDEXES


async def test_a_new_store_has_exactly_the_sqlmodel_schema(tmp_path: Path) -> None:
    _make_with_sqlmodel(tmp_path / "sqlmodel.sqlite")
    store = await make_session(tmp_path / "circle.sqlite")
    await store.aclose()

    assert _schema_sql(tmp_path / "circle.sqlite") == _schema_sql(tmp_path / "sqlmodel.sqlite")


def _plans(path: Path) -> dict[str, list[str]]:
    """Every hand-written statement compiled against the file, as its query plan."""
    plans: dict[str, list[str]] = {}
    with closing(sqlite3.connect(path)) as connection:
        for name, statement in _sql.STATEMENTS.items():
            parameters = dict.fromkeys(re.findall(r":(\w+)", statement))
            connection.execute(f"EXPLAIN {statement}", parameters)  # raises for a missing table or column
            plan = connection.execute(f"EXPLAIN QUERY PLAN {statement}", parameters).fetchall()
            plans[name] = [row[3] for row in plan]
    return plans


def test_every_statement_compiles_against_the_sqlmodel_schema_and_scans_no_checkpoints(
    tmp_path: Path,
) -> None:
    _make_with_sqlmodel(tmp_path / "sqlmodel.sqlite")

    plans = _plans(tmp_path / "sqlmodel.sqlite")

    assert len(plans) >= 20
    # rows a walk of a branch's path made, not a table
    walked = ("p", "path", "walked", "answers", "spent", "summary")
    scans = {
        name: [line for line in plan if line.startswith("SCAN") and line.split()[1] not in walked]
        for name, plan in plans.items()
    }
    assert [name for name, lines in scans.items() if lines] == ["LIST_SESSIONS"]
    assert all(line.split()[-1] == "s" for line in scans["LIST_SESSIONS"])  # sessions, never checkpoints
    assert not any(re.search(r"UPDATE checkpoints", s) for s in _sql.STATEMENTS.values())
    assert {name for name, s in _sql.STATEMENTS.items() if "DELETE" in s} == set(_sql.DELETIONS)


def test_a_connection_has_the_store_pragmas(tmp_path: Path) -> None:
    with closing(open_connection(tmp_path / "circle.sqlite")) as connection:
        settings = [
            connection.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "synchronous", "foreign_keys", "busy_timeout", "user_version")
        ]

    assert settings == ["wal", 1, 1, 5000, SCHEMA_VERSION]  # synchronous 1 is NORMAL (a thread syncs the WAL)
