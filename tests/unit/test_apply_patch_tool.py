"""The apply_patch tool over the in-memory file system: checked whole, approved once, all or nothing."""

from __future__ import annotations

import pytest

from circle._testing.events import ScriptedApprover
from circle._testing.journal import InMemoryFileJournal
from circle.application.approvals import ApprovalPolicy
from circle.application.rewind import Rewind
from circle.application.tools import builtin_tools
from circle.application.tools.base import ToolOutput
from circle.application.turn_journal import TurnJournal
from circle.domain.approval_rules import Rule
from circle.domain.errors import ApprovalDeniedError, ToolError

from ._harness import WORKSPACE, Harness

W = WORKSPACE


def patch(*lines: str) -> str:
    return "\n".join(["*** Begin Patch", *lines, "*** End Patch"]) + "\n"


async def apply(h: Harness, text: str, *, journal: TurnJournal | None = None) -> ToolOutput:
    ctx = h.context()
    ctx.journal = journal
    return await builtin_tools()["apply_patch"].invoke({"patch": text}, ctx)


def harness() -> Harness:
    h = Harness()
    h.files.put(f"{W}/a.txt", "one\ntwo\n")
    h.files.put(f"{W}/b.txt", "bee\n")
    return h


MANY = patch(
    "*** Add File: new/made.txt",
    "+made",
    "*** Update File: a.txt",
    "@@",
    "-two",
    "+TWO",
    "*** Delete File: b.txt",
)


async def test_a_patch_of_several_files_lists_what_changed() -> None:
    h = harness()
    out = await apply(h, MANY)
    assert out.text.splitlines() == ["Applied the patch (3 files):", "A new/made.txt", "M a.txt", "D b.txt"]
    assert h.files.files[f"{W}/new/made.txt"] == b"made\n"
    assert h.files.files[f"{W}/a.txt"] == b"one\nTWO\n"
    assert f"{W}/b.txt" not in h.files.files


async def test_a_move_is_reported_as_a_rename() -> None:
    h = harness()
    out = await apply(h, patch("*** Update File: a.txt", "*** Move to: lib/a.txt", "@@", " one", "-two"))
    assert out.text.splitlines()[1] == "R a.txt -> lib/a.txt"
    assert f"{W}/a.txt" not in h.files.files
    assert h.files.files[f"{W}/lib/a.txt"] == b"one\n"


async def test_operations_on_the_same_file_build_on_each_other() -> None:
    h = harness()
    text = patch("*** Add File: c.txt", "+first", "*** Update File: c.txt", "@@", "+second")
    await apply(h, text)
    assert h.files.files[f"{W}/c.txt"] == b"first\nsecond\n"
    assert h.files.writes == [f"{W}/c.txt"]


async def test_one_approval_lists_every_file_and_a_refusal_writes_nothing() -> None:
    h = harness()
    approver = ScriptedApprover()
    h.approver = approver
    with pytest.raises(ApprovalDeniedError):
        await apply(h, MANY)
    (request,) = approver.requests
    assert (request.tool_name, request.kind) == ("apply_patch", "edit")
    assert request.summary == "patch A new/made.txt, M a.txt, D b.txt"
    assert request.subject == "" and not request.always_ask
    assert set(request.subjects) == {"new/made.txt", "a.txt", "b.txt"}
    assert h.files.writes == [] and h.files.deleted == []


def _policy(*rules: Rule, person: ScriptedApprover | None = None) -> ApprovalPolicy:
    person = person or ScriptedApprover(allow=["apply_patch"])
    return ApprovalPolicy("default", {"user": list(rules)}, person=person)


async def test_a_deny_rule_for_one_path_denies_a_patch_of_several_files() -> None:
    h = harness()
    h.approver = _policy(Rule("apply_patch", "src/*", "allow"), Rule("apply_patch", "b.txt", "deny"))
    with pytest.raises(ApprovalDeniedError, match=r"b\.txt"):
        await apply(h, MANY)
    assert h.files.writes == [] and h.files.deleted == []


async def test_an_allow_rule_lets_a_patch_through_only_when_it_covers_every_path() -> None:
    two_in_src = patch("*** Add File: src/x.py", "+x", "*** Add File: src/y.py", "+y")
    h = harness()
    person = ScriptedApprover(allow=["apply_patch"])
    h.approver = _policy(Rule("apply_patch", "src/*", "allow"), person=person)
    await apply(h, two_in_src)
    assert person.requests == []
    await apply(h, patch("*** Add File: src/z.py", "+z", "*** Add File: docs/z.md", "+z"))
    assert [r.subjects for r in person.requests] == [("src/z.py", "docs/z.md")]


async def test_a_one_file_patch_is_approved_on_its_path_and_protected_places_always_ask() -> None:
    h = harness()
    approver = ScriptedApprover(allow=["apply_patch"])
    h.approver = approver
    await apply(h, patch("*** Add File: .circle/notes.md", "+x"))
    assert approver.requests[0].subject == ".circle/notes.md"
    assert approver.requests[0].always_ask


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (patch("*** Update File: a.txt", "@@", "-nope", "+x"), "a.txt: the hunk at patch line 10"),
        (patch("*** Delete File: missing"), "cannot delete missing: no such file"),
        (patch("*** Add File: ../escape.txt", "+x"), "outside the workspace"),
        (patch("*** Add File: /tmp/escape.txt", "+x"), "outside the workspace"),
        (patch("*** Add File: .env", "+SECRET=1"), "credential file"),
        (patch("*** Update File: a.txt", "*** Move to: .env", "@@", "-one"), "credential file"),
        (patch("*** Update File: bin", "@@", "-x"), "not UTF-8"),
        (patch("*** Add File: sub", "+x"), "sub is a folder"),
        ("*** Frobnicate File: a.txt\n*** End Patch\n", "line 9: expected '\\*\\*\\* Add File"),
    ],
)
async def test_a_patch_that_does_not_apply_changes_nothing(text: str, message: str) -> None:
    h = harness()
    h.files.put(f"{W}/bin", b"\xff\xfe\x00")
    h.files.put(f"{W}/sub/x", "x")
    approver = ScriptedApprover(allow=["apply_patch"])
    h.approver = approver
    with pytest.raises(ToolError, match=message) as caught:
        # After MANY's operations, so that a later failure is seen to undo nothing written before it.
        await apply(h, MANY.replace("*** End Patch\n", "") + text.removeprefix("*** Begin Patch\n"))
    assert caught.value.message.endswith("Nothing was applied.")
    assert approver.requests == []
    assert h.files.writes == [] and h.files.deleted == []


async def test_a_failed_write_puts_back_the_files_already_written() -> None:
    h = harness()
    h.files.put(f"{W}/blocker", "a file, not a folder\n")
    with pytest.raises(ToolError, match=r"writing blocker/x\.txt failed.*nothing was applied"):
        await apply(h, MANY.replace("*** End Patch", "*** Add File: blocker/x.txt\n+x\n*** End Patch"))
    assert h.files.files[f"{W}/a.txt"] == b"one\ntwo\n"
    assert h.files.files[f"{W}/b.txt"] == b"bee\n"
    assert f"{W}/new/made.txt" not in h.files.files


async def test_every_change_is_journaled_and_can_be_rewound() -> None:
    h = harness()
    journal = InMemoryFileJournal()
    recorder = TurnJournal(journal, session_id="s", workspace=W)
    await apply(h, MANY, journal=recorder)
    receipts = [(r.path, r.before is None, r.after is None) for _, _, r in journal.recorded]
    assert receipts == [
        (f"{W}/new/made.txt", True, False),
        (f"{W}/a.txt", False, False),
        (f"{W}/b.txt", False, True),
    ]
    outcome = await Rewind(journal, h.files).restore("s")
    assert outcome.restored
    assert h.files.files[f"{W}/a.txt"] == b"one\ntwo\n" and h.files.files[f"{W}/b.txt"] == b"bee\n"
    assert f"{W}/new/made.txt" not in h.files.files
