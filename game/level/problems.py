"""Turning what is wrong with a level into one readable line per problem.

Every line reads ``file: key.path: expected ..., got ...``, with a "did you
mean" for a misspelled key and the line number when the key can be found in
the file.
"""

from __future__ import annotations

import difflib
import functools
import re
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

KeyPath = tuple[str | int, ...]

MISSING = object()
"""What ``value_at`` gives where level data holds nothing."""


def value_at(raw: Any, path: KeyPath) -> Any:
    """The value at ``path`` in level data ``raw`` (tables and lists), or ``MISSING`` where there is none."""
    node = raw
    for part in path:
        if isinstance(node, dict):
            found = part in node
        else:
            found = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if not found:
            return MISSING
        node = node[part]
    return node


class AtKey(ValueError):
    """A validator's finding about a key below the one it validates (``path`` is relative)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a level file."""

    file: str
    path: KeyPath
    message: str
    line: int | None = None
    note: str = ""

    def __str__(self) -> str:
        where = ".".join(str(part) for part in self.path)
        text = f"{self.file}: {where}: {self.message}" if where else f"{self.file}: {self.message}"
        if self.line is not None:
            text += f" (line {self.line})"
        if self.note:
            text += f" ({self.note})"
        return one_line(text)


_CONTROL = {code: f"\\x{code:02x}" for code in range(32)} | {10: "\\n", 13: "\\r", 9: "\\t", 127: "\\x7f"}


def one_line(text: str) -> str:
    """``text`` with newlines and other control characters escaped (a key or value may hold them):
    every problem is one line, whatever the file says."""
    return text.translate(_CONTROL)


class LevelError(Exception):
    """A level that cannot be used; ``problems`` lists every reason at once."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(p) for p in problems))
        self.problems = problems


_EXPECTED = {
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "model_type": "a table",
    "dict_type": "a table",
    "finite_number": "a finite number",
    "missing": "a value (this key is required)",
}

_BOUND = {
    "greater_than_equal": ">=",
    "greater_than": ">",
    "less_than_equal": "<=",
    "less_than": "<",
}


def describe(value: Any) -> str:
    """A short rendering of a TOML value: its text and, where it helps, its type."""
    if isinstance(value, str):
        return f'"{value}" (a string)'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return f"a list of {len(value)} items" if len(value) > 4 else repr(value)
    return repr(value)


def problems_from_validation(
    error: ValidationError,
    file: str,
    text: str | None = None,
    overridden: dict[KeyPath, str] | None = None,
    prefix: KeyPath = (),
    *,
    root: type[BaseModel],
) -> list[Problem]:
    """One ``Problem`` per pydantic error, in the order of the file.

    ``root`` is the model that was validated (``Level`` for a whole level) and ``prefix`` where its
    table sits in the level (a custom system's parameters: ``("system", 0, "params")``).
    """
    problems = []
    for detail in error.errors():
        path, message = _explain(detail, root)
        path = prefix + path
        note = origin_of(path, overridden)
        line = None if note or text is None else find_line(text, path)
        problems.append(Problem(file, path, message, line, note))
    return sorted(problems, key=lambda p: (p.line is None, p.line or 0))


def origin_of(path: KeyPath, overridden: dict[KeyPath, str] | None) -> str:
    """Where the value at ``path`` came from when not from the file (``--set``, a tool), else ""."""
    return next((origin for key, origin in (overridden or {}).items() if path[: len(key)] == key), "")


def _explain(detail: dict[str, Any], root: type[BaseModel]) -> tuple[KeyPath, str]:
    path: KeyPath = tuple(detail["loc"])
    kind = detail["type"]
    given = detail.get("input")
    ctx = detail.get("ctx") or {}
    if kind == "extra_forbidden":
        return path, _unknown_key(path, root)
    if kind in ("value_error", "assertion_error"):
        cause = ctx.get("error")
        if isinstance(cause, AtKey):
            path = path + tuple(int(p) if p.isdigit() else p for p in cause.path.split("."))
        message = str(cause) if cause is not None else detail["msg"]
        return path, message
    if kind in _BOUND:
        limit = next(iter(ctx.values()))
        number = "a number" if isinstance(limit, float) else "an integer"
        return path, f"expected {number} {_BOUND[kind]} {limit}, got {describe(given)}"
    if kind == "literal_error":
        expected = ctx.get("expected", "")
        options = re.findall(r"'([^']*)'", expected)
        guess = difflib.get_close_matches(str(given), options, n=1, cutoff=0.6)
        hint = f"; did you mean {guess[0]!r}?" if guess and guess[0] != given else ""
        return path, f"expected one of {expected}, got {describe(given)}{hint}"
    if kind in ("too_short", "too_long"):
        bound = ctx.get("min_length", ctx.get("max_length"))
        least = "at least" if kind == "too_short" else "at most"
        return path, f"expected a list of {least} {bound} items, got {ctx.get('actual_length')} items"
    expected = _EXPECTED.get(kind, detail["msg"].lower())
    return path, f"expected {expected}, got {describe(given)}"


def _unknown_key(path: KeyPath, root: type[BaseModel]) -> str:
    model = model_at(path[:-1], root)
    key = str(path[-1])
    if model is None:
        return f"expected a known key, got unknown key {key!r}"
    known = list(model.model_fields)
    if not known:
        return f"expected no keys here, got unknown key {key!r}"
    guess = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {guess[0]!r}?" if guess else ""
    return f"expected one of {', '.join(known)}, got unknown key {key!r}{hint}"


def model_at(path: KeyPath, root: type[BaseModel]) -> type[BaseModel] | None:
    """The model class that validates the table at ``path``, or None if there is none."""
    annotation: Any = root
    for part in path:
        annotation = _unwrap(annotation)
        if isinstance(part, int):
            if typing.get_origin(annotation) is not list:
                return None
            annotation = typing.get_args(annotation)[0]
        else:
            if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
                return None
            field = annotation.model_fields.get(part)
            if field is None:
                return None
            annotation = field.annotation
    annotation = _unwrap(annotation)
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _unwrap(annotation: Any) -> Any:
    """Strip ``Annotated`` and ``X | None`` down to the one interesting type."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


_TABLE = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def find_line(text: str, path: KeyPath) -> int | None:
    """Best-effort line number (1-based) of the key at ``path`` in TOML ``text``.

    Follows ``[table]`` and ``[[array]]`` headers and ``key =`` lines; a key
    inside an inline table resolves to the line of the key that holds it.
    The file is scanned once for all its problems (``_key_lines`` is cached),
    so locating n problems costs one pass, not n.
    """
    lines = _key_lines(text)
    for end in range(len(path), 0, -1):
        if path[:end] in lines:
            return lines[path[:end]]
    return None


@functools.lru_cache(maxsize=4)
def _key_lines(text: str) -> dict[KeyPath, int]:
    """The line of every table header and key of ``text``, by key path (treat as read-only)."""
    lines: dict[KeyPath, int] = {}
    table: KeyPath = ()
    counters: dict[KeyPath, int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        header = _TABLE.match(line)
        if header:
            name = tuple(part.strip().strip("\"'") for part in header.group(2).split("."))
            if header.group(1) == "[[":
                index = counters.get(name, -1) + 1
                counters[name] = index
                table = (*name, index)
                lines.setdefault(name, number)
            else:
                table = _resolve_arrays(name, counters)
            lines.setdefault(table, number)
            continue
        key = _KEY.match(line)
        if key:
            parts = tuple(part.strip().strip("\"'") for part in key.group(1).split("."))
            lines.setdefault((*table, *parts), number)
    return lines


def _resolve_arrays(name: tuple[str, ...], counters: dict[KeyPath, int]) -> KeyPath:
    """``[cloth.pins]`` after ``[[cloth]]`` means the latest cloth's pins."""
    resolved: list[str | int] = []
    for k in range(len(name)):
        resolved.append(name[k])
        if name[: k + 1] in counters:
            resolved.append(counters[name[: k + 1]])
    return tuple(resolved)


def file_label(path: Path) -> str:
    """How a level file is named in messages: relative to the working directory when possible."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
