"""Where Weft keeps files of its own on the user's machine.

An installed copy of Weft is never written to: numba's compiled kernels and the picker's
thumbnails go to the user's cache folder, and screenshots of a level that lies inside the
installed package go to the user's pictures folder. A source checkout (the package folder holds
``pyproject.toml``) is the developer's own: ``weft schema`` rewrites the files there, and
screenshots land next to its levels as next to any of the user's.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
"""The folder of the ``weft`` package: a source checkout's root, or ``site-packages/weft``."""


def source_checkout() -> bool:
    """Whether Weft runs from a source checkout (editable install), not from an installed copy."""
    return (PACKAGE_DIR / "pyproject.toml").is_file()


def in_installed_package(path: Path) -> bool:
    """Whether ``path`` lies inside an installed (so read-only) copy of the package."""
    return not source_checkout() and path.resolve().is_relative_to(PACKAGE_DIR)


def user_cache(*parts: str) -> Path:
    """A folder under the user's cache: ``$XDG_CACHE_HOME/weft/...`` (``~/.cache/weft/...``),
    ``~/Library/Caches/weft/...`` on macOS, ``%LOCALAPPDATA%\\weft\\...`` on Windows (not created)."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        base = Path(os.environ["LOCALAPPDATA"])
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base.joinpath("weft", *parts)


def user_pictures() -> Path:
    """Where screenshots of the shipped levels go: ``~/Pictures/weft`` when the user has a
    ``Pictures`` folder (``$XDG_PICTURES_DIR`` if set), else ``user_cache("screenshots")``."""
    pictures = Path(os.environ.get("XDG_PICTURES_DIR") or Path.home() / "Pictures")
    return pictures / "weft" if pictures.is_dir() else user_cache("screenshots")
