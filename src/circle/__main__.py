"""``python -m circle``: the ``circle`` command, for a Python that has Circle but no script on PATH."""

from circle.entrypoints.cli import main

if __name__ == "__main__":
    main()
