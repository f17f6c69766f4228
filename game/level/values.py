"""The building blocks of the level schema: strict tables, located errors, and the value types
every table uses (points, colours, substeps)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from weft.game.level.problems import LevelError, problems_from_validation

HEX_COLOR = re.compile(r"^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$")


class _TableType(type(BaseModel)):  # type: ignore[misc]
    """Making a table from Python (``weft.Cloth(cols=40, origin=(200, 650))``) takes tuples and
    numpy arrays and numbers as lists and plain numbers, and a mistake raises the ``LevelError``
    a level file would give, naming the key (``weft.Cloth: cols: expected an integer >= 1, got
    -3``). Only a direct call comes here: pydantic validates the tables inside a table, and a
    level file's, without calling their class, so their problems are gathered as before."""

    def __call__(cls, /, **data: Any) -> Any:
        try:
            return super().__call__(**{key: plain(value) for key, value in data.items()})
        except ValidationError as error:
            raise LevelError(problems_from_validation(error, f"weft.{cls.__name__}", root=cls)) from None


class Table(BaseModel, metaclass=_TableType):
    """A TOML table: unknown keys are errors, types are strict (TOML has real ints,
    floats and booleans; ``"5"`` is not a number), NaN and infinity are rejected."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, validate_default=True)


def plain(value: Any) -> Any:
    """What a TOML reader would have given for a Python value: lists for tuples and numpy arrays,
    Python numbers for numpy's (the strict tables take nothing else)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def when(key: str, value: str, then: dict[str, Any]) -> dict[str, Any]:
    """A rule the JSON schema states for editors (its validator checks it too): when ``key`` is
    ``value``, the table also satisfies ``then``."""
    return {"if": {"properties": {key: {"const": value}}, "required": [key]}, "then": then}


SLIDER = "x-slider"
"""The JSON-schema keyword under which a key gives the span of its slider in the tuning panel."""


def slider(low: float, high: float) -> dict[str, Any]:
    """``json_schema_extra`` of a key the tuning panel shows as a slider from ``low`` to ``high``: the
    useful part of the key's range (a tear ratio of 100 is allowed, but tears nothing a slider
    could show). Without it a slider spans the key's whole range."""
    return {SLIDER: [low, high]}


def describe(value: object) -> str:
    """A short rendering of a TOML value for error messages."""
    if isinstance(value, str):
        return f"{value!r} (a string)"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def check_color(value: object) -> object:
    """Accept ``"#rrggbb(aa)"`` or a list of 3 to 4 channels 0-255; say what was wrong otherwise."""
    if isinstance(value, str) and HEX_COLOR.match(value):
        return value
    if (
        isinstance(value, list)
        and len(value) in (3, 4)
        and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value)
    ):
        return value
    raise ValueError(
        f'expected a colour "#rrggbb", "#rrggbbaa" or [r, g, b(, a)] of 0-255, got {describe(value)}'
    )


def check_substeps(value: object) -> object:
    """Accept 1 to 16 or ``"auto"``."""
    if value == "auto" or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 16):
        return value
    raise ValueError(f'expected an integer from 1 to 16 or "auto", got {describe(value)}')


Coordinate = Annotated[float, Field(ge=-1e6, le=1e6)]
"""A position or length in px: a million px either way is far beyond any window, and keeps sums finite."""
Vec2 = Annotated[list[Coordinate], Field(min_length=2, max_length=2)]
Rectangle = Annotated[list[Coordinate], Field(min_length=4, max_length=4)]
"""[left, bottom, right, top], px."""
Channel = Annotated[int, Field(ge=0, le=255)]
Color = Annotated[
    Annotated[str, Field(pattern=HEX_COLOR.pattern)]
    | Annotated[list[Channel], Field(min_length=3, max_length=4)],
    BeforeValidator(check_color),
]
Substeps = Annotated[Annotated[int, Field(ge=1, le=16)] | Literal["auto"], BeforeValidator(check_substeps)]
Acceleration = Annotated[
    list[Annotated[float, Field(ge=-20000.0, le=20000.0)]], Field(min_length=2, max_length=2)
]
Velocity = Acceleration
"""[x, y] px/s: the same bounds, the fastest a box moves (the box solver's ``MAX_SPEED``)."""
Spin = Annotated[float, Field(ge=-10000.0, le=10000.0)]
"""Degrees a second, counter-clockwise (a box turns at most an eighth of a turn a substep anyway)."""
Size = Annotated[list[Annotated[float, Field(ge=2.0, le=1000.0)]], Field(min_length=2, max_length=2)]
"""[w, h] of a box, px."""


def rgba(value: str | list[int]) -> tuple[int, int, int, int]:
    """A validated colour as an (r, g, b, a) tuple of 0-255 ints."""
    if isinstance(value, str):
        digits = value[1:]
        channels = [int(digits[k : k + 2], 16) for k in range(0, len(digits), 2)]
    else:
        channels = list(value)
    if len(channels) == 3:
        channels.append(255)
    return (channels[0], channels[1], channels[2], channels[3])
