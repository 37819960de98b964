import pytest

from circle.application.tools import builtin_tools
from circle.domain.display import escape_for_display
from circle.domain.errors import ApprovalDeniedError
from circle.testing import ScriptedApprover

from ._harness import Harness


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("rm -rf x", "rm -rf x"),
        ("echo hi\x1b[2J", "echo hi\\x1b[2J"),
        ("ls \u202eexe.txt", "ls \\u202eexe.txt"),
        ("a\u200bb", "a\\u200bb"),
        ("x\u2066y\u2069", "x\\u2066y\\u2069"),
        ("line1\nline2\tx", "line1\nline2\tx"),
        ("caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"),
        ("bell\x07\x00", "bell\\x07\\x00"),
        ("\ufeffbom", "\\ufeffbom"),
    ],
)
def test_what_would_hide_is_escaped(raw: str, shown: str) -> None:
    assert escape_for_display(raw) == shown


async def test_the_approval_summary_never_carries_raw_bidi_or_controls() -> None:
    approver = ScriptedApprover(allow=())
    h = Harness(approver=approver)
    with pytest.raises(ApprovalDeniedError):
        await builtin_tools()["execute"].invoke({"command": "touch \u202egnp.exe\x1b[0m"}, h.context())
    summary = approver.requests[0].summary
    assert "\u202e" not in summary and "\x1b" not in summary and "\\u202e" in summary
