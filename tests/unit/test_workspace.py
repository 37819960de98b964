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
