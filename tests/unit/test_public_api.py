import subprocess
import sys

import pytest

import circle


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert circle.__all__ == sorted(circle.__all__)
    for name in circle.__all__:
        assert getattr(circle, name) is not None
    assert not [n for n in circle.__all__ if n.startswith("_") and n != "__version__"]


def test_unknown_names_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="NoSuchThing"):
        _ = circle.NoSuchThing  # type: ignore[attr-defined]


def test_importing_circle_loads_no_sdk() -> None:
    code = (
        "import sys, circle; circle.Agent; "
        "print(sorted(m for m in ('openai','anthropic','sqlmodel','textual','typer') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
