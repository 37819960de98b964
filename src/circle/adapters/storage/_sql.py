"""The store's statements, written by hand for the stdlib ``sqlite3`` (named ``:parameters``).

They rely on the tables, columns, keys and indexes in :data:`TABLES` and :data:`INDEXES`, which
the SQLModel classes in :mod:`._schema` define; ``tests/contract/test_sqlite_store.py`` checks
that the two agree and that every statement here compiles against the SQLModel-made schema.
Checkpoints are only ever inserted: no statement here updates one, and only deleting a whole
session (:data:`DELETIONS`) deletes them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Table:
    """A table as the statements use it: its columns in order, and its primary key."""

    columns: tuple[str, ...]
    key: tuple[str, ...]


TABLES = {
    "sessions": Table(
        (
            "id",
            "workspace",
            "title",
            "created_at",
            "updated_at",
            "name",
            "forked_from",
            "forked_at",
            "size_bytes",
        ),
        key=("id",),
    ),
    "checkpoints": Table(
        ("id", "session_id", "parent_id", "seq", "role", "message_json", "created_at"), key=("id",)
    ),
    "branches": Table(("session_id", "name", "head_id"), key=("session_id", "name")),
    "labels": Table(("checkpoint_id", "text"), key=("checkpoint_id", "text")),
    "leases": Table(
        ("session_id", "owner", "pid", "host", "token", "acquired_at", "expires_at"), key=("session_id",)
    ),
    "trusted_folders": Table(("path", "trusted_at"), key=("path",)),
}
"""Every table, by name."""

INDEXES = {
    "ix_sessions_workspace_updated": ("sessions", ("workspace", "updated_at"), False),
    "ix_checkpoints_session_seq": ("checkpoints", ("session_id", "seq"), True),
    "ix_checkpoints_parent": ("checkpoints", ("parent_id",), False),
    "ix_branches_head": ("branches", ("head_id",), False),
}
"""Index name: (table, columns, unique). The checkpoint one makes counts, seqs and loads cheap."""

# sessions

SESSION_EXISTS = "SELECT 1 FROM sessions WHERE id = :session_id"
INSERT_SESSION = (
    "INSERT INTO sessions"
    " (id, workspace, title, created_at, updated_at, name, forked_from, forked_at, size_bytes)"
    " VALUES (:id, :workspace, :title, :created_at, :updated_at, :name, :forked_from, :forked_at, 0)"
)
SESSION_WORKSPACE = "SELECT workspace FROM sessions WHERE id = :session_id"
SET_TITLE = "UPDATE sessions SET title = :title WHERE id = :session_id"
SET_NAME = "UPDATE sessions SET name = :name WHERE id = :session_id"

_SESSION_INFO = (
    "SELECT s.id, s.workspace, s.title, s.created_at, s.updated_at,"
    " (SELECT count(*) FROM checkpoints AS c WHERE c.session_id = s.id),"  # on the (session_id, seq) index
    " s.name, s.forked_from, s.forked_at, s.size_bytes"
    " FROM sessions AS s"
)
_NEWEST_FIRST = " ORDER BY s.updated_at DESC, s.created_at DESC, s.id DESC LIMIT :limit"
GET_SESSION = f"{_SESSION_INFO} WHERE s.id = :session_id"
LIST_SESSIONS = f"{_SESSION_INFO}{_NEWEST_FIRST}"
LIST_WORKSPACE_SESSIONS = f"{_SESSION_INFO} WHERE s.workspace = :workspace{_NEWEST_FIRST}"

# appending: read the state, insert the checkpoint, move the head, bump the session

APPEND_STATE = (  # the session id (no row: no session), the branch head, the last seq, the lease token
    "SELECT s.id, b.head_id, (SELECT max(c.seq) FROM checkpoints AS c WHERE c.session_id = s.id),"
    " (SELECT l.token FROM leases AS l WHERE l.session_id = s.id)"
    " FROM sessions AS s"
    " LEFT OUTER JOIN branches AS b ON b.session_id = s.id AND b.name = :branch"
    " WHERE s.id = :session_id"
)
INSERT_CHECKPOINT = (
    "INSERT INTO checkpoints (id, session_id, parent_id, seq, role, message_json, created_at)"
    " VALUES (:id, :session_id, :parent_id, :seq, :role, :message_json, :created_at)"
)
MOVE_HEAD = (
    "INSERT INTO branches (session_id, name, head_id) VALUES (:session_id, :name, :head_id)"
    " ON CONFLICT (session_id, name) DO UPDATE SET head_id = excluded.head_id"
)
TOUCH_SESSION = "UPDATE sessions SET updated_at = :now WHERE id = :session_id"
# sessions.size_bytes grows by each inserted message's JSON, by the trigger in _schema.SIZE_TRIGGER

# checkpoints, branches and labels

CHECKPOINT_ROWS = (  # id, parent_id, seq, message_json, created_at
    "SELECT id, parent_id, seq, message_json, created_at FROM checkpoints WHERE session_id = :session_id"
)
CHECKPOINT_ROWS_IN_ORDER = f"{CHECKPOINT_ROWS} ORDER BY seq"
SESSION_SPENT = (  # by model, what every stored call used (domain.spend.session_spent): the
    # answers, not the copies a compaction stored at its summary's time, and the summaries' own
    "WITH summary AS MATERIALIZED (SELECT id, seq, created_at FROM checkpoints"
    " WHERE session_id = :session_id AND role = 'user' AND parent_id IS NULL"
    " AND substr(json_extract(message_json, '$.parts[0].text'), 1, length(:marker)) = :marker),"
    " answers AS MATERIALIZED (SELECT json_extract(c.message_json, '$.model') AS model,"
    " json_extract(c.message_json, '$.usage') AS usage FROM checkpoints AS c"
    " WHERE c.session_id = :session_id AND ((c.role = 'assistant' AND NOT EXISTS (SELECT 1 FROM"
    " summary AS s WHERE s.created_at = c.created_at AND s.seq < c.seq))"
    " OR c.id IN (SELECT id FROM summary)))"
    " SELECT model, sum(json_extract(usage, '$.input')), sum(json_extract(usage, '$.output')),"
    " sum(json_extract(usage, '$.cache_read')), sum(json_extract(usage, '$.cache_write'))"
    " FROM answers WHERE usage IS NOT NULL GROUP BY model ORDER BY model IS NOT NULL, model"
)
CHECKPOINT_COUNT = "SELECT count(*) FROM checkpoints WHERE session_id = :session_id"

_PATH = (  # the branch's path from :head_id back to the root, by key: no message is read
    "WITH RECURSIVE path(id, parent_id, depth) AS ("
    " SELECT id, parent_id, 0 FROM checkpoints WHERE id = :head_id AND session_id = :session_id"
    " UNION ALL SELECT c.id, c.parent_id, p.depth + 1 FROM checkpoints AS c JOIN path AS p"
    " ON c.id = p.parent_id WHERE p.depth < :bound AND c.session_id = :session_id"
)
PATH_SUMMARY = (  # in one walk: the path's length, the parent its oldest row names (None at the
    # root) and its depth; with, by model, the usage of the answers before its last :count rows
    f"{_PATH}), walked AS MATERIALIZED (SELECT id, parent_id, depth FROM path),"
    " answers AS MATERIALIZED (SELECT json_extract(c.message_json, '$.model') AS model,"
    " json_extract(c.message_json, '$.usage') AS usage FROM walked JOIN checkpoints AS c"
    " ON c.id = walked.id WHERE walked.depth >= :count AND c.role = 'assistant'),"
    " spent AS (SELECT 1 AS found, model, sum(json_extract(usage, '$.input')) AS i,"
    " sum(json_extract(usage, '$.output')) AS o, sum(json_extract(usage, '$.cache_read')) AS r,"
    " sum(json_extract(usage, '$.cache_write')) AS w FROM answers WHERE usage IS NOT NULL GROUP BY model)"
    " SELECT summary.length, summary.oldest_parent, summary.depth,"
    " spent.found, spent.model, spent.i, spent.o, spent.r, spent.w"
    " FROM (SELECT count(*) AS length, max(depth) AS depth,"
    " (SELECT parent_id FROM walked ORDER BY depth DESC LIMIT 1) AS oldest_parent FROM walked) AS summary"
    " LEFT JOIN spent ON 1 ORDER BY spent.model"
)
PATH_TAIL = (  # the path's last :count rows, oldest first, as CHECKPOINT_ROWS reads them
    f"{_PATH} LIMIT :count)"
    " SELECT c.id, c.parent_id, c.seq, c.message_json, c.created_at"
    " FROM path JOIN checkpoints AS c ON c.id = path.id ORDER BY path.depth DESC"
)
CHECKPOINT_EXISTS = "SELECT 1 FROM checkpoints WHERE id = :checkpoint_id"
CHECKPOINT_IN_SESSION = "SELECT 1 FROM checkpoints WHERE id = :checkpoint_id AND session_id = :session_id"

BRANCH_HEAD = "SELECT head_id FROM branches WHERE session_id = :session_id AND name = :name"
BRANCHES = "SELECT name, head_id FROM branches WHERE session_id = :session_id ORDER BY name"
INSERT_BRANCH = "INSERT INTO branches (session_id, name, head_id) VALUES (:session_id, :name, :head_id)"

ADD_LABEL = "INSERT INTO labels (checkpoint_id, text) VALUES (:checkpoint_id, :text) ON CONFLICT DO NOTHING"
LABELS = (
    "SELECT l.checkpoint_id, l.text FROM labels AS l JOIN checkpoints AS c ON c.id = l.checkpoint_id"
    " WHERE c.session_id = :session_id ORDER BY c.seq, l.text"
)

# leases (session_lock): the row is kept on release (expires_at 0), so a token only ever grows

LEASE = "SELECT owner, pid, host, token, acquired_at, expires_at FROM leases WHERE session_id = :session_id"
TAKE_LEASE = (
    "INSERT INTO leases (session_id, owner, pid, host, token, acquired_at, expires_at)"
    " VALUES (:session_id, :owner, :pid, :host, :token, :now, :expires_at)"
    " ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, pid = excluded.pid,"
    " host = excluded.host, token = excluded.token, acquired_at = excluded.acquired_at,"
    " expires_at = excluded.expires_at"
)
RENEW_LEASE = (
    "UPDATE leases SET expires_at = :expires_at"
    " WHERE session_id = :session_id AND owner = :owner AND token = :token"
)

# deleting a session: the one deletion, children before parents

DELETE_SESSION_LABELS = (
    "DELETE FROM labels WHERE checkpoint_id IN (SELECT id FROM checkpoints WHERE session_id = :session_id)"
)
DELETE_SESSION_BRANCHES = "DELETE FROM branches WHERE session_id = :session_id"
DELETE_SESSION_CHECKPOINTS = "DELETE FROM checkpoints WHERE session_id = :session_id"
DELETE_SESSION_LEASE = "DELETE FROM leases WHERE session_id = :session_id"
DELETE_SESSION = "DELETE FROM sessions WHERE id = :session_id"
DELETIONS = (
    "DELETE_SESSION_LABELS",
    "DELETE_SESSION_BRANCHES",
    "DELETE_SESSION_CHECKPOINTS",
    "DELETE_SESSION_LEASE",
    "DELETE_SESSION",
)
"""The statements that delete, in the order deleting a session runs them."""

# trusted folders

TRUST = "INSERT INTO trusted_folders (path, trusted_at) VALUES (:path, :now) ON CONFLICT DO NOTHING"
IS_TRUSTED = "SELECT 1 FROM trusted_folders WHERE path = :path"

STATEMENTS = {
    name: value
    for name, value in sorted(globals().items())
    if name.isupper() and not name.startswith("_") and isinstance(value, str)
}
"""Every statement above by name, for the tests that check them against the schema."""

__all__ = [
    "ADD_LABEL",
    "APPEND_STATE",
    "BRANCHES",
    "BRANCH_HEAD",
    "CHECKPOINT_COUNT",
    "CHECKPOINT_EXISTS",
    "CHECKPOINT_IN_SESSION",
    "CHECKPOINT_ROWS",
    "CHECKPOINT_ROWS_IN_ORDER",
    "DELETE_SESSION",
    "DELETE_SESSION_BRANCHES",
    "DELETE_SESSION_CHECKPOINTS",
    "DELETE_SESSION_LABELS",
    "DELETE_SESSION_LEASE",
    "DELETIONS",
    "GET_SESSION",
    "INDEXES",
    "INSERT_BRANCH",
    "INSERT_CHECKPOINT",
    "INSERT_SESSION",
    "IS_TRUSTED",
    "LABELS",
    "LEASE",
    "LIST_SESSIONS",
    "LIST_WORKSPACE_SESSIONS",
    "MOVE_HEAD",
    "PATH_SUMMARY",
    "PATH_TAIL",
    "RENEW_LEASE",
    "SESSION_EXISTS",
    "SESSION_WORKSPACE",
    "SET_NAME",
    "SET_TITLE",
    "STATEMENTS",
    "TABLES",
    "TAKE_LEASE",
    "TOUCH_SESSION",
    "TRUST",
    "Table",
]
