"""Where a path may point: inside the workspace, judged on resolved paths."""

from __future__ import annotations

from pathlib import PurePosixPath


def join_in_workspace(root: str, path: str) -> str:
    """``path`` made absolute against ``root`` (not resolved: symlinks are the file system's)."""
    candidate = PurePosixPath(path)
    if not candidate.is_absolute():
        candidate = PurePosixPath(root) / candidate
    return str(candidate)


def is_inside(root: str, resolved: str) -> bool:
    """True when the resolved path is the root or below it."""
    root_path = PurePosixPath(root)
    target = PurePosixPath(resolved)
    return target == root_path or root_path in target.parents


def relative_display(root: str, resolved: str) -> str:
    """The path as a person reads it: relative to the workspace when inside it."""
    if is_inside(root, resolved):
        rel = str(PurePosixPath(resolved).relative_to(root))
        return rel or "."
    return resolved


_PROTECTED_FILES = (".git/config", ".gitmodules")
_PROTECTED_FOLDERS = (".git/hooks", ".circle")


def is_protected_path(relative: str) -> bool:
    """True for the places whose change always asks: .git/hooks, .git/config, .gitmodules, .circle/."""
    path = str(PurePosixPath(relative)).lower()
    if path in _PROTECTED_FILES:
        return True
    return any(path == folder or path.startswith(f"{folder}/") for folder in _PROTECTED_FOLDERS)


__all__ = ["is_inside", "is_protected_path", "join_in_workspace", "relative_display"]
