"""What a Tiled JSON map must hold before ``pytiled_parser`` reads it.

pytiled_parser trusts the file: a key Tiled always writes that is missing,
or a value of the wrong type, ends in a ``KeyError`` or ``TypeError`` deep
inside it. These checks run on the JSON first and say, in one line each,
which key of which layer or object is wrong.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from weft.budgets import EXTERNAL_FILE_BYTES
from weft.game.level.nesting import TOO_DEEP, too_deep
from weft.game.level.problems import Problem
from weft.named_files import FileRefused, confined, read_text_capped

Kind = tuple[Callable[[Any], bool], str]
"""A test of a JSON value, and what it expects (for messages)."""


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """Whether ``value`` is an int or a float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


_TEXT: Kind = (lambda v: isinstance(v, str), "text")
_FLAG: Kind = (lambda v: isinstance(v, bool), "true or false")
_LIST: Kind = (lambda v: isinstance(v, list), "a list")
_NUMBER: Kind = (lambda v: is_number(v) and math.isfinite(v), "a finite number")
_WHOLE: Kind = (lambda v: is_int(v), "a whole number")
_COUNT: Kind = (lambda v: is_int(v) and v > 0, "a whole number > 0")
_COLOR: Kind = (
    lambda v: isinstance(v, str) and bool(re.fullmatch(r"#?([0-9a-fA-F]{6}|[0-9a-fA-F]{8})", v)),
    "a colour (pick one, or delete the property)",
)

MAP_KEYS: dict[str, Kind] = {
    **dict.fromkeys(("width", "height", "tilewidth", "tileheight"), _COUNT),
    "orientation": _TEXT,
    "renderorder": _TEXT,
    "layers": _LIST,
    "tilesets": _LIST,
    "nextobjectid": _WHOLE,
    "version": (lambda v: isinstance(v, str) or is_number(v), "a version"),
}
LAYER_KEYS: dict[str, Kind] = {"type": _TEXT, "name": _TEXT, "opacity": _NUMBER, "visible": _FLAG}
OBJECT_KEYS: dict[str, Kind] = {
    "id": _WHOLE,
    **dict.fromkeys(("x", "y", "width", "height", "rotation"), _NUMBER),
    "name": _TEXT,
    "visible": _FLAG,
}
"""Keys Tiled writes in every map, layer and (not templated) object, which pytiled_parser needs."""

_MAP_OPTIONAL = {"infinite": _FLAG, "backgroundcolor": _COLOR, "class": _TEXT}
_LAYER_OPTIONAL = {"offsetx": _NUMBER, "offsety": _NUMBER, "class": _TEXT, "draworder": _TEXT}
_OBJECT_OPTIONAL = {
    "class": _TEXT,
    "type": _TEXT,
    "ellipse": _FLAG,
    "point": _FLAG,
    "gid": _WHOLE,
    "template": _TEXT,
}
_PROPERTY_VALUES: dict[str, Kind] = {
    "string": _TEXT,
    "file": _TEXT,
    "int": _NUMBER,
    "float": (lambda v: is_number(v), "a number"),
    "bool": _FLAG,
    "color": _COLOR,
    "object": _WHOLE,
    "class": (lambda v: isinstance(v, dict), "a table of members"),
}
"""What the value of each type of property must be (an int may be written 3.0; NaN fails its rounding)."""


def map_shape_problems(data: Any, label: str, folder: Path) -> list[Problem]:
    """What a map in ``folder`` must have before ``pytiled_parser`` reads it: the keys Tiled always
    writes, of the types it writes, one problem per missing or mistyped key; an orthogonal, finite
    map; and tileset and template files of its own folder."""
    if not isinstance(data, dict):
        return [Problem(label, (), f"expected a Tiled map (a JSON object), got {type(data).__name__}")]
    if data.get("type", "map") != "map":
        return [Problem(label, ("type",), f'expected "map", got {data.get("type")!r} (is this a tileset?)')]
    problems = _key_problems(data, MAP_KEYS, _MAP_OPTIONAL, label, "map")
    if data.get("orientation", "orthogonal") != "orthogonal":
        problems.append(
            Problem(label, ("orientation",), f'expected "orthogonal", got {data["orientation"]!r}')
        )
    if data.get("infinite", False) is True:
        problems.append(
            Problem(
                label, ("infinite",), "expected a fixed-size map (untick Map > Map Properties > Infinite)"
            )
        )
    problems += _property_problems(data.get("properties"), label)
    for k, tileset in enumerate(data.get("tilesets") if isinstance(data.get("tilesets"), list) else []):
        if isinstance(tileset, dict) and "source" in tileset:
            problems += _file_problems(tileset["source"], folder, label, ("tilesets", k, "source"))
    for layer in data.get("layers") if isinstance(data.get("layers"), list) else []:
        problems += _layer_problems(layer, label, folder)
    return problems


def _layer_problems(layer: Any, label: str, folder: Path) -> list[Problem]:
    if not isinstance(layer, dict):
        return [Problem(label, ("layers",), f"expected a layer (a JSON object), got {layer!r}")]
    where = f"{label}: layer {layer.get('name', '?')!r}"
    problems = _key_problems(layer, LAYER_KEYS, _LAYER_OPTIONAL, where, "layer")
    if ("offsetx" in layer) != ("offsety" in layer):
        problems.append(Problem(where, ("offsetx",), "expected offsetx and offsety together, got one"))
    problems += _property_problems(layer.get("properties"), where)
    kind = layer.get("type")
    inner = {"group": "layers", "objectgroup": "objects"}.get(kind) if isinstance(kind, str) else None
    if inner and not isinstance(layer.get(inner), list):
        problems.append(Problem(where, (inner,), f"expected a list, got {layer.get(inner)!r}"))
    elif kind == "group":
        for sublayer in layer["layers"]:
            problems += _layer_problems(sublayer, label, folder)
    elif kind == "objectgroup":
        if "draworder" not in layer:
            problems.append(Problem(where, ("draworder",), "expected this key (Tiled writes it), got none"))
        for obj in layer["objects"]:
            problems += _object_problems(obj, label, folder)
    elif kind not in ("tilelayer", "imagelayer", None):
        problems.append(
            Problem(where, ("type",), f"expected tilelayer, objectgroup, imagelayer or group, got {kind!r}")
        )
    return problems


def _object_problems(obj: Any, label: str, folder: Path) -> list[Problem]:
    if not isinstance(obj, dict):
        return [Problem(label, ("objects",), f"expected an object (a JSON object), got {obj!r}")]
    parts = (obj.get("class") or obj.get("type"), obj.get("name") and f'"{obj["name"]}"')
    described = " ".join(str(part) for part in parts if part)
    where = f"{label}: object {obj.get('id', '?')}" + (f" ({described})" if described else "")
    required = OBJECT_KEYS if "template" not in obj else {k: OBJECT_KEYS[k] for k in ("id", "x", "y")}
    problems = _key_problems(obj, required, {**OBJECT_KEYS, **_OBJECT_OPTIONAL}, where, "object")
    if isinstance(obj.get("template"), str):  # not text: a problem already
        problems += _file_problems(obj["template"], folder, where, ("template",))
    for key in ("polyline", "polygon"):
        points = obj.get(key)
        if points is not None and not (
            isinstance(points, list)
            and all(isinstance(p, dict) and is_number(p.get("x")) and is_number(p.get("y")) for p in points)
        ):
            problems.append(Problem(where, (key,), 'expected a list of points {"x": ..., "y": ...}'))
        elif isinstance(points, list) and key == "polyline" and len(points) < 2:
            problems.append(Problem(where, (key,), f"expected at least 2 points, got {len(points)}"))
    return problems + _property_problems(obj.get("properties"), where)


def _property_problems(properties: Any, where: str) -> list[Problem]:
    if properties is None:
        return []
    if not isinstance(properties, list):
        return [Problem(where, ("properties",), f"expected a list of properties, got {properties!r}")]
    problems = []
    for prop in properties:
        if not (isinstance(prop, dict) and {"name", "type", "value"} <= prop.keys()):
            problems.append(Problem(where, ("properties",), "expected name, type and value in each property"))
            continue
        name, kind, value = prop["name"], prop["type"], prop["value"]
        if not isinstance(name, str):
            problems.append(Problem(where, ("properties",), f"expected a property name, got {name!r}"))
        elif not isinstance(kind, str) or kind not in _PROPERTY_VALUES:
            known = ", ".join(_PROPERTY_VALUES)
            problems.append(Problem(where, (name,), f"expected a property type among {known}, got {kind!r}"))
        elif not _PROPERTY_VALUES[kind][0](value):
            problems.append(Problem(where, (name,), f"expected {_PROPERTY_VALUES[kind][1]}, got {value!r}"))
    return problems


def _key_problems(
    data: dict[str, Any], required: dict[str, Kind], known: dict[str, Kind], where: str, owner: str
) -> list[Problem]:
    """A problem for each key of ``required`` missing from ``data``, and for each key of ``required``
    or ``known`` of the wrong type."""
    problems = [
        Problem(where, (key,), f"expected this key (Tiled writes it in every {owner}), got none")
        for key in required
        if key not in data
    ]
    for key, (fits, expected) in {**required, **known}.items():
        if key in data and not fits(data[key]):
            problems.append(Problem(where, (key,), f"expected {expected}, got {data[key]!r}"))
    return problems


def _file_problems(source: Any, folder: Path, where: str, key: tuple[str | int, ...]) -> list[Problem]:
    """A tileset or template file a map names must be a file inside the map's folder, of sensible size;
    a template's own tileset too (pytiled_parser reads it, relative to the template).

    A map is data that may come from anyone: ``"source": "/dev/zero"`` must not
    have the reader read for ever, a FIFO must not block it, nor ``../../`` reach outside the level.
    """
    what = "a tileset or template file"
    try:
        target = confined(folder, source, what)
        text = read_text_capped(target, EXTERNAL_FILE_BYTES, what, source)
    except FileRefused as error:
        return [Problem(where, key, str(error))]
    if key[-1] != "template":
        return []
    try:
        template = json.loads(text)
    except RecursionError:
        return [Problem(where, key, f"{TOO_DEEP} in template {source!r}")]
    except json.JSONDecodeError as error:
        return [Problem(where, key, f"expected a JSON template (.tj), got {source!r} ({error.msg})")]
    if too_deep(template) is not None:
        return [Problem(where, key, f"{TOO_DEEP} in template {source!r}")]
    if not isinstance(template, dict) or not isinstance(template.get("object"), dict):
        return [Problem(where, key, f'expected a template with an "object", got {source!r}')]
    tileset = template.get("tileset")
    if tileset is None:
        return []
    if not isinstance(tileset, dict) or "source" not in tileset:
        return [Problem(where, key, f'expected the tileset of template {source!r} to have a "source"')]
    # relative to the template, but inside the map's folder all the same (what the tileset names is not read)
    relative = target.parent.relative_to(folder.resolve()) / str(tileset["source"])
    try:
        confined(folder, str(relative), what)
        read_text_capped((folder / relative).resolve(), EXTERNAL_FILE_BYTES, what, tileset["source"])
    except FileRefused as error:
        return [Problem(where, (*key, "tileset", "source"), f"{error} (named by template {source!r})")]
    return []
