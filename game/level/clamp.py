"""Bringing a value set at run time into the schema's range, instead of refusing it.

A tool, a slider, a script's ``set`` event or a custom system changes a
level key while the level runs; a number past the schema's bounds (gravity
tilted beyond 20000 px/s² in x) is moved to the nearest allowed value, and
the caller is told, never raised at. The bounds are the schema's own: they
come from pydantic's errors for the changed value, so no second copy of them
exists. What clamping cannot mend (a wrong type, an unknown key, a rule
between keys) is still a ``LevelError``.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from weft.game.level.problems import KeyPath
from weft.game.level.schema import Level

_LIMITS = {
    "greater_than_equal": lambda limit: limit,
    "less_than_equal": lambda limit: limit,
    "greater_than": lambda limit: math.nextafter(limit, math.inf),
    "less_than": lambda limit: math.nextafter(limit, -math.inf),
}
"""The nearest allowed value to a number past each kind of pydantic bound."""

ROUNDS = 8
"""Validations at most: each one clamps every out-of-range number it reports."""


def clamp_into_schema(raw: dict[str, Any], path: KeyPath) -> list[str]:
    """Clamp, in place, the numbers at or below ``path`` in level data ``raw`` that are outside the
    schema's bounds; one note per number changed (``"world.gravity.0: 28284.3 clamped to 20000.0"``)."""
    notes: list[str] = []
    for _ in range(ROUNDS):
        try:
            Level.model_validate(raw)
        except ValidationError as error:
            changed = [_clamp(raw, detail, path) for detail in error.errors()]
            notes += [note for note in changed if note]
            if not any(changed):
                return notes
        else:
            return notes
    return notes


def _clamp(raw: dict[str, Any], detail: Any, path: KeyPath) -> str | None:
    location = tuple(detail["loc"])
    given = detail.get("input")
    nearest = _LIMITS.get(detail["type"])
    if nearest is None or location[: len(path)] != path:
        return None
    if not isinstance(given, int | float) or isinstance(given, bool):
        return None
    limit = next(iter((detail.get("ctx") or {}).values()))
    value = nearest(float(limit)) if isinstance(given, float) else int(limit)
    node: Any = raw
    for part in location[:-1]:
        node = node[part]
    node[location[-1]] = value
    return f"{'.'.join(str(part) for part in location)}: {given!r} clamped to {value!r}"
