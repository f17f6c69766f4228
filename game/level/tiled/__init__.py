"""A Tiled map (``.tmj``) as a level: objects by class become cloth, balls and boxes.

The map is read with ``pytiled_parser`` (not through Arcade's tile maps,
whose object lists lose rotation and ids) and turned into the same level
data a TOML file holds, so it is validated the same way; every problem is
then reported against the object it came from::

    example.tmj: object 12 (box "crate"): friction: expected a number <= 2.0, got 3.5

Coordinates: Tiled measures pixels from the map's top-left corner with y
down, and turns objects clockwise about their anchor (a rectangle's or an
ellipse's top-left corner, a point's or polyline's position). The level is y up,
its bounds the map's size, and angles count counter-clockwise, so a point
(x, y) of the map is (x, height - y) in the world and a rotation of r
degrees becomes -r. See docs/tiled.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytiled_parser

from weft.budgets import LEVEL_FILE_BYTES
from weft.game.level.nesting import TOO_DEEP, too_deep
from weft.game.level.problems import LevelError, Problem, file_label
from weft.game.level.tiled.check import map_shape_problems
from weft.game.level.tiled.objects import MapReader
from weft.game.level.tiled.origin import TiledLevel
from weft.named_files import FileRefused, read_text_capped

TILED_SUFFIXES = (".tmj", ".json", ".tmx")
"""Files read as Tiled maps: JSON maps; a ``.tmx`` is refused with a hint to save it as JSON."""


def read_tiled(path: Path) -> TiledLevel:
    """Read a Tiled JSON map as level data; ``LevelError`` if it is not a map this loader can read.

    Problems with single objects do not stop the reading: they are in ``problems``, and the rest
    of the map is converted so that validation can report its own problems too.
    """
    label = file_label(path)
    if path.suffix.lower() == ".tmx":
        raise LevelError(
            [
                Problem(
                    label,
                    (),
                    "expected a map saved as JSON, got a TMX map; in Tiled, File > Save As... and pick "
                    '"JSON map files (*.tmj *.json)"',
                )
            ]
        )
    try:
        text = read_text_capped(path, LEVEL_FILE_BYTES, "a Tiled map file (JSON)", path.name)
    except FileRefused as error:
        raise LevelError([Problem(label, (), str(error))]) from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise LevelError([Problem(label, (), TOO_DEEP)]) from None
    except json.JSONDecodeError as error:
        raise LevelError(
            [
                Problem(
                    label,
                    (),
                    f"line {error.lineno}, column {error.colno}: expected valid JSON, got a syntax error: "
                    f"{error.msg}",
                )
            ]
        ) from None
    deep = too_deep(data)
    if deep is not None:
        raise LevelError([Problem(label, deep[:4], TOO_DEEP)])
    problems = map_shape_problems(data, label, path.parent)
    if problems:
        raise LevelError(problems)
    try:
        tiled_map = pytiled_parser.parse_map(path)
    except Exception as error:  # a third-party parser on user data: whatever it raises is the user's problem
        raise LevelError(
            [
                Problem(
                    label,
                    (),
                    f"expected a map Tiled can open, got one pytiled_parser cannot read "
                    f"({type(error).__name__}: {error})",
                )
            ]
        ) from None
    return MapReader(tiled_map, label, path.stem).read()
