"""Screenshots from the window: PNGs named by level and frame, never overwritten.

They go next to the level file, except for a level inside an installed copy of Weft (the
shipped levels of a ``pip install``), which is never written to: those go to the user's
pictures folder (``weft.folders.user_pictures``).
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image

from weft.folders import in_installed_package, user_pictures


def screenshot_folder(level: Path) -> Path:
    """Where screenshots of ``level`` go: its own folder, or the user's pictures for a shipped level."""
    return user_pictures() if in_installed_package(level) else level.parent


def screenshot_path(level: Path, frame: int, folder: Path | None = None) -> Path:
    """A free file name in ``folder`` (default: ``screenshot_folder``): ``cloth-000240.png``, else
    ``cloth-000240-2.png``, ... A name held by anything, a dangling link included, is not free."""
    folder = screenshot_folder(level) if folder is None else folder
    stem = f"{level.stem}-{frame:06d}"
    path = folder / f"{stem}.png"
    copy = 2
    while os.path.lexists(path):
        path = folder / f"{stem}-{copy}.png"
        copy += 1
    return path


def save_screenshot(image: Image.Image, level: Path, frame: int) -> Path:
    """Write ``image`` under a new name (see ``screenshot_path``); returns the path.

    Opened with ``x`` (exclusive creation): if another process takes the
    name between the check and the write, the next free name is used.
    """
    folder = screenshot_folder(level)
    folder.mkdir(parents=True, exist_ok=True)
    picture = io.BytesIO()
    image.save(picture, format="PNG")
    while True:
        path = screenshot_path(level, frame, folder)
        try:
            with path.open("xb") as file:
                file.write(picture.getvalue())
        except FileExistsError:
            continue
        return path
