"""The image files a level names: in its folder, regular, and small enough to decode.

Each texture is checked through ``weft.named_files`` (confined to the level's
folder with symlinks resolved, a regular file, at most ``TEXTURE_FILE_BYTES``)
and its size read from the header, never decoded here: a 32 KB PNG can claim
20000 × 20000 pixels. All the textures together stay within ``TEXTURE_PIXELS``.
"""

from __future__ import annotations

from pathlib import Path

from weft.budgets import TEXTURE_PIXELS
from weft.game.level.problems import KeyPath, Problem, find_line, origin_of
from weft.game.level.schema import Level
from weft.named_files import FileRefused, confined, image_size

WHAT = "an image file (PNG or JPEG)"


def texture_paths(model: Level) -> list[tuple[KeyPath, str]]:
    """Every texture the level names, with the key that names it."""
    named: list[tuple[KeyPath, str | None]] = [
        (("cloth", k, "texture"), cloth.texture) for k, cloth in enumerate(model.cloth)
    ]
    named += [
        (("skeleton", k, "skin", "texture"), body.skin.texture) for k, body in enumerate(model.skeleton)
    ]
    return [(path, name) for path, name in named if name is not None]


def texture_problems(
    model: Level,
    directory: Path,
    label: str,
    text: str | None = None,
    overridden: dict[KeyPath, str] | None = None,
) -> list[Problem]:
    """A problem for each texture that cannot be used, and one if together they are too many pixels."""
    problems = []
    pixels = 0
    for path, name in texture_paths(model):
        try:
            width, height = image_size(confined(directory, name, WHAT), WHAT, name)
        except FileRefused as error:
            problems.append(_problem(label, path, str(error), text, overridden))
            continue
        pixels += width * height
        if pixels > TEXTURE_PIXELS:
            message = (
                f"expected at most {TEXTURE_PIXELS} texture pixels in the whole level, got {pixels} "
                f"by this texture ({name!r}, {width} × {height})"
            )
            problems.append(_problem(label, path, message, text, overridden))
    return problems


def _problem(
    label: str, path: KeyPath, message: str, text: str | None, overridden: dict[KeyPath, str] | None
) -> Problem:
    note = origin_of(path, overridden)
    line = None if note or text is None else find_line(text, path)
    return Problem(label, path, message, line, note)
