"""Reading a level file: TOML, overrides, schema validation and file checks, all problems at once."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from weft.budgets import LEVEL_FILE_BYTES
from weft.game.level.box_check import box_problems
from weft.game.level.clamp import clamp_into_schema
from weft.game.level.frame_work import clamp_into_budgets, frame_work_problems
from weft.game.level.loaded import LoadedLevel
from weft.game.level.nesting import TOO_DEEP, too_deep
from weft.game.level.plugins import system_problems
from weft.game.level.problems import (
    KeyPath,
    LevelError,
    Problem,
    file_label,
    origin_of,
    problems_from_validation,
    value_at,
)
from weft.game.level.schema import Level
from weft.game.level.skeleton_check import skeleton_problems
from weft.game.level.textures import texture_problems
from weft.game.level.tiled import TILED_SUFFIXES, read_tiled
from weft.named_files import FileRefused, read_text_capped

_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def parse_key(text: str) -> KeyPath:
    """``"cloth.0.tear_ratio"`` -> ``("cloth", 0, "tear_ratio")``."""
    return tuple(int(part) if part.isdigit() else part for part in text.split("."))


def parse_override(text: str) -> tuple[KeyPath, Any]:
    """Split a ``--set KEY=VALUE``; the value is read as TOML, else taken as a plain string.

    ``world.iterations=4`` gives 4, ``world.gravity=[0,-500]`` a list,
    ``cloth.0.pattern=stripes`` the string ``"stripes"``.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ValueError(f"expected KEY=VALUE (for example world.iterations=4), got {text!r}")
    try:
        parsed = tomllib.loads(f"value = {value.strip()}")["value"]
    except tomllib.TOMLDecodeError:
        parsed = value.strip()
    except RecursionError:
        raise ValueError(f"{key.strip()}: {TOO_DEEP}") from None
    return parse_key(key.strip()), parsed


COMMAND_LINE = "set by --set"
RUNTIME = "set while running"


def set_key(
    raw: dict[str, Any], path: KeyPath, value: Any, file: str, origin: str = COMMAND_LINE
) -> Problem | None:
    """Write ``value`` at ``path`` in the level data, creating tables on the way; a Problem if impossible."""
    node: Any = raw
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        here = path[: depth + 1]
        if isinstance(part, int):
            if not isinstance(node, list):
                return Problem(file, here, f"expected a key name, got the index {part}", note=origin)
            if part >= len(node):
                return Problem(file, here, f"expected an index below {len(node)}, got {part}", note=origin)
        elif not isinstance(node, dict):
            return Problem(file, here, f"expected an index, got the key {part!r}", note=origin)
        if last:
            node[part] = value
        else:
            if isinstance(part, str) and part not in node:
                node[part] = [] if isinstance(path[depth + 1], int) else {}
            node = node[part]
    return None


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """The data and text of a TOML file; a ``LevelError`` naming the line for bad syntax."""
    label = file_label(path)
    try:
        text = read_text_capped(path, LEVEL_FILE_BYTES, "a level file (TOML)", path.name)
    except FileRefused as error:
        raise LevelError([Problem(label, (), str(error))]) from None
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise LevelError([Problem(label, (), TOO_DEEP)]) from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        position = _TOML_POSITION.search(message)
        where = f"line {position.group(1)}, column {position.group(2)}: " if position else ""
        reason = _TOML_POSITION.sub("", message)
        raise LevelError(
            [Problem(label, (), f"{where}expected valid TOML, got a syntax error: {reason}")]
        ) from None
    deep = too_deep(data)
    if deep is not None:
        raise LevelError([Problem(label, deep, TOO_DEEP)])
    return data, text


def validate(
    raw: dict[str, Any],
    source: Path,
    text: str | None = None,
    overridden: dict[KeyPath, str] | None = None,
    build: bool = True,
) -> LoadedLevel:
    """Check level data against the schema and the files it names; raise ``LevelError`` with every problem.

    ``build`` False leaves out the checks that run numba kernels (``kernel_checks``), which a first
    start compiles for seconds the picker's list must not wait on; the level is then checked so
    before it is built.
    """
    label = file_label(source)
    deep = too_deep(raw)  # before anything recursive reads it (overrides and Tiled maps come here too)
    if deep is not None:
        raise LevelError([Problem(label, deep[:4], TOO_DEEP, note=origin_of(deep, overridden))])
    try:
        model = Level.model_validate(raw)
    except ValidationError as error:
        raise LevelError(problems_from_validation(error, label, text, overridden or {}, root=Level)) from None
    problems = texture_problems(model, source.parent, label, text, overridden)
    problems += system_problems(model, label, text, overridden)
    problems += frame_work_problems(model, label, text, overridden)
    if build:  # with the rest, so that every problem is told at once
        problems += box_problems(model, label, text, overridden)
    if problems:
        raise LevelError(problems)
    level = LoadedLevel(source=source, raw=raw, model=model, overridden=dict(overridden or {}), text=text)
    if build:
        _check_skins(level)
        level.kernels_checked = True
    return level


def kernel_checks(level: LoadedLevel) -> None:
    """The checks of ``level`` that run numba kernels, unless made already: the boxes overlapping at
    the start counted (``box_problems``), then each skeleton's skin made aside
    (``skeleton_problems``); raise ``LevelError`` with what they found."""
    if level.kernels_checked:
        return
    problems = box_problems(level.model, file_label(level.source), level.text, level.overridden)
    if problems:
        raise LevelError(problems)
    _check_skins(level)
    level.kernels_checked = True


def _check_skins(level: LoadedLevel) -> None:
    problems = skeleton_problems(level)
    if problems:
        raise LevelError(problems)


def with_value(
    level: LoadedLevel, path: KeyPath, value: Any, clamp: bool = False
) -> tuple[LoadedLevel, list[str]]:
    """A copy of ``level`` with one key changed, validated, and the notes of what was clamped.

    With ``clamp`` a number outside the schema's range is brought to its nearest bound, and an
    integer that takes the level past its budgets (``world.iterations`` on a large sheet, a set's
    ``count``) down to the most they allow (``clamp_into_budgets``): a tool or slider must never be
    refused for going too far. Raises ``LevelError`` for an invalid result,
    or with ``clamp`` for what clamping cannot mend.
    """
    raw = copy.deepcopy(level.raw)
    label = file_label(level.source)
    problem = set_key(raw, path, value, label, RUNTIME)
    if problem:
        raise LevelError([problem])
    notes = []
    if clamp:
        deep = too_deep(raw)
        if deep is not None:
            raise LevelError([Problem(label, deep[:4], TOO_DEEP, note=RUNTIME)])
        notes = clamp_into_schema(raw, path)
        notes += clamp_into_budgets(raw, path, value_at(level.raw, path))
    changed = validate(raw, level.source, overridden={**level.overridden, path: RUNTIME})
    changed.allow_import = level.allow_import
    return changed, notes


def load_level(
    path: str | Path,
    overrides: list[str] | tuple[str, ...] = (),
    allow_import: list[str] | tuple[str, ...] = (),
    build: bool = True,
) -> LoadedLevel:
    """Read, override (``KEY=VALUE`` strings as for ``--set``) and validate a level file.

    ``allow_import``: fnmatch patterns of the modules the level's ``module:attr`` systems may be
    imported from when a simulation is built (nothing is imported here). ``build``: as for
    ``validate``.
    """
    source = Path(path)
    tiled = read_tiled(source) if source.suffix.lower() in TILED_SUFFIXES else None  # a Tiled map
    raw, text = (tiled.raw, None) if tiled else read_toml(source)
    label = file_label(source)
    problems = list(tiled.problems) if tiled else []
    overridden: dict[KeyPath, str] = {}
    for override in overrides:
        try:
            key, value = parse_override(override)
        except ValueError as error:
            problems.append(Problem(label, (), f"--set {error}"))
            continue
        problem = set_key(raw, key, value, label)
        if problem:
            problems.append(problem)
        else:
            overridden[key] = COMMAND_LINE
    try:
        level = validate(raw, source, text, overridden, build)
        level.allow_import = tuple(allow_import)
    except LevelError as error:
        problems.extend(tiled.locate(error.problems) if tiled else error.problems)
    if problems:
        raise LevelError(problems)
    return level
