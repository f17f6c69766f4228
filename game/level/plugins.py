"""A level's ``[[system]]`` entries: checked without running code, then built into the schedule.

Loading a level (so ``weft validate`` too) never imports code. It checks what names
alone tell: a built-in cannot be added again, an unknown name gets a suggestion, ``module:attr``
is well formed, no system is listed twice; and the parameters of systems registered in this
process. Parameters of installed (entry point) and ``module:attr`` systems are checked when a
simulation is built: that is when entry points load and allowed imports happen, and every
problem is still located at ``system.K...``.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic import ValidationError

from weft.game.level.problems import (
    KeyPath,
    LevelError,
    Problem,
    file_label,
    find_line,
    problems_from_validation,
)
from weft.game.level.schema import Level
from weft.game.level.values import plain
from weft.systems import registry
from weft.systems.frame import default_schedule
from weft.systems.imports import import_system, is_import, spec_problem
from weft.systems.registry import RegistryError
from weft.systems.schedule import Schedule, ScheduleError, System

if TYPE_CHECKING:
    from weft.game.level.loaded import LoadedLevel


def with_params(system: System) -> System:
    """``system`` with its ``params`` a ``Params`` of its class: the defaults where it has none (a
    system made in code, not from a level), values given as a dict validated. Raises the
    ``LevelError`` a level file's ``params`` table would give, naming the key
    (``my.Wind.params: push: expected a number <= 10.0, got 11``)."""
    cls = type(system)
    declared = registry.params_of(cls)
    given = getattr(system, "params", None)
    if isinstance(given, declared):
        return system
    label = f"{registry.qualified(cls)}.params"
    if given is not None and not isinstance(given, dict):
        expected = f"expected a {cls.__qualname__}.Params or a dict of its values"
        raise LevelError([Problem(label, (), f"{expected}, got {type(given).__name__}")])
    try:
        system.params = declared.model_validate(plain(given or {}))  # type: ignore[attr-defined]
    except ValidationError as error:
        raise LevelError(problems_from_validation(error, label, root=declared)) from None
    return system


def system_problems(
    model: Level, file: str, text: str | None = None, overridden: dict[KeyPath, str] | None = None
) -> list[Problem]:
    """What is wrong with the level's ``[[system]]`` entries, found without importing anything."""
    if not model.system:
        return []  # the panel revalidates on every change: skip reading the installed metadata
    problems = []
    known = set(registry.known_names())
    reserved = registry.reserved_names()
    names = [entry.name for entry in model.system]
    for k, entry in enumerate(model.system):
        at: KeyPath = ("system", k, "name")
        message = None
        if names.index(entry.name) != k:  # an import twice too: its class's name would be scheduled twice
            message = (
                f"expected a system not already listed (system.{names.index(entry.name)}), got {entry.name!r}"
            )
        elif is_import(entry.name):
            message = spec_problem(entry.name)
        elif entry.name in reserved:
            message = (
                f"expected a custom system, got the built-in {entry.name!r}: built-in systems are always "
                "scheduled (their settings are in [world] and the body tables)"
            )
        elif entry.name not in known:
            message = registry.unknown_name(entry.name)
        if message:
            problems.append(Problem(file, at, message, _line(text, at, overridden)))
            continue
        cls = registry.registered().get(entry.name)
        if cls is not None:
            try:
                registry.params_of(cls).model_validate(entry.params)
            except ValidationError as error:
                at = ("system", k, "params")
                problems += problems_from_validation(
                    error, file, text, overridden, at, root=registry.params_of(cls)
                )
    return problems


def unchecked(level: LoadedLevel) -> list[str]:
    """One line per entry whose parameters only a build can check (it would import code)."""
    file = file_label(level.source)
    lines = []
    for k, entry in enumerate(level.model.system):
        if is_import(entry.name):
            what = (
                "an import; `run` and `play` do it, when --allow-import covers its module, and check it then"
            )
        elif entry.name not in registry.registered():
            what = "an installed plugin; `run` and `play` load it and check its params then"
        else:
            continue
        lines.append(
            f"{file}: system.{k}: not checked, as validate never imports code: {entry.name!r} is {what}"
        )
    return lines


def level_schedule(
    level: LoadedLevel, base: Schedule | None = None, replacing: Collection[str] = ()
) -> Schedule:
    """A copy of ``base`` (default: the built-in schedule) plus the level's systems, each made with
    its validated parameters; ``base`` itself is left as it was. A system named in ``replacing``
    (those an earlier level brought) is taken out for the level's own of that name.

    Entries are placed in file order, so ``after``/``before`` may name earlier ones. Raises
    ``LevelError`` listing every problem: an unknown or refused name, bad parameters, a place
    that cannot be found.
    """
    file = file_label(level.source)
    problems: list[Problem] = []
    made: list[tuple[int, System]] = []
    for k, entry in enumerate(level.model.system):
        try:
            cls = (
                import_system(entry.name, level.allow_import, [level.directory])
                if is_import(entry.name)
                else registry.lookup(entry.name)
            )
        except RegistryError as error:
            problems.append(Problem(file, ("system", k, "name"), str(error)))
            continue
        try:
            system = registry.make(cls, entry.params)
        except ValidationError as error:
            at = ("system", k, "params")
            problems += problems_from_validation(
                error, file, None, level.overridden, at, root=registry.params_of(cls)
            )
            continue
        except RegistryError as error:
            problems.append(Problem(file, ("system", k, "name"), str(error)))
            continue
        if entry.after is not None:
            system.after = tuple(entry.after)  # type: ignore[misc]
        if entry.before is not None:
            system.before = tuple(entry.before)  # type: ignore[misc]
        made.append((k, system))
    if problems:
        raise LevelError(_with_lines(problems, level))
    schedule = default_schedule() if base is None else base.copy()
    replaced: set[str] = set()
    for k, system in made:
        if system.name in replacing and system.name not in replaced and system.name in schedule.custom():
            schedule.remove(system.name)
            replaced.add(system.name)
        try:
            places = schedule.place_problems(system)  # names its stage does not know: each at its key
        except ScheduleError as error:  # no stage
            problems.append(Problem(file, ("system", k), str(error)))
            continue
        problems += [Problem(file, ("system", k, key), message) for key, message in places]
        if places:
            continue
        try:
            schedule.add(system)
        except ScheduleError as error:
            problems.append(Problem(file, ("system", k), str(error)))
    if problems:
        raise LevelError(_with_lines(problems, level))
    return schedule


def _line(text: str | None, path: KeyPath, overridden: dict[KeyPath, str] | None = None) -> int | None:
    if text is None or any(path[: len(key)] == key for key in overridden or {}):
        return None
    return find_line(text, path)


def _with_lines(problems: list[Problem], level: LoadedLevel) -> list[Problem]:
    """The problems with their line in the level file (read only now: builds that succeed never read it)."""
    try:
        text: str | None = level.source.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    placed = [replace(p, line=_line(text, p.path, level.overridden)) for p in problems]
    return sorted(placed, key=lambda p: (p.line is None, p.line or 0))
