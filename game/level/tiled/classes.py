"""The Tiled classes a map may use (cloth, pin, emitter, box, ground), their properties and defaults.

Tiled 1.9+ saves an object's class properties only where they differ from
the class's defaults, so the loader (``weft.game.level.tiled``) and the project
file Tiled reads (``levels/tiled/weft.tiled-project``) must agree on every
default. Both come from here; a default that is also a level key is read
from the level schema, so the three never disagree. ``weft schema``
rewrites the project file and the class tables of docs/tiled.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from weft.folders import PACKAGE_DIR
from weft.game.level.schema import PATTERNS, Balls, Boxes, Cloth, PinsTable
from weft.levels import LEVELS_DIR

PropertyType = Literal["bool", "int", "float", "string", "color", "file", "object"]

PIN_LAYOUTS = ("points", "every", "ends", "top", "none")
"""A cloth's ``pins``: "points" holds the points nearest its pin objects; the others are the level's."""

ENUMS: dict[str, tuple[str, ...]] = {"pattern": PATTERNS, "pin_layout": PIN_LAYOUTS}
"""String enums the project declares, by name."""

PROJECT_FILE = LEVELS_DIR / "tiled" / "weft.tiled-project"


@dataclass(frozen=True)
class Member:
    """One property of a Tiled class: its Tiled type, default and meaning."""

    name: str
    type: PropertyType
    default: Any
    meaning: str
    enum: str | None = None
    """Name of the string enum (in ``ENUMS``) the value is one of."""


@dataclass(frozen=True)
class TiledClass:
    """An object class of the map: which shapes may carry it and what it becomes in the level."""

    name: str
    shapes: tuple[str, ...]
    """Tiled object shapes accepted: "rectangle", "ellipse", "point", "polyline", "polygon"."""
    becomes: str
    color: str
    """The colour Tiled draws the class's objects in, "#aarrggbb"."""
    members: tuple[Member, ...]

    def member(self, name: str) -> Member | None:
        """The member called ``name``, or None."""
        return next((m for m in self.members if m.name == name), None)


def _default(table: type[BaseModel], key: str) -> Any:
    """The level schema's default for ``key`` of ``table``."""
    return table.model_fields[key].default


def _level_key(table: type[BaseModel], key: str, kind: PropertyType, enum: str | None = None) -> Member:
    """A property that is the level key ``key`` of ``table``: its default and meaning are the schema's."""
    return Member(key, kind, _default(table, key), table.model_fields[key].description or "", enum)


CLOTH = TiledClass(
    name="cloth",
    shapes=("rectangle",),
    becomes="a [[cloth]] sheet whose top-left point is the rectangle's top-left corner",
    color="#ffc8553d",
    members=(
        Member("cols", "int", 0, "Points across; 0: as many as fit the rectangle's width at `spacing`."),
        Member("rows", "int", 0, "Points down; 0: as many as fit the rectangle's height at `spacing`."),
        _level_key(Cloth, "spacing", "float"),
        Member(
            "pins",
            "string",
            "points",
            'Which points are held: "points" (nearest the pin objects), "every", "ends", "top", "none".',
            enum="pin_layout",
        ),
        Member(
            "pin_every",
            "int",
            _default(PinsTable, "every"),
            'N for pins "every": every N-th point of the top row.',
        ),
        _level_key(Cloth, "mass", "float"),
        _level_key(Cloth, "thickness", "float"),
        _level_key(Cloth, "tearable", "bool"),
        _level_key(Cloth, "tear_ratio", "float"),
        _level_key(Cloth, "compliance", "float"),
        _level_key(Cloth, "shear", "bool"),
        _level_key(Cloth, "bend", "bool"),
        _level_key(Cloth, "pattern", "string", enum="pattern"),
        _level_key(Cloth, "pattern_size", "float"),
        Member("texture", "file", "", "Image stretched over the sheet (replaces the pattern); empty: none."),
    ),
)

PIN = TiledClass(
    name="pin",
    shapes=("point",),
    becomes="a pinned point of the cloth it lies in: the sheet's point nearest to it",
    color="#ffffd23f",
    members=(
        Member("cloth", "object", 0, "The cloth to pin; none: the cloth whose rectangle holds the pin."),
    ),
)

EMITTER = TiledClass(
    name="emitter",
    shapes=("ellipse", "rectangle"),
    becomes="a [[balls]] set packed inside the ellipse (or the rectangle), from the bottom up",
    color="#ff3a86ff",
    members=(
        Member("count", "int", 100, "How many circles."),
        Member("radius_min", "float", _default(Balls, "radius")[0], "Smallest radius, px."),
        Member("radius_max", "float", _default(Balls, "radius")[1], "Largest radius, px."),
        _level_key(Balls, "seed", "int"),
        _level_key(Balls, "fixed", "bool"),
    ),
)

BOX = TiledClass(
    name="box",
    shapes=("rectangle",),
    becomes="one rigid box of a [[boxes]] list, centred and turned as drawn",
    color="#ffd6a25c",
    members=(
        _level_key(Boxes, "fixed", "bool"),
        _level_key(Boxes, "friction", "float"),
        _level_key(Boxes, "density", "float"),
        Member("color", "color", "", "Fill colour; unset: the box palette in turn."),
    ),
)

GROUND_COLOR = "#5c6270"
"""Fill of ground segments whose object sets no colour."""

GROUND = TiledClass(
    name="ground",
    shapes=("polyline", "polygon"),
    becomes="a fixed, thin box along each segment, centred on the line",
    color="#ff8d99ae",
    members=(
        Member("thickness", "float", 8.0, "Thickness of the segments' boxes, px (centred on the line)."),
        _level_key(Boxes, "friction", "float"),
        Member("color", "color", "", f"Fill colour; unset: {GROUND_COLOR}."),
    ),
)

CLASSES: dict[str, TiledClass] = {c.name: c for c in (CLOTH, PIN, EMITTER, BOX, GROUND)}


def property_types() -> list[dict[str, Any]]:
    """The ``propertyTypes`` of the project file: the enums, then one class per ``CLASSES`` entry.

    Members are sorted by name, as Tiled saves them.
    """
    types: list[dict[str, Any]] = []
    for name, values in ENUMS.items():
        types.append(
            {
                "id": len(types) + 1,
                "name": name,
                "storageType": "string",
                "type": "enum",
                "values": list(values),
                "valuesAsFlags": False,
            }
        )
    for tiled_class in CLASSES.values():
        members = []
        for member in sorted(tiled_class.members, key=lambda m: m.name):
            entry: dict[str, Any] = {"name": member.name, "type": member.type, "value": member.default}
            if member.enum:
                entry["propertyType"] = member.enum
            members.append(entry)
        types.append(
            {
                "color": tiled_class.color,
                "drawFill": True,
                "id": len(types) + 1,
                "members": members,
                "name": tiled_class.name,
                "type": "class",
                "useAs": ["object"],
            }
        )
    return types


def project() -> dict[str, Any]:
    """The whole ``.tiled-project`` file: this folder, and the classes (Tiled 1.9 format and later)."""
    return {
        "automappingRulesFile": "",
        "commands": [],
        "compatibilityVersion": 1090,
        "extensionsPath": "extensions",
        "folders": ["."],
        "properties": [],
        "propertyTypes": property_types(),
    }


def project_text() -> str:
    """The project file's text, as ``weft schema`` writes it."""
    return json.dumps(project(), indent=4) + "\n"


DOCS_FILE = PACKAGE_DIR / "docs" / "tiled.md"
START = "<!-- classes:start (generated by `weft schema`; edit game/level/tiled/classes.py) -->"
END = "<!-- classes:end -->"


def classes_markdown() -> str:
    """The generated part of docs/tiled.md: one table of properties per class."""
    parts = [START, ""]
    for tiled_class in CLASSES.values():
        shapes = " or ".join(tiled_class.shapes)
        parts += [f"### {tiled_class.name} ({shapes})", "", f"Becomes {tiled_class.becomes}.", ""]
        parts += ["| property | type | default | meaning |", "|---|---|---|---|"]
        for member in tiled_class.members:
            kind = f"{member.type}: {', '.join(ENUMS[member.enum])}" if member.enum else member.type
            default = json.dumps(member.default, ensure_ascii=False)
            meaning = member.meaning.replace("|", "\\|")
            parts.append(f"| `{member.name}` | {kind} | `{default}` | {meaning} |")
        parts.append("")
    parts.append(END)
    return "\n".join(parts)


def generated_files() -> dict[Path, str]:
    """The files generated from these classes and their wanted text: the project file, and
    docs/tiled.md with its class tables replaced."""
    docs = DOCS_FILE.read_text(encoding="utf-8") if DOCS_FILE.exists() else "# Tiled maps\n"
    if START in docs and END in docs:
        head, rest = docs.split(START, 1)
        docs = head + classes_markdown() + rest.split(END, 1)[1]
    else:
        docs = docs.rstrip("\n") + "\n\n## Classes\n\n" + classes_markdown() + "\n"
    return {PROJECT_FILE: project_text(), DOCS_FILE: docs}
