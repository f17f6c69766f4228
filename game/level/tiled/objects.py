"""Turning a parsed Tiled map's classed objects into level entries (cloth, balls, boxes, ground).

Coordinates: Tiled measures pixels from the map's top-left corner with y down, and turns objects
clockwise about their anchor; the level is y up and counts angles counter-clockwise (see
``weft.game.level.tiled``).
"""

from __future__ import annotations

import difflib
import itertools
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_origin

import numpy as np
import numpy.typing as npt
import pytiled_parser
from pytiled_parser import tiled_object as shapes

from weft.game.level.problems import KeyPath, Problem
from weft.game.level.schema import Boxes, Level
from weft.game.level.tiled.check import is_int, is_number
from weft.game.level.tiled.classes import CLASSES, ENUMS, GROUND_COLOR, TiledClass
from weft.game.level.tiled.origin import Origin, TiledLevel
from weft.systems.balls import lattice_capacity, packed_centers

MAX_LATTICE = 2_000_000
"""Most lattice places an ellipse emitter's packing may try (0.5 px circles in a 8192 px map are 60 M)."""


@dataclass
class MapObject:
    """A map object with its class and the layers' summed offset."""

    shape: shapes.TiledObject
    tiled_class: TiledClass
    offset: tuple[float, float]

    @property
    def where(self) -> str:
        name = f' "{self.shape.name}"' if self.shape.name else ""
        return f"object {self.shape.id} ({self.tiled_class.name}{name})"


@dataclass
class Sheet:
    """A cloth being built: its level entry and its grid in map coordinates (y down)."""

    entry: dict[str, Any]
    source: MapObject
    left: float
    top: float
    spacing: float
    cols: int
    rows: int
    layout: str
    """The cloth's ``pins`` property: pin objects only count for "points"."""
    points: list[list[int]] = field(default_factory=list)


class MapReader:
    """Turns one parsed map into level data, collecting problems as it goes."""

    def __init__(self, tiled_map: pytiled_parser.TiledMap, label: str, stem: str) -> None:
        self.map = tiled_map
        self.width = float(tiled_map.map_size.width * tiled_map.tile_size.width)
        self.height = float(tiled_map.map_size.height * tiled_map.tile_size.height)
        self.level = TiledLevel(
            raw={"level": {"name": stem}, "world": {"bounds": [0.0, 0.0, self.width, self.height]}},
            label=label,
        )
        self.level.origins[("world", "bounds")] = Origin(
            "map size",
            {(): ("", f"{self.width:g} × {self.height:g} px: width × tile width, height × tile height")},
        )
        self.names: dict[str, int] = {}
        self.boxes = 0

    # -- the whole map ------------------------------------------------------

    def read(self) -> TiledLevel:
        if self.map.background_color is not None:
            self.level.raw["world"]["background"] = _hex(self.map.background_color)
        for name, value in (self.map.properties or {}).items():
            self._map_property(name, value)
        objects = self._objects(self.map.layers, (0.0, 0.0))
        for obj in objects:
            self.names[obj.shape.name] = self.names.get(obj.shape.name, 0) + 1
        cloths = [obj for obj in objects if obj.tiled_class.name == "cloth"]
        sheets = {obj.shape.id: self._cloth(obj) for obj in cloths}
        refused = [obj for obj in cloths if sheets[obj.shape.id] is None]
        for obj in objects:
            kind = obj.tiled_class.name
            if kind == "pin":
                self._pin(obj, sheets, refused)
            elif kind == "emitter":
                self._emitter(obj)
            elif kind == "box":
                self._box(obj)
            elif kind == "ground":
                self._ground(obj)
        for sheet in sheets.values():
            if sheet is not None:
                self._finish_pins(sheet)
        return self.level

    def _map_property(self, name: str, value: Any) -> None:
        """A map property ``world.gravity`` (or a class-typed ``world``) sets that level key."""
        path: KeyPath = tuple(int(p) if p.isdigit() else p for p in name.split("."))
        if path[0] in BODY_TABLES:
            drawn = path[0] in OBJECT_TABLES
            how = "draw its bodies as objects, or write them" if drawn else "TOML-only: write it"
            self._problem(
                f"map property {name}",
                (),
                f"expected a key of the level's settings tables, got the array table {path[0]!r}: {how} "
                "in a TOML level",
            )
            return
        if path[:2] == ("world", "bounds"):
            self._problem(
                f"map property {name}",
                (),
                "expected no such property: the bounds are the map's size; resize the map instead",
            )
            return
        value = _level_value(value)
        if isinstance(value, dict):
            for key, inner in value.items():
                self._map_property(f"{name}.{key}", inner)
            return
        node: Any = self.level.raw
        for part in path[:-1]:
            node = node.setdefault(part, {}) if isinstance(node, dict) else None
        if not isinstance(node, dict) or any(isinstance(part, int) for part in path):
            self._problem(
                f"map property {name}", (), "expected a key of the level's tables, like world.gravity"
            )
            return
        node[path[-1]] = value
        self.level.origins[path] = Origin("map property", by_key=True)

    def _objects(self, layers: list[Any], offset: tuple[float, float]) -> list[MapObject]:
        """The classed objects of the visible object layers, in drawing order (groups descended)."""
        found = []
        for layer in layers:
            if not layer.visible:
                continue
            here = (offset[0] + layer.offset.x, offset[1] + layer.offset.y)
            if isinstance(layer, pytiled_parser.LayerGroup):
                found += self._objects(layer.layers, here)
            elif isinstance(layer, pytiled_parser.ObjectLayer):
                for shape in layer.tiled_objects:
                    if not shape.visible or not shape.class_:
                        continue
                    tiled_class = CLASSES.get(shape.class_)
                    if tiled_class is None:
                        self._unknown_class(shape)
                        continue
                    obj = MapObject(shape, tiled_class, here)
                    if _shape_name(shape) not in tiled_class.shapes:
                        accepted = " or ".join(_article(s) for s in tiled_class.shapes)
                        got = _article(_shape_name(shape))
                        self._problem(obj.where, ("shape",), f"expected {accepted}, got {got}")
                    elif self._finite(obj):
                        found.append(obj)
        return found

    def _unknown_class(self, shape: shapes.TiledObject) -> None:
        known = list(CLASSES)
        guess = difflib.get_close_matches(shape.class_, known, n=1, cutoff=0.6)
        hint = f"; did you mean {guess[0]!r}?" if guess else ""
        name = f' "{shape.name}"' if shape.name else ""
        self._problem(
            f"object {shape.id} ({shape.class_}{name})",
            ("class",),
            f"expected one of {', '.join(known)} (or no class, to be left out), got {shape.class_!r}{hint}",
        )

    def _finite(self, obj: MapObject) -> bool:
        """Whether the object's coordinates are all finite numbers (a problem is recorded if not)."""
        shape = obj.shape
        numbers = {
            "x": shape.coordinates.x,
            "y": shape.coordinates.y,
            "width": shape.size.width,
            "height": shape.size.height,
            "rotation": shape.rotation,
        }
        for k, point in enumerate(getattr(shape, "points", [])):
            numbers[f"points.{k}"] = point.x + point.y  # a sum is finite only if both are
        for key, number in numbers.items():
            if not math.isfinite(number):
                self._problem(obj.where, (key,), f"expected a finite number, got {number!r}")
                return False
        return True

    # -- coordinates --------------------------------------------------------

    def _world(self, obj: MapObject, local_x: float, local_y: float) -> tuple[float, float]:
        """A point given relative to the object's anchor (map axes, before rotation) in world px."""
        x, y = self._map_point(obj, local_x, local_y)
        return (_tidy(x), _tidy(self.height - y))

    def _map_point(self, obj: MapObject, local_x: float, local_y: float) -> tuple[float, float]:
        """The same point in map px (y down): turned clockwise by the rotation about the anchor."""
        turn = math.radians(obj.shape.rotation)
        cos, sin = math.cos(turn), math.sin(turn)
        x = obj.shape.coordinates.x + obj.offset[0] + local_x * cos - local_y * sin
        y = obj.shape.coordinates.y + obj.offset[1] + local_x * sin + local_y * cos
        return (x, y)

    def _covers(self, obj: MapObject, x: float, y: float) -> bool:
        """Whether map point (x, y) lies in ``obj``'s rectangle, turned as the object is."""
        turn = math.radians(obj.shape.rotation)
        dx = x - (obj.shape.coordinates.x + obj.offset[0])
        dy = y - (obj.shape.coordinates.y + obj.offset[1])
        local_x = dx * math.cos(turn) + dy * math.sin(turn)
        local_y = -dx * math.sin(turn) + dy * math.cos(turn)
        width, height = obj.shape.size
        return 0.0 <= local_x <= width and 0.0 <= local_y <= height

    # -- bodies -------------------------------------------------------------

    def _cloth(self, obj: MapObject) -> Sheet | None:
        props = self._properties(obj)
        if props is None:
            return None
        width, height = obj.shape.size
        if obj.shape.rotation % 360.0 != 0.0:
            self._problem(
                obj.where,
                ("rotation",),
                f"expected 0 (a sheet is built upright), got {obj.shape.rotation:g} degrees",
            )
            return None
        spacing = props.pop("spacing")
        if spacing <= 0.0:
            self._problem(obj.where, ("spacing",), f"expected a number > 0, got {spacing:g}")
            return None
        keys: dict[KeyPath, tuple[str, str]] = {("origin",): ("x, y", "the rectangle's top-left corner")}
        counts = {}
        for key, side, extent in (("cols", "width", width), ("rows", "height", height)):
            given = props.pop(key)
            if given < 0:
                self._problem(obj.where, (key,), f"expected 0 (fit the rectangle) or more, got {given}")
                return None
            # capped so a hair's spacing gives a count the schema refuses, not an overflow
            counts[key] = given or min(math.floor(min(extent / spacing, 1e6) + 1e-9) + 1, 10**6)
            if not given:
                note = f"fitted to the rectangle's {side} {extent:g} px at spacing {spacing:g} px"
                keys[(key,)] = (key, note)
        left, top = self._map_point(obj, 0.0, 0.0)
        layout = props.pop("pins")
        every = props.pop("pin_every")
        if not props.get("texture"):
            props.pop("texture", None)
        entry = {
            "name": self._name(obj),
            "origin": [_tidy(left), _tidy(self.height - top)],
            "cols": counts["cols"],
            "rows": counts["rows"],
            "spacing": spacing,
            "pins": {"layout": layout, "every": every} if layout != "points" else {"layout": "none"},
            **props,
        }
        keys[("pins", "layout")] = ("pins", "")
        keys[("pins", "every")] = ("pin_every", "")
        keys[("pins", "points")] = ("pin objects", "")
        self._add("cloth", entry, Origin(obj.where, keys))
        return Sheet(entry, obj, left, top, spacing, counts["cols"], counts["rows"], layout)

    def _pin(self, obj: MapObject, sheets: dict[int, Sheet | None], refused: list[MapObject]) -> None:
        """A pin object: a point of the cloth it names, or of the one it lies on (nothing more is said
        of one on a cloth ``refused`` for problems of its own: it was outside every cloth only as a
        follow-on)."""
        props = self._properties(obj)
        if props is None:
            return
        x, y = self._map_point(obj, 0.0, 0.0)
        chosen = props.pop("cloth")
        for name in props:
            self._problem(obj.where, (name,), "expected no such property: a pin has only cloth")
        if props:
            return
        if chosen:
            if chosen not in sheets:
                self._problem(obj.where, ("cloth",), f"expected the id of a cloth object, got {chosen}")
                return
            sheet = sheets[chosen]
            if sheet is None:
                return  # the cloth has problems of its own
            col, row, _ = _nearest_point(sheet, x, y)
        else:
            near = [
                (distance, col, row, sheet)
                for sheet in sheets.values()
                if sheet is not None and _reaches(sheet, x, y)
                for col, row, distance in [_nearest_point(sheet, x, y)]
            ]
            if not near:
                if any(self._covers(cloth, x, y) for cloth in refused):
                    return  # the cloth has problems of its own
                self._problem(
                    obj.where,
                    ("position",),
                    f"expected a point inside a cloth's rectangle (or a cloth property naming one), "
                    f"got ({x:g}, {y:g}), outside every cloth",
                )
                return
            _, col, row, sheet = min(near, key=lambda item: item[0])
        if sheet.layout != "points":
            self._problem(
                obj.where,
                ("cloth",),
                f'expected a cloth whose pins property is "points", got {sheet.source.where} with '
                f"pins {sheet.layout!r}",
            )
            return
        if [col, row] not in sheet.points:
            sheet.points.append([col, row])

    def _finish_pins(self, sheet: Sheet) -> None:
        if sheet.points:
            sheet.entry["pins"] = {"layout": "list", "points": sheet.points}

    def _emitter(self, obj: MapObject) -> None:
        props = self._properties(obj)
        if props is None:
            return
        count = props.pop("count")
        low, high = props.pop("radius_min"), props.pop("radius_max")
        entry: dict[str, Any] = {"name": self._name(obj), "radius": [low, high], **props}
        keys = {
            ("radius", 0): ("radius_min", ""),
            ("radius", 1): ("radius_max", ""),
            ("radius",): ("radius", ""),
        }
        width, height = obj.shape.size
        if isinstance(obj.shape, shapes.Rectangle):
            if obj.shape.rotation % 360.0 != 0.0:
                self._problem(
                    obj.where,
                    ("rotation",),
                    f"expected 0 for a rectangle (an ellipse may turn), got {obj.shape.rotation:g} degrees",
                )
                return
            left, top = self._world(obj, 0.0, 0.0)
            entry["count"] = count
            entry["region"] = [left, _tidy(top - height), _tidy(left + width), top]
            keys[("region",)] = ("size", "the rectangle")
            self._add("balls", entry, Origin(obj.where, keys))
            return
        if count < 0:
            self._problem(obj.where, ("count",), f"expected an integer >= 0, got {count}")
            return
        if not 0.5 <= low <= high <= 100.0:
            self._problem(
                obj.where,
                ("radius_min",),
                f"expected 0.5 <= radius_min <= radius_max <= 100, got {low:g} and {high:g}",
            )
            return
        if props["seed"] < 0:
            self._problem(obj.where, ("seed",), f"expected an integer >= 0, got {props['seed']}")
            return
        if count == 0:
            return  # an empty set: nothing to build
        centers = self._inside_ellipse(obj, high, props["seed"], count)
        if centers is None:
            self._problem(
                obj.where,
                ("radius_max",),
                f"expected circles large enough for at most {MAX_LATTICE} places in the ellipse's box, "
                f"got {high:g} px in {width:g} × {height:g} px",
            )
            return
        if len(centers) < count:
            self._problem(
                obj.where,
                ("count",),
                f"expected at most {len(centers)} circles of radius {high:g} inside the "
                f"{width:g} × {height:g} px ellipse, got {count}",
            )
            return
        entry["positions"] = [[_tidy(x), _tidy(y)] for x, y in centers[:count]]
        self._add("balls", entry, Origin(obj.where, keys))

    def _inside_ellipse(
        self, obj: MapObject, radius: float, seed: int, wanted: int
    ) -> npt.NDArray[np.float64] | None:
        """Centres of the balls' packing (``packed_centers``'s lattice over the ellipse's bounding box
        within the map, bottom row first) whose circles of ``radius`` lie wholly inside the (turned)
        ellipse, in the lattice's order; shape ``(n, 2)``: the first ``wanted``, or all there are if
        fewer. None if the lattice would be too large."""
        a, b = obj.shape.size.width / 2.0, obj.shape.size.height / 2.0
        if min(a, b) < radius:
            return np.zeros((0, 2))
        center = np.array(self._world(obj, a, b))
        angle = math.radians(-obj.shape.rotation)  # counter-clockwise in the world
        cos, sin = math.cos(angle), math.sin(angle)
        half = np.array([math.hypot(a * cos, b * sin), math.hypot(a * sin, b * cos)])
        low = np.maximum(center - half, 0.0)
        high = np.minimum(center + half, [self.width, self.height])
        if (high - low < 2.0 * radius).any():
            return np.zeros((0, 2))
        region = (float(low[0]), float(low[1]), float(high[0]), float(high[1]))
        room = lattice_capacity(radius, region)
        if room > MAX_LATTICE:
            return None
        lattice = packed_centers(room, radius, region, np.random.default_rng(seed))
        # a circle is inside when points all round its rim are (1/64 of a turn apart: the chord sags
        # by radius × (1 - cos(π/64)), a thousandth of the radius); in chunks, to bound the memory
        rim = np.linspace(0.0, 2.0 * math.pi, 64, endpoint=False)
        offsets = radius * np.column_stack([np.cos(rim), np.sin(rim)])
        found = []
        count = 0
        for start in range(0, room, 16384):
            chunk = lattice[start : start + 16384]
            points = chunk[:, None, :] + offsets[None, :, :] - center
            along = points[..., 0] * cos + points[..., 1] * sin
            across = -points[..., 0] * sin + points[..., 1] * cos
            found.append(chunk[((along / a) ** 2 + (across / b) ** 2 <= 1.0).all(axis=1)])
            count += len(found[-1])
            if count >= wanted:
                break
        return np.concatenate(found)[:wanted] if found else np.zeros((0, 2))

    def _box(self, obj: MapObject) -> None:
        props = self._properties(obj)
        if props is None:
            return
        width, height = obj.shape.size
        color = props.pop("color")
        palette = _default_box_colors()
        entry = {
            "name": self._name(obj),
            "layout": "list",
            "size": [width, height],
            "positions": [list(self._world(obj, width / 2.0, height / 2.0))],
            "angles_deg": [_angle(obj.shape.rotation)],
            "colors": [color or palette[self.boxes % len(palette)]],
            **props,
        }
        self.boxes += 1
        keys = {
            ("size", 0): ("width", ""),
            ("size", 1): ("height", ""),
            ("colors",): ("color", ""),
            ("colors", 0): ("color", ""),
        }
        self._add("boxes", entry, Origin(obj.where, keys))

    def _ground(self, obj: MapObject) -> None:
        props = self._properties(obj)
        if props is None:
            return
        thickness = props.pop("thickness")
        if thickness <= 0.0:
            self._problem(obj.where, ("thickness",), f"expected a number > 0, got {thickness:g}")
            return
        color = props.pop("color") or GROUND_COLOR
        points = [self._world(obj, p.x, p.y) for p in obj.shape.points]
        if isinstance(obj.shape, shapes.Polygon):
            points.append(points[0])
        name = self._name(obj)
        for k, (start, end) in enumerate(itertools.pairwise(points)):
            dx, dy = end[0] - start[0], end[1] - start[1]
            length = math.hypot(dx, dy)
            if length < 1e-6:
                continue
            # the box overlaps its neighbours by half a thickness at each end, so corners have no gap
            entry = {
                "name": f"{name}-{k}",
                "layout": "list",
                "size": [_tidy(length + thickness), thickness],
                "positions": [[_tidy((start[0] + end[0]) / 2.0), _tidy((start[1] + end[1]) / 2.0)]],
                "angles_deg": [_tidy(math.degrees(math.atan2(dy, dx)))],
                "fixed": True,
                "colors": [color],
                **props,
            }
            keys = {
                ("size", 0): ("segment length", f"segment {k} is {length:g} px long"),
                ("size", 1): ("thickness", ""),
                ("colors",): ("color", ""),
                ("colors", 0): ("color", ""),
            }
            self._add("boxes", entry, Origin(f"{obj.where} segment {k}", keys))

    # -- properties, names, entries ----------------------------------------

    def _properties(self, obj: MapObject) -> dict[str, Any] | None:
        """The object's properties with the class's defaults filled in, as level values.

        Members the loader computes with are checked here (a problem and None if one is of the
        wrong type); any other property passes through to the level entry under its own name,
        for the schema to check. Keys the object's shape sets are refused.
        """
        values: dict[str, Any] = {}
        ok = True
        for member in obj.tiled_class.members:
            values[member.name] = _level_value(member.default)
        for name, value in obj.shape.properties.items():
            value = _level_value(value)
            member = obj.tiled_class.member(name)
            if member is None:
                reason = _REFUSED[obj.tiled_class.name].get(name)
                if reason:
                    self._problem(obj.where, (name,), f"expected no such property: {reason}")
                    ok = False
                values[name] = value
                continue
            problem = _check(member.type, member.enum, value)
            if problem:
                self._problem(obj.where, (name,), problem)
                ok = False
            values[name] = value
        return values if ok else None

    def _name(self, obj: MapObject) -> str:
        """The object's name if no other object has it, else name-id; class-id when unnamed."""
        name = obj.shape.name
        if not name:
            return f"{obj.tiled_class.name}-{obj.shape.id}"
        return name if self.names.get(name, 0) == 1 else f"{name}-{obj.shape.id}"

    def _add(self, table: str, entry: dict[str, Any], origin: Origin) -> None:
        entries = self.level.raw.setdefault(table, [])
        self.level.origins[(table, len(entries))] = origin
        entries.append(entry)

    def _problem(self, where: str, path: KeyPath, message: str) -> None:
        self.level.problems.append(Problem(f"{self.level.label}: {where}", path, message))


BODY_TABLES = tuple(
    name for name, entry in Level.model_fields.items() if get_origin(entry.annotation) is list
)
"""Level tables that list bodies (the array tables: cloth, balls, boxes...): objects fill them, a map
property may not replace one."""

OBJECT_TABLES = ("cloth", "balls", "boxes")
"""The array tables a map's objects fill (its classes: cloth, emitters, boxes and ground); the others
(creatures, skeletons, custom systems) are written in a TOML level only."""

_SHAPE = "the object's shape sets it; move, resize or turn the object instead"
_ONE_BOX = "each box object is one box, drawn where it is"
_REFUSED: dict[str, dict[str, str]] = {
    "cloth": {"origin": _SHAPE},
    "pin": {},
    "emitter": {"region": _SHAPE, "positions": _SHAPE, "radius": "set radius_min and radius_max instead"},
    "box": {
        **dict.fromkeys(("size", "positions", "angles_deg"), _SHAPE),
        **dict.fromkeys(("layout", "base", "count", "gap", "offsets"), _ONE_BOX),
        "colors": "set color instead",
    },
    "ground": {
        **dict.fromkeys(("size", "positions", "angles_deg"), _SHAPE),
        **dict.fromkeys(("layout", "base", "count", "gap", "offsets"), _ONE_BOX),
        "colors": "set color instead",
        "fixed": "ground is always fixed",
        "name": "the object's name names the segments",
    },
}
"""Level keys a property may not set, for each class: the shape or another property sets them."""


# -- small conversions --------------------------------------------------------


def _level_value(value: Any) -> Any:
    """A Tiled property value as level data: colours as "#rrggbb(aa)", files as paths (empty: absent),
    text that starts with [ or { read as TOML (``[0, -500]``), class values as tables."""
    if isinstance(value, pytiled_parser.Color):
        return _hex(value)
    if isinstance(value, Path):
        text = value.as_posix()
        return "" if text == "." else text
    if isinstance(value, dict):
        return {key: _level_value(inner) for key, inner in value.items()}
    if isinstance(value, str) and value.lstrip().startswith(("[", "{")):
        try:
            return tomllib.loads(f"value = {value}")["value"]
        except tomllib.TOMLDecodeError:
            return value
    return value


def _check(kind: str, enum: str | None, value: Any) -> str:
    """Why ``value`` is not a Tiled ``kind`` property (empty if it is)."""
    if kind == "int" and not is_int(value):
        return f"expected an integer, got {value!r}"
    if kind == "float" and not (is_number(value) and math.isfinite(value)):
        return f"expected a finite number, got {value!r}"
    if kind == "bool" and not isinstance(value, bool):
        return f"expected true or false, got {value!r}"
    if kind in ("string", "file", "color") and not isinstance(value, str):
        return f"expected text, got {value!r}"
    if kind == "object" and not is_int(value):
        return f"expected an object (its id), got {value!r}"
    if enum and value not in ENUMS[enum]:
        options = ENUMS[enum]
        guess = difflib.get_close_matches(str(value), options, n=1, cutoff=0.6)
        hint = f"; did you mean {guess[0]!r}?" if guess else ""
        return f"expected one of {', '.join(options)}, got {value!r}{hint}"
    return ""


def _nearest_point(sheet: Sheet, x: float, y: float) -> tuple[int, int, float]:
    """The sheet's grid point nearest to map point (x, y): column, row (0 at the top) and distance."""
    col = min(max(round((x - sheet.left) / sheet.spacing), 0), sheet.cols - 1)
    row = min(max(round((y - sheet.top) / sheet.spacing), 0), sheet.rows - 1)
    distance = math.hypot(sheet.left + col * sheet.spacing - x, sheet.top + row * sheet.spacing - y)
    return int(col), int(row), distance


def _reaches(sheet: Sheet, x: float, y: float) -> bool:
    """Whether map point (x, y) lies on the sheet: inside its rectangle grown by half a spacing."""
    margin = sheet.spacing / 2.0
    width, height = sheet.source.shape.size
    return (
        sheet.left - margin <= x <= sheet.left + width + margin
        and sheet.top - margin <= y <= sheet.top + height + margin
    )


def _shape_name(shape: shapes.TiledObject) -> str:
    for kind, name in (
        (shapes.Ellipse, "ellipse"),
        (shapes.Point, "point"),
        (shapes.Polygon, "polygon"),
        (shapes.Polyline, "polyline"),
        (shapes.Text, "text"),
        (shapes.Tile, "tile"),
        (shapes.Rectangle, "rectangle"),
    ):
        if isinstance(shape, kind):
            return name
    return "object"


def _article(noun: str) -> str:
    return f"an {noun}" if noun[0] in "aeiou" else f"a {noun}"


def _angle(rotation: float) -> float:
    """Tiled's clockwise degrees as the world's counter-clockwise degrees, in (-180, 180]."""
    angle = -rotation % 360.0
    return _tidy(angle - 360.0 if angle > 180.0 else angle)


def _default_box_colors() -> list[str]:
    return list(Boxes.model_fields["colors"].default)


def _hex(color: pytiled_parser.Color) -> str:
    text = f"#{color.red:02x}{color.green:02x}{color.blue:02x}"
    return text if color.alpha == 255 else f"{text}{color.alpha:02x}"


def _tidy(value: float) -> float:
    """Round away float noise (cos 90° is 6e-17), keeping a millionth of a pixel."""
    return round(float(value), 6) + 0.0
