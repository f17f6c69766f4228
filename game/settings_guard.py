"""Bringing back into the schema's range what a custom system left out of it.

A custom system may change the world's settings while the level runs
(gravity, wind, damping, iterations...). A value the level format would
refuse (past a bound, NaN, infinite, of the wrong type) would otherwise
reach the kernels, or raise in the middle of a frame. After each run of a
custom system the settings are compared with the last ones checked; when
they changed they are checked as a ``[world]`` table: a number past a bound
is clamped to it (``clamp_into_schema``, the same rule as for tools and
sliders), and NaN, a wrong type or a broken rule between keys goes back to
the last good value. A count that multiplies a frame's work (iterations,
substeps, the solver's, ``max_circles``), raised past what the level's
frame budgets allow, is brought down to the most they allow (never below
the value it had). Each correction is noted once per system and key, for
the HUD and ``run``'s output.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from pydantic import ValidationError

from weft.components import Wind, WorldSettings
from weft.components.rigid import RigidSettings
from weft.game.level.clamp import clamp_into_schema
from weft.game.level.frame_work import frame_fits, most_fitting, replaced
from weft.game.level.problems import LevelError, Problem, problems_from_validation
from weft.game.level.schema import Level, World
from weft.systems import world
from weft.systems.schedule import System

FAR = 1e308
"""An infinity is checked as this: past every bound, so clamped to it like any number too large."""

WORK_KEYS: tuple[tuple[str, ...], ...] = (
    ("iterations",),
    ("substeps",),
    ("rigid", "substeps"),
    ("rigid", "iterations"),
    ("max_circles",),
)
"""The ``[world]`` keys that multiply a frame's work (``weft.game.level.frame_work``), in the order
a system's raise of them is brought down."""


class SettingsGuard:
    """Called after each run of a custom system (``Schedule.after_custom``): the world's settings
    brought back into the schema's range, and what was changed noted once per system and key."""

    def __init__(self, frame_level: Callable[[World], Level | None] | None = None) -> None:
        self.frame_level = frame_level
        """The level whose frame budgets hold the settings, given a ``[world]`` table (None, or a
        call giving None: no budgets)."""
        self._good: dict[str, Any] | None = None
        """The settings as a ``[world]`` table when last accepted."""
        self.notes: list[str] = []
        """Corrections not yet shown, one line each (``take_notes`` empties it)."""
        self._noted: set[tuple[str, str]] = set()
        self._seen: tuple[Any, ...] = ()
        """The settings' values when ``check`` last took them (``_fingerprint``)."""

    def accept(self, settings: WorldSettings) -> None:
        """Take ``settings`` as good (the level or the panel just set them)."""
        self._good = world_table(settings)

    def check(self, settings: WorldSettings, label: str) -> None:
        """Between frames: the settings as the game's own code left them (live, ``physics.settings``),
        taken when the level format takes them as a ``[world]`` table, else ``LevelError`` naming
        the key, what it expects and what it got (``label``: where they were read, for the message).
        Unchanged since the last check, they cost a tuple's comparison."""
        try:
            seen: tuple[Any, ...] | None = _fingerprint(settings)
        except TypeError:  # a pair that is not one (a gravity of None): the table below says what
            seen = None
        if seen is not None and seen == self._seen:
            return
        table = world_table_or_none(settings)
        if table is None:
            raise LevelError(
                [
                    Problem(
                        label, (), "expected settings a [world] table can hold, got values of the wrong type"
                    )
                ]
            )
        if table != self._good:
            try:
                World.model_validate(table)
            except ValidationError as error:
                raise LevelError(problems_from_validation(error, label, root=World)) from None
            self._good = table
        self._seen = seen or ()

    def take_notes(self) -> list[str]:
        """The corrections since the last call."""
        notes, self.notes = self.notes, []
        return notes

    def __call__(self, system: System) -> None:
        settings = world.settings()
        table = world_table_or_none(settings)  # None: something no table holds (a gravity of None...)
        if table is not None and table == self._good:
            return
        good = self._good if self._good is not None else world_table_of_defaults()
        budgeted: set[str] = set()
        try:
            mended = mend(table, good)
            budgeted = self.within_budgets(mended, good)
        except Exception:  # never raised into the frame: the last good settings instead
            mended = copy.deepcopy(good)
        for path, before, after in changes(table, mended):
            if (system.name, path) in self._noted:
                continue
            self._noted.add((system.name, path))
            if table is None:
                self.notes.append(
                    f"system {system.name!r} left world settings no [world] table holds: the last good ones"
                )
            else:
                why = "outside the level format's range"
                if path in budgeted:
                    why = "past the level's frame budgets"
                self.notes.append(
                    f"system {system.name!r} set world.{path} to {before!r}, {why}: {after!r} instead"
                )
        apply_table(settings, mended)
        self._good = mended

    def within_budgets(self, table: dict[str, Any], good: dict[str, Any]) -> set[str]:
        """Bring down, in place, each count of ``WORK_KEYS`` the checked ``table`` raised above
        ``good`` to the most at which ``frame_level``'s frame stays within its budgets (never below
        ``good``'s); the dotted keys changed."""
        raised = [key for key in WORK_KEYS if _count(table, key) > _count(good, key)]
        if not raised or self.frame_level is None:
            return set()
        level = self.frame_level(World.model_validate(table))
        if level is None or frame_fits(level):
            return set()
        changed = set()
        for key in raised:
            floor = max(_count(good, key), 1)
            most = most_fitting(level, ("world", *key), floor, _count(table, key))
            level = replaced(level, ("world", *key), most)
            if most != _count(table, key):
                node = table
                for part in key[:-1]:
                    node = node[part]
                node[key[-1]] = most
                changed.add(".".join(key))
        return changed


def _count(table: dict[str, Any], key: tuple[str, ...]) -> int:
    """The integer at ``key`` of a ``[world]`` table (0 for ``"auto"`` substeps, whatever they resolve to)."""
    node: Any = table
    for part in key:
        node = node[part]
    return node if isinstance(node, int) and not isinstance(node, bool) else 0


def world_table(settings: WorldSettings) -> dict[str, Any]:
    """The settings a ``[world]`` table sets, in that table's shape (numpy scalars as Python numbers)."""
    wind = settings.wind
    table = {
        "gravity": [settings.gravity[0], settings.gravity[1]],
        "damping": settings.damping,
        "iterations": settings.iterations,
        "substeps": "auto" if settings.substeps == 0 else settings.substeps,
        "bounds": list(settings.bounds),
        "floor_friction": settings.floor_friction,
        "restitution": settings.restitution,
        "friction": settings.friction,
        "max_circles": settings.max_circles,
        "wind": {
            "enabled": wind.enabled,
            "strength": wind.strength,
            "direction_deg": math.degrees(wind.direction),
            "gust": wind.gust,
        },
        "rigid": dict(vars(settings.rigid)),
    }
    return _plain(table)


def world_table_of_defaults() -> dict[str, Any]:
    """The ``[world]`` table's defaults, in ``world_table``'s shape: the last resort of a correction."""
    table = Level().world.model_dump()
    table.pop("background", None)
    return _plain(table)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def mend(table: dict[str, Any] | None, good: dict[str, Any]) -> dict[str, Any]:
    """``table`` within the schema: NaN back to ``good``'s value, numbers past a bound clamped to it,
    and every key still refused (a wrong type, a rule between keys) as ``good`` has it."""
    if table is None:
        return copy.deepcopy(good)
    mended = _finite(copy.deepcopy(table), good)
    raw = {"world": mended}
    clamp_into_schema(raw, ("world",))
    for _ in range(len(good) + 1):
        try:
            Level.model_validate(raw)
        except ValidationError as error:
            refused = {detail["loc"][1] for detail in error.errors() if len(detail["loc"]) > 1}
            refused &= set(good)
            if not refused:
                return copy.deepcopy(good)
            for key in refused:
                raw["world"][key] = copy.deepcopy(good[key])
        else:
            return raw["world"]
    return copy.deepcopy(good)


def _finite(value: Any, good: Any) -> Any:
    """NaN as ``good`` has it there, infinities as ``FAR`` (then clamped like any large number)."""
    if isinstance(value, dict):
        return {k: _finite(v, good.get(k) if isinstance(good, dict) else None) for k, v in value.items()}
    if isinstance(value, list):
        goods = good if isinstance(good, list) and len(good) == len(value) else [None] * len(value)
        return [_finite(v, g) for v, g in zip(value, goods, strict=True)]
    if isinstance(value, float) and math.isnan(value):
        return good
    if isinstance(value, float) and math.isinf(value):
        return math.copysign(FAR, value)
    return value


def changes(table: dict[str, Any] | None, mended: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """``(key path, value left, value now)`` for each leaf the mending changed."""
    if table is None:
        return [("*", None, "the last good settings")]
    found = []

    def walk(left: Any, now: Any, path: str) -> None:
        if isinstance(now, dict) and isinstance(left, dict):
            for key in now:
                walk(left.get(key), now[key], f"{path}.{key}" if path else key)
        elif isinstance(now, list) and isinstance(left, list) and len(left) == len(now):
            for k, (a, b) in enumerate(zip(left, now, strict=True)):
                walk(a, b, f"{path}.{k}")
        elif not _same(left, now):
            found.append((path, left, now))

    walk(table, mended, "")
    return found


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)))


def apply_table(settings: WorldSettings, table: dict[str, Any]) -> None:
    """Write a checked ``world_table`` back into ``settings`` (nothing when it is what they hold)."""
    if world_table_or_none(settings) == table:
        return
    settings.gravity = (float(table["gravity"][0]), float(table["gravity"][1]))
    settings.damping = float(table["damping"])
    settings.iterations = int(table["iterations"])
    settings.substeps = 0 if table["substeps"] == "auto" else int(table["substeps"])
    settings.bounds = tuple(float(x) for x in table["bounds"])  # type: ignore[assignment]
    settings.floor_friction = float(table["floor_friction"])
    settings.restitution = float(table["restitution"])
    settings.friction = float(table["friction"])
    settings.max_circles = int(table["max_circles"])
    wind = table["wind"]
    direction = math.radians(wind["direction_deg"])
    try:  # the radians the system left, when they are the degrees kept: degrees and back lose bits
        if math.isclose(math.degrees(settings.wind.direction), wind["direction_deg"], abs_tol=1e-9):
            direction = float(settings.wind.direction)
    except Exception:  # whatever the system put there is replaced
        pass
    settings.wind = Wind(
        enabled=bool(wind["enabled"]),
        strength=float(wind["strength"]),
        direction=direction,
        gust=float(wind["gust"]),
    )
    settings.rigid = RigidSettings(**table["rigid"])


def _fingerprint(settings: WorldSettings) -> tuple[Any, ...]:
    """The values of the settings a ``[world]`` table holds, as one tuple (NaN never equals itself:
    a NaN is always a change)."""
    s, g, b, w = settings, settings.gravity, settings.bounds, settings.wind
    # a list the game may change in place is copied; the tuples the level gives are kept as they are
    pairs = (g if type(g) is tuple else tuple(g), b if type(b) is tuple else tuple(b))
    table = (*pairs, s.damping, s.iterations, s.substeps, s.floor_friction, s.restitution, s.friction)
    return (*table, s.max_circles, w.enabled, w.strength, w.direction, w.gust, *vars(s.rigid).values())


def world_table_or_none(settings: WorldSettings) -> dict[str, Any] | None:
    """``world_table``, or None when what a system left there is no table at all."""
    try:
        return world_table(settings)
    except Exception:  # a custom system may have put anything there
        return None
