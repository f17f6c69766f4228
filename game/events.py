"""The input-event vocabulary shared by the window, recordings and replayed scripts.

A script is a JSON list of ``{"frame": F, "type": T, ...}`` objects, in
world pixels; events apply at the start of their frame, in file order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from weft.game.level.problems import describe

Button = Literal["left", "right", "middle"]


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

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


class SetKey(_Event):
    type: Literal["set"]
    key: str = Field(description='A level key, as for --set: "world.iterations".')
    value: Any


Event = Annotated[
    MousePress | MouseRelease | MouseDrag | KeyPress | KeyRelease | ToolChoice | SetKey,
    Field(discriminator="type"),
]
_SCRIPT = TypeAdapter(list[Event])


class ScriptError(Exception):
    """An input script that cannot be replayed; the message names the file and the event."""


def load_script(path: str | Path) -> list[dict[str, Any]]:
    """Read and check an input script; events come back as plain dicts, in file order."""
    source = Path(path)
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScriptError(f"{source}: expected an input script (JSON), got no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScriptError(f"{source}: expected a readable JSON file, got {error}") from None
    except json.JSONDecodeError as error:
        raise ScriptError(
            f"{source}: line {error.lineno}, column {error.colno}: expected valid JSON, got {error.msg}"
        ) from None
    return validate_events(data, str(source))


def validate_events(data: Any, label: str = "events") -> list[dict[str, Any]]:
    """Check a list of event dicts; raise ``ScriptError`` listing every bad one."""
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
            lines.append(f"{label}: event {where}: expected {_expected(detail)}, got {_found(detail)}")
        raise ScriptError("\n".join(lines)) from None
    return [event.model_dump() for event in events]


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
