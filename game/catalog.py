"""The level catalog: which level files there are, in which order, what they are called.

The picker lists these entries and the window's next/previous keys step
through them in the same order (file names, alphabetically), so the two
always agree. No arcade here: tests and the thumbnail cache use it headless.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from weft.game.level import LevelError, load_level
from weft.game.level.load import read_toml
from weft.levels import LEVELS_DIR

LEVEL_SUFFIXES = (".toml", ".tmj")
"""Files in a levels folder that are levels: TOML level files and Tiled maps (JSON)."""

NAMED_FILE_KEYS = ("texture",)
"""Keys whose string values name files next to the level (watched, and hashed for thumbnails)."""


@dataclass(frozen=True)
class LevelEntry:
    """One level as the picker shows it: its file, title and one-line description."""

    path: Path
    name: str
    description: str
    problems: list[str] = field(default_factory=list)
    """One line per problem when the level does not load (it is listed, but cannot be played)."""

    @property
    def playable(self) -> bool:
        """Whether the level loads without problems."""
        return not self.problems


def level_paths(directory: Path = LEVELS_DIR) -> list[Path]:
    """Every level file in ``directory`` and its subfolders (``tiled/example.tmj``), sorted by their
    path from there: the picker's order."""
    return sorted(
        (path for path in directory.rglob("*") if path.suffix in LEVEL_SUFFIXES and path.is_file()),
        key=lambda path: path.relative_to(directory).as_posix(),
    )


Signature = tuple[int, int] | None
"""A file's (mtime in ns, size in bytes), or None when it does not exist."""

_read: dict[Path, tuple[tuple[Signature, ...], LevelEntry, bool]] = {}
"""Entries already read, with the (mtime, size) of the files they came from and whether the checks
that run kernels were made (``build``): validating every level takes about half a second here, too
long to repeat each time the picker opens."""


def list_levels(directory: Path = LEVELS_DIR, build: bool = True) -> list[LevelEntry]:
    """An entry for every level file in ``directory``, in picker order, broken ones included.

    ``build`` False leaves out the checks that run numba kernels (``validate``), so a first start
    lists the levels at once instead of compiling kernels first; a level those checks refuse then
    shows its problems once it is opened (``remember_problems``) or listed with ``build`` again."""
    return [_entry(path, build) for path in level_paths(directory)]


def _entry(path: Path, build: bool) -> LevelEntry:
    stamp = _stamp(path)
    known = _read.get(path)
    if known is not None and known[0] == stamp and (known[2] or not build):
        return known[1]
    try:
        level = load_level(path, build=build)
    except LevelError as error:
        entry = _broken(path, error)
    else:
        entry = LevelEntry(path, level.model.level.name, level.model.level.description)
    _read[path] = (stamp, entry, build)
    return entry


def remember_problems(path: Path, error: LevelError) -> None:
    """List the level file at ``path`` with ``error``'s problems (found when it was built) until it
    is saved again."""
    _read[path] = (_stamp(path), _broken(path, error), True)


def _broken(path: Path, error: LevelError) -> LevelEntry:
    return LevelEntry(path, path.stem, "this level has problems", [str(p) for p in error.problems])


def _stamp(path: Path) -> tuple[Signature, ...]:
    return tuple(signature(file) for file in named_files(path))


def signature(path: Path) -> Signature:
    """What changes when ``path`` is saved: its modification time and size (None if missing).

    The size is there because some file systems keep mtimes to the second:
    a quick second save of a different length still counts as a change.
    """
    try:
        stat = path.stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def neighbour(paths: list[Path], current: Path, step: int) -> Path:
    """The level ``step`` places after ``current`` in ``paths``, wrapping round at either end.

    A level that is not in the list (a file from elsewhere) counts as sitting
    just before the first: the next is the first, the previous the last.
    """
    if not paths:
        raise ValueError("there are no levels to step through")
    resolved = [path.resolve() for path in paths]
    try:
        index = resolved.index(current.resolve())
    except ValueError:
        index = -1 if step > 0 else 0
    return paths[(index + step) % len(paths)]


def named_files(source: Path) -> list[Path]:
    """The level file and the files it names (textures), as far as the file can be read now.

    Tolerant of a broken file: a file that cannot be read as a level (not TOML,
    too big, too deep, a FIFO, or a Tiled map) names nothing beyond itself. Files
    are resolved against the level's folder, as the loader resolves them; missing
    ones are listed too.
    """
    files = [source]
    try:
        raw, _ = read_toml(source)  # capped, a regular file, nesting within budget
    except LevelError:
        return files
    for name in _strings_under(raw, NAMED_FILE_KEYS):
        path = source.parent / name
        if path not in files:
            files.append(path)
    return files


def _strings_under(node: Any, keys: tuple[str, ...]) -> list[str]:
    """Every string value stored under one of ``keys`` anywhere in nested tables and lists."""
    found: list[str] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in keys and isinstance(value, str):
                found.append(value)
            else:
                found.extend(_strings_under(value, keys))
    elif isinstance(node, list):
        for item in node:
            found.extend(_strings_under(item, keys))
    return found
