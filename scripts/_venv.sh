# Sourced by scripts/circle and scripts/test: makes .venv when it is missing and
# installs the project into it again whenever pyproject.toml changes.
# Usage: ensure_venv [extras]   (extras: "" for Circle alone, "dev" for the test tools)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"

ensure_venv() {
  local extras="${1:-}"
  local python="${PYTHON:-python3}"
  if [ ! -x "$VENV/bin/python" ]; then
    echo "circle: creating $VENV" >&2
    "$python" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip >&2
  fi
  local stamp="$VENV/.circle-installed${extras:+-$extras}"
  local want
  want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    echo "circle: installing the project into $VENV${extras:+ (with $extras tools)}" >&2
    local target="$ROOT"
    [ -n "$extras" ] && target="$ROOT[$extras]"
    "$VENV/bin/python" -m pip install -q -e "$target" >&2
    echo "$want" > "$stamp"
  fi
  # Bytecode for Circle's own modules (pip compiled the others), also where PYTHONDONTWRITEBYTECODE
  # keeps Python from writing it as it imports: start-up then reads .pyc files instead of compiling.
  if [ ! -f "$stamp.pyc" ] || [ -n "$(find "$ROOT/src/circle" -name '*.py' -newer "$stamp.pyc" -print -quit)" ]; then
    "$VENV/bin/python" -m compileall -q "$ROOT/src/circle" >/dev/null 2>&1 || true
    touch "$stamp.pyc"
  fi
}
