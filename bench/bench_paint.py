"""The interface's first paint, interleaved against other trees of Circle and a bare Textual app.

Not a test: run it by hand, `.venv/bin/python bench/bench_paint.py [--runs 9] [--against DIR …]`.
Each round spawns, in a shuffled order, this tree's ``circle``, the same command with
``PYTHONPATH=DIR/src`` for each ``--against`` tree (a ``git worktree`` of an older commit, say), and
the bare Textual app of bench_tui.py, each in a 140x45 pseudo-terminal (bench/_pty_screen.py) until
"Starting Circle…" (or the bare app's line) is on the screen; ``--ready`` also times each Circle
until the footer names the model. ``--terminal`` says whether the theme is set (CIRCLE_THEME, the
default) or asked of a terminal that answers at once or never does (tmux 3.3). One round is left
out as a warm-up. Prints the medians, each Circle's ratio to the bare app and to the first
``--against`` tree, and the load before and after.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from _pty_screen import PtyScreen
from bench_tui import BARE_APP, CIRCLE, PY, READY

from circle._testing.gateway import ScriptedGateway, chat_text

HERE = Path(__file__).resolve().parent


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--against", type=Path, action="append", default=[], help="another tree's root")
    parser.add_argument("--ready", action="store_true", help="also time until the footer names the model")
    parser.add_argument(
        "--terminal",
        choices=["themed", "answers", "silent"],
        default="themed",
        help="themed: CIRCLE_THEME=dark, nothing asked; answers: the terminal answers the background "
        "question at once; silent: it never answers (tmux 3.3)",
    )
    args = parser.parse_args()
    trees = {"this tree": HERE.parent, **{str(tree): tree.resolve() for tree in args.against}}
    for root in trees.values():  # bytecode for each tree, as an installed Circle has
        subprocess.run([PY, "-m", "compileall", "-q", str(root / "src" / "circle")], check=True)
    gateway = ScriptedGateway(fallback=lambda _request: chat_text("ok"), record=False)
    url = gateway.start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            times = _rounds(args, trees, url=url, tmp=Path(tmp))
    finally:
        gateway.stop()
    _report(times, trees)


def _rounds(
    args: argparse.Namespace, trees: dict[str, Path], *, url: str, tmp: Path
) -> dict[str, list[float]]:
    home, work = tmp / "home", tmp / "work"
    work.mkdir()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("CIRCLE_", "OPENAI_", "ANTHROPIC_"))},
        "CIRCLE_HOME": str(home),
        "CIRCLE_BASE_URL": url,
        "CIRCLE_API_KEY": "k",
        "CIRCLE_MODEL": READY,
        "CIRCLE_CATALOG_REFRESH": "0",
        "TERM": "xterm-256color",
    }
    env.pop("PYTHONPATH", None)
    env.pop("COLORFGBG", None)
    if args.terminal == "themed":
        env["CIRCLE_THEME"] = "dark"
    answers = args.terminal != "silent"
    subprocess.run([CIRCLE, "trust", str(work)], env=env, check=True, capture_output=True)
    bare = tmp / "bare.py"
    bare.write_text(BARE_APP)
    measures = {"bare Textual app": _measure([PY, str(bare)], env, work, marker="ready", answers=answers)}
    for name, root in trees.items():
        tree_env = {**env, "PYTHONPATH": str(root / "src")}  # this one's too, when run from a worktree
        measures[name] = _measure([CIRCLE], tree_env, work, marker="Starting", answers=answers)
        if args.ready:
            measures[f"{name}: ready"] = _measure([CIRCLE], tree_env, work, marker=READY, answers=answers)
    times: dict[str, list[float]] = {name: [] for name in measures}
    times["load"] = [os.getloadavg()[0]]
    for index in range(args.runs + 1):
        order = list(measures)
        random.shuffle(order)
        for name in order:
            took = measures[name]()
            if index:
                times[name].append(took)
    times["load"].append(os.getloadavg()[0])
    return times


def _measure(
    argv: list[str], env: dict[str, str], work: Path, *, marker: str, answers: bool
) -> Callable[[], float]:
    """Seconds from the spawn until ``marker`` is on the screen, each time it is called."""

    def measure() -> float:
        term = PtyScreen(argv, env=env, cwd=work, background=answers)
        try:
            return term.until(lambda text: marker in text, what=marker) - term.start
        finally:
            term.close()

    return measure


def _report(times: dict[str, list[float]], trees: dict[str, Path]) -> None:
    load = times.pop("load")
    bare = statistics.median(times["bare Textual app"])
    against = [name for name in trees if name != "this tree"]
    base = statistics.median(times[against[0]]) if against else 0.0
    print(f"{'first paint':<40} {'median':>8} {'/ bare':>7} {'/ base':>7}  runs")
    for name, runs in times.items():
        value = statistics.median(runs)
        versus = f"{value / base:7.2f}" if base and not name.endswith("ready") else "      -"
        spread = ", ".join(f"{t:.3f}" for t in runs)
        print(f"{name:<40} {value:8.3f} {value / bare:7.2f} {versus}  ({spread})")
    print(f"load average (1 min) before {load[0]:.2f}, after {load[1]:.2f}; now {_load()}")


if __name__ == "__main__":
    main()
