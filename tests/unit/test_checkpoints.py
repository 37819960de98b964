import pytest

from circle.domain.checkpoints import Branch, Checkpoint, Label, check_tree, path_to
from circle.domain.messages import Message


def _cp(cid: str, parent: str | None, seq: int, session: str = "s") -> Checkpoint:
    return Checkpoint(
        id=cid, session_id=session, parent_id=parent, seq=seq, message=Message.user(cid), created_at=0.0
    )


def test_path_follows_parents_from_the_root() -> None:
    cps = {c.id: c for c in [_cp("a", None, 1), _cp("b", "a", 2), _cp("c", "b", 3), _cp("x", "a", 4)]}
    assert [c.id for c in path_to(cps, "c")] == ["a", "b", "c"]
    assert [c.id for c in path_to(cps, "x")] == ["a", "x"]
    assert path_to(cps, None) == []


def test_path_refuses_missing_parents_and_cycles() -> None:
    with pytest.raises(ValueError, match="missing"):
        path_to({"b": _cp("b", "a", 2)}, "b")
    with pytest.raises(ValueError, match="cycle"):
        path_to({"a": _cp("a", "b", 1), "b": _cp("b", "a", 2)}, "a")


def test_a_sound_tree_has_no_problems() -> None:
    cps = [_cp("a", None, 1), _cp("b", "a", 2), _cp("c", "a", 3)]
    branches = [Branch("s", "main", "b"), Branch("s", "other", "c")]
    assert check_tree(cps, branches, [Label("b", "here")]) == []


def test_check_tree_names_every_problem() -> None:
    cps = [_cp("a", None, 5), _cp("b", "a", 2), _cp("c", "zz", 3), _cp("d", None, 1, session="other")]
    problems = check_tree(cps, [Branch("s", "main", "nope")], [Label("gone", "x")])
    text = "\n".join(problems)
    assert "b is not newer than its parent a" in text
    assert "c has a missing parent zz" in text
    assert "several sessions" in text
    assert "branch 'main' points at a missing checkpoint nope" in text
    assert "label 'x' names a missing checkpoint gone" in text
