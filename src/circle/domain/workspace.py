"""Where a path may point: inside the workspace, judged on resolved paths."""

from __future__ import annotations

from pathlib import PurePosixPath


def _plain(path: str) -> bool:
    """Whether ``path`` is absolute and already written as ``PurePosixPath`` writes it (no empty or
    ``.`` part, no ``/`` at the end, no leading ``//``): then the functions here can work on the
    string as it is, and give what they give through ``PurePosixPath`` (several times faster)."""
    return (
        path.startswith("/")
        and "//" not in path
        and "/./" not in path
        and (path == "/" or not path.endswith(("/", "/.")))
    )


def join_in_workspace(root: str, path: str) -> str:
    """``path`` made absolute against ``root`` (not resolved: symlinks are the file system's)."""
    if _plain(path):
        return path
    if path and _plain(root) and _plain(f"/{path}"):
        return f"{root}/{path}" if root != "/" else f"/{path}"
    candidate = PurePosixPath(path)
    if not candidate.is_absolute():
        candidate = PurePosixPath(root) / candidate
    return str(candidate)


def is_inside(root: str, resolved: str) -> bool:
    """True when the resolved path is the root or below it."""
    if _plain(root) and _plain(resolved):
        return resolved == root or resolved.startswith(f"{root}/" if root != "/" else "/")
    root_path = PurePosixPath(root)
    target = PurePosixPath(resolved)
    return target == root_path or root_path in target.parents


def relative_display(root: str, resolved: str) -> str:
    """The path as a person reads it: relative to the workspace when inside it."""
    if is_inside(root, resolved):
        if _plain(root) and _plain(resolved):
            return resolved[len(root) + (root != "/") :] or "."
        rel = str(PurePosixPath(resolved).relative_to(root))
        return rel or "."
    return resolved


_PROTECTED_FILES = ("config", ".gitmodules")
_PROTECTED_FOLDERS = ("hooks", "info")


def is_protected_path(relative: str) -> bool:
    """True for the places whose change always asks: .git/hooks, .git/info (attributes that name
    filters), .git/config, .git itself, .gitmodules and .circle/, at any depth (a nested
    repository's count too), case-insensitively.

    Examples:
        >>> is_protected_path("sub/.git/hooks/pre-commit"), is_protected_path("src/app.py")
        (True, False)
    """
    parts = [p for p in str(PurePosixPath(relative)).lower().split("/") if p not in ("", ".")]
    for index, part in enumerate(parts):
        following = parts[index + 1] if index + 1 < len(parts) else None
        if part == ".circle" or (part == ".gitmodules" and following is None):
            return True
        if part == ".git" and (following is None or following in (*_PROTECTED_FILES, *_PROTECTED_FOLDERS)):
            return True
    return False


def always_ask_place(resolved: str, *, workspace: str, data_dir: str | None, home: str | None) -> str:
    """The always-ask place a resolved absolute path lies in, for a person to read; empty for none.

    The places: Circle's data folder (settings, approvals, hooks, secrets, credentials, sessions),
    the person's ``~/.circle`` (extensions, skills, agents), and in the workspace (at any depth)
    ``.git/hooks``, ``.git/info``, ``.git/config``, ``.git``, ``.gitmodules`` and ``.circle/``.
    """
    if data_dir and is_inside(data_dir, resolved):
        return f"Circle's data folder ({data_dir})"
    if home and is_inside(f"{home.rstrip('/')}/.circle", resolved):
        return "~/.circle"
    if is_inside(workspace, resolved):
        relative = relative_display(workspace, resolved)
        if is_protected_path(relative):
            return relative
    return ""


DATA_ROOTS = ("/conversation_history", "/large_tool_results", "/background_jobs", "/session_plans")


def data_path(path: str, *, data_dir: str, project: str) -> str | None:
    """Where a virtual data path such as ``/large_tool_results/x.txt`` lives in the data folder.

    ``/conversation_history/`` is the project's own folder (``projects/<project>/``); the others
    are shared. None for any other path.
    """
    clean = str(PurePosixPath("/") / PurePosixPath(path))
    for root in DATA_ROOTS:
        if clean == root or clean.startswith(f"{root}/"):
            rest = clean[len(root) :].lstrip("/")
            if ".." in PurePosixPath(rest).parts:
                return None
            base = PurePosixPath(data_dir)
            if root == "/conversation_history":
                base = base / "projects" / project
            folder = base / root.lstrip("/")
            return str(folder / rest) if rest else str(folder)
    return None


__all__ = [
    "DATA_ROOTS",
    "always_ask_place",
    "data_path",
    "is_inside",
    "is_protected_path",
    "join_in_workspace",
    "relative_display",
]
