"""Text shown to a person for a decision: nothing may hide in it."""

from __future__ import annotations

import unicodedata

_INVISIBLE = frozenset(
    (
        0x061C,
        0x200B,
        0x200C,
        0x200D,
        0x200E,
        0x200F,
        0x2060,
        0xFEFF,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
)


def escape_for_display(text: str) -> str:
    """Control characters, BiDi overrides and zero-width characters written as escapes, never raw.

    Newlines and tabs stay as they are; everything else that would not show, or would reorder or
    hide what follows, becomes ``\\x1b``, ``\\u202e`` and the like.
    """
    out: list[str] = []
    for char in text:
        code = ord(char)
        if char in "\n\t":
            out.append(char)
        elif code < 0x20 or code == 0x7F or 0x80 <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif code in _INVISIBLE or unicodedata.category(char) in ("Cf", "Co", "Cs"):
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out)


__all__ = ["escape_for_display"]
