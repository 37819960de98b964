from pathlib import PurePosixPath

from hypothesis import given, settings
from hypothesis import strategies as st

from circle.domain.workspace import is_inside, join_in_workspace, relative_display


def test_inside_is_judged_on_whole_path_parts() -> None:
    assert is_inside("/w", "/w") and is_inside("/w", "/w/a/b")
    assert not is_inside("/w", "/wx/a") and not is_inside("/w", "/")


def test_join_and_display() -> None:
    assert join_in_workspace("/w", "a/b") == "/w/a/b"
    assert join_in_workspace("/w", "/etc/passwd") == "/etc/passwd"
    assert relative_display("/w", "/w/a") == "a"
    assert relative_display("/w", "/w") == "."
    assert relative_display("/w", "/x") == "/x"


_PATHS = st.lists(st.sampled_from(["/", "/", "a", "b", ".", "..", "ab", " ", "~"]), max_size=7).map("".join)


@settings(max_examples=3000)
@given(root=_PATHS, path=_PATHS, below=st.booleans())
def test_the_string_forms_agree_with_pure_posix_paths(root: str, path: str, below: bool) -> None:
    """The functions work on plain absolute strings as they are (faster), and give what
    PurePosixPath gives for every path: empty, relative, with ``//``, ``.``, ``..`` or a ``/`` at the end."""
    path = root + path if below else path
    joined = PurePosixPath(path) if PurePosixPath(path).is_absolute() else PurePosixPath(root) / path
    assert join_in_workspace(root, path) == str(joined)
    inside = PurePosixPath(path) == PurePosixPath(root) or PurePosixPath(root) in PurePosixPath(path).parents
    assert is_inside(root, path) == inside
    if inside:
        assert relative_display(root, path) == (str(PurePosixPath(path).relative_to(root)) or ".")
    else:
        assert relative_display(root, path) == path
