"""Screenshots from the window: PNGs next to the level file, named by level and frame, never overwritten."""

from __future__ import annotations

from pathlib import Path

from PIL import Image


def screenshot_path(level: Path, frame: int) -> Path:
    """A free file name next to ``level``: ``cloth-000240.png``, else ``cloth-000240-2.png``, ..."""
    stem = f"{level.stem}-{frame:06d}"
    path = level.with_name(f"{stem}.png")
    copy = 2
    while path.exists():
        path = level.with_name(f"{stem}-{copy}.png")
        copy += 1
    return path


def save_screenshot(image: Image.Image, level: Path, frame: int) -> Path:
    """Write ``image`` next to ``level`` under a new name (see ``screenshot_path``); returns the path.

    Opened with ``x`` (exclusive creation): if another process takes the
    name between the check and the write, the next free name is used.
    """
    while True:
        path = screenshot_path(level, frame)
        try:
            with path.open("xb") as file:
                image.save(file, format="PNG")
        except FileExistsError:
            continue
        return path
