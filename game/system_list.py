"""``weft systems``: every system a level can count on or add, with its stage, place and
parameters.

Listing loads the installed plugins (the ``weft.systems`` entry points): the user installed them,
so running their import is theirs to allow. It imports nothing a level names.
"""

from __future__ import annotations

import json
import types
import typing
from dataclasses import dataclass
from typing import Any

from pydantic_core import PydanticUndefined

from weft.systems import registry
from weft.systems.frame import FRAME, RUNS
from weft.systems.schedule import System


@dataclass(frozen=True)
class Listing:
    """What ``weft systems`` prints: one text for stdout and the plugins that failed to load."""

    text: str
    failures: list[str]


def system_listing() -> Listing:
    """The built-in systems stage by stage in run order (``weft.systems.frame``), then every registered or
    installed custom system."""
    lines = [
        "Built-in systems, stage by stage in run order (each runs while the world holds what it needs;",
        "levels cannot add them again):",
    ]
    for stage, row in FRAME.items():
        lines += ["", f"  {stage.value}: {RUNS[stage].replace('`', '')}"]
        drawn = [entry for entry in row if isinstance(entry, str)]
        if drawn:
            lines.append(f"    {', '.join(drawn)}")
        lines += [
            f"    {entry.name:<16} {_summary(entry)}{_needs(entry)}".rstrip()
            for entry in row
            if not isinstance(entry, str)
        ]
    custom: dict[str, tuple[type[System], str]] = {
        name: (cls, f"registered by {registry.qualified(cls)}") for name, cls in registry.registered().items()
    }
    failures = []
    for name, entry in registry.installed().items():
        try:
            cls = registry.load_entry_point(entry)
        except registry.RegistryError as error:
            failures.append(f"{name}: {error}")
            continue
        source = f"entry point {entry.value}" + (f" of {entry.dist.name}" if entry.dist else "")
        custom.setdefault(name, (cls, source))
    lines += ["", 'Custom systems (add one to a level with [[system]] name = "..." and params = {...}):']
    if not custom:
        lines.append("  none registered or installed: see docs/extending.md")
    for name, (cls, source) in sorted(custom.items()):
        lines += _describe(name, cls, source)
    return Listing("\n".join(lines), failures)


def _describe(name: str, cls: type[System], source: str) -> list[str]:
    needs = f"; needs {', '.join(cls.needs)}" if cls.needs else ""
    place = _place(cls) or "no declared place"
    lines = ["", f"  {name}  (stage {cls.stage.value}; {place}{needs}; {source})"]
    summary = _summary(cls)
    if summary:
        lines.append(f"    {summary}")
    fields = registry.params_of(cls).model_fields
    if not fields:
        lines.append("    no parameters")
    rows = [(key, type_text(field.annotation), _default(field)) for key, field in fields.items()]
    widths = [max((len(row[c]) for row in rows), default=0) for c in range(3)]
    for (key, kind, default), field in zip(rows, fields.values(), strict=True):
        lines.append(
            f"    {key:<{widths[0]}}  {kind:<{widths[1]}}  {default:<{widths[2]}}  {field.description or ''}"
        )
    return lines


def _summary(cls: type[System]) -> str:
    """The first sentence of a system's docstring, as plain text."""
    paragraph = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
    sentence, stop, _ = paragraph.partition(". ")
    return (sentence + "." if stop else paragraph).replace("``", "")


def _needs(cls: type[System]) -> str:
    """The kinds of body a system needs to run (``System.needs``), as a note after its summary."""
    return f" (needs {', '.join(cls.needs)})" if cls.needs else ""


def _place(cls: type[System]) -> str:
    parts = []
    if cls.after:
        parts.append("after " + ", ".join(cls.after))
    if cls.before:
        parts.append("before " + ", ".join(cls.before))
    return "; ".join(parts)


def _default(field: Any) -> str:
    if field.default is PydanticUndefined and field.default_factory is None:
        return "(required)"
    value = field.default_factory() if field.default_factory is not None else field.default
    return "= " + json.dumps(value, default=str)


def type_text(annotation: Any) -> str:
    """A parameter's type as Python spells it, without pydantic's constraints: ``list[list[float]]``."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_text(args[0])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_text(arg) for arg in args)
    if origin is typing.Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    if annotation is type(None):
        return "None"
    if origin is not None:
        return f"{getattr(origin, '__name__', str(origin))}[{', '.join(type_text(arg) for arg in args)}]"
    return getattr(annotation, "__name__", str(annotation))
