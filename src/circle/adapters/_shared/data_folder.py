"""Where the data folder is: ``CIRCLE_HOME``, else the platform's user data folder.

Apart from :mod:`.settings_files` (which re-exports it) so that a check made before the
interface's first frame finds the store without loading the settings' types.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def data_dir(env: Mapping[str, str]) -> Path:
    """The data folder: ``CIRCLE_HOME``, else the platform's user data folder."""
    home = env.get("CIRCLE_HOME")
    if home:
        return Path(home).expanduser().resolve()
    import platformdirs

    return Path(platformdirs.user_data_dir("circle", appauthor=False))


__all__ = ["data_dir"]
