"""The order and guides a checkpoint tree is drawn with."""

from __future__ import annotations

from circle.domain.checkpoint_tree import tree_order
from circle.domain.checkpoints import Checkpoint
from circle.domain.messages import Message


def cp(id_: str, parent: str | None, seq: int) -> Checkpoint:
    return Checkpoint(
        id=id_, session_id="s", parent_id=parent, seq=seq, message=Message.user(id_), created_at=0
    )


def test_a_chain_stays_flat_and_branches_get_guides_in_the_order_written() -> None:
    tree = [cp("a", None, 1), cp("b", "a", 2), cp("c", "b", 3), cp("d", "b", 5), cp("e", "c", 4)]
    tree += [cp("f", "d", 6), cp("g", "f", 7), cp("h", "f", 8)]

    drawn = [guides + checkpoint.id for checkpoint, guides in tree_order(reversed(tree))]

    assert drawn == ["a", "b", "├─ c", "│  e", "└─ d", "   f", "   ├─ g", "   └─ h"]


def test_a_long_chain_is_drawn_without_recursion() -> None:
    chain = [cp("0", None, 0), *(cp(str(i), str(i - 1), i) for i in range(1, 5000))]
    assert [c.id for c, _ in tree_order(chain)][-1] == "4999"
