"""The input-event vocabulary shared by the window, recordings and replayed scripts.

A script is a JSON list of ``{"frame": F, "type": T, ...}`` objects, in
world pixels; events apply at the start of their frame, in file order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from weft.budgets import SCRIPT_EVENTS, SCRIPT_FILE_BYTES
from weft.game.level.load import parse_key, with_value
from weft.game.level.loaded import LoadedLevel
from weft.game.level.nesting import TOO_DEEP, too_deep
from weft.game.level.problems import LevelError, describe, one_line
from weft.named_files import FileRefused, read_text_capped

Button = Literal["left", "right", "middle"]


class _Event(BaseModel):
    # strict: ``"frame": true`` is not frame 1, nor ``"x": "3"`` a number
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    frame: int = Field(ge=0, description="Frame at whose start the event applies.")


class MousePress(_Event):
    type: Literal["mouse_press"]
    x: float
    y: float
    button: Button


class MouseRelease(_Event):
    type: Literal["mouse_release"]
    x: float
    y: float
    button: Button


class MouseDrag(_Event):
    type: Literal["mouse_drag"]
    x: float
    y: float
    dx: float
    dy: float
    buttons: list[Button]


class KeyPress(_Event):
    type: Literal["key_press"]
    key: str = Field(description='Arcade key name, e.g. "SPACE", "R", "ENTER".')


class KeyRelease(_Event):
    type: Literal["key_release"]
    key: str


class ToolChoice(_Event):
    type: Literal["tool"]
    name: str


class Tilt(_Event):
    type: Literal["tilt"]
    degrees: float = Field(description="Where gravity points, degrees from straight down (+: towards +x).")


class SetKey(_Event):
    type: Literal["set"]
    key: str = Field(description='A level key, as for --set: "world.iterations".')
    value: Any


Event = Annotated[
    MousePress | MouseRelease | MouseDrag | KeyPress | KeyRelease | ToolChoice | Tilt | SetKey,
    Field(discriminator="type"),
]
_SCRIPT = TypeAdapter(list[Event])


class ScriptError(Exception):
    """An input script that cannot be replayed; the message names the file and the event."""


def load_script(path: str | Path) -> list[dict[str, Any]]:
    """Read and check an input script; events come back as plain dicts, in file order."""
    source = Path(path)
    try:
        data = json.loads(read_text_capped(source, SCRIPT_FILE_BYTES, "an input script (JSON)", str(source)))
    except FileRefused as error:
        raise ScriptError(f"{source}: {error}") from None
    except RecursionError:
        raise ScriptError(f"{source}: {TOO_DEEP}") from None
    except json.JSONDecodeError as error:
        raise ScriptError(
            f"{source}: line {error.lineno}, column {error.colno}: expected valid JSON, got {error.msg}"
        ) from None
    return validate_events(data, str(source))


def validate_events(data: Any, label: str = "events") -> list[dict[str, Any]]:
    """Check a list of event dicts; raise ``ScriptError`` listing every bad one."""
    if isinstance(data, list) and len(data) > SCRIPT_EVENTS:
        raise ScriptError(f"{label}: expected at most {SCRIPT_EVENTS} events, got {len(data)}")
    deep = too_deep(data)
    if deep is not None:
        raise ScriptError(f"{label}: event {'.'.join(map(str, deep[:3]))}: {TOO_DEEP}")
    try:
        events = _SCRIPT.validate_python(data)
    except ValidationError as error:
        lines = []
        for detail in error.errors():
            loc = detail["loc"]
            # the discriminated union puts the event type into the location; drop it
            where = ".".join(
                str(part) for k, part in enumerate(loc) if not (k == 1 and isinstance(part, str))
            )
            if not where:  # the file as a whole is not a list
                lines.append(one_line(f"{label}: expected a list of events, got {_found(detail)}"))
                continue
            lines.append(
                one_line(f"{label}: event {where}: expected {_expected(detail)}, got {_found(detail)}")
            )
        raise ScriptError("\n".join(lines)) from None
    return [event.model_dump() for event in events]


def script_problems(events: list[dict[str, Any]], level: LoadedLevel, label: str) -> list[str]:
    """What in a checked script cannot apply to ``level``: a tool it does not offer, a ``set`` of a key
    it does not have or of a value no clamping makes valid. Found before the run starts, as a bad
    level is; ``set`` events are tried in file order on a copy, as the run will apply them."""
    problems = []
    tools = level.model.tools.available
    trial = level
    for k, event in enumerate(events):
        if event["type"] == "tool" and event["name"] not in tools:
            problems.append(
                one_line(
                    f"{label}: event {k}.name: expected a tool the level offers ({', '.join(tools)}), "
                    f"got {event['name']!r}"
                )
            )
        elif event["type"] == "set":
            try:
                trial, _ = with_value(trial, parse_key(event["key"]), event["value"], clamp=True)
            except LevelError as error:
                problems += [f"{label}: event {k}: {problem}" for problem in error.problems]
    return problems


def _expected(detail: dict[str, Any]) -> str:
    kind = detail["type"]
    if kind == "union_tag_invalid":
        return "a type among " + detail["ctx"]["expected_tags"]
    if kind == "union_tag_not_found":
        return 'a "type" key'
    if kind == "missing":
        return "this key (it is required)"
    if kind == "extra_forbidden":
        return "only the keys of this event type"
    return detail["msg"].lower().removeprefix("input should be ")


def _found(detail: dict[str, Any]) -> str:
    kind = detail["type"]
    if kind == "missing":
        return "nothing"
    if kind == "union_tag_invalid":
        return repr(detail["ctx"]["tag"])
    if kind == "extra_forbidden":
        return f"unknown key {detail['loc'][-1]!r}"
    return describe(detail.get("input"))


def save_script(path: str | Path, events: list[dict[str, Any]]) -> None:
    """Write events as a script: one event per line, so recordings diff well."""
    body = ",\n".join("  " + json.dumps(event) for event in events)
    Path(path).write_text(f"[\n{body}\n]\n" if events else "[]\n", encoding="utf-8")
