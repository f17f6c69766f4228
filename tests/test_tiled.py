"""Tiled maps (.tmj) load as levels: bodies start where the map draws them, broken maps get one line each."""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.cli import run_game

from weft.game.level import LevelError, load_level
from weft.game.level.schema import Cloth
from weft.game.level.tiled.classes import CLASSES, PROJECT_FILE, property_types
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR

EXAMPLE = LEVELS_DIR / "tiled" / "example.tmj"
HEIGHT = 480.0
"""Height of the inline maps, px (40 × 30 tiles of 16 px: a 640 × 480 world)."""

# -- building small maps --------------------------------------------------------


def props(values: dict[str, Any]) -> list[dict[str, Any]]:
    """Tiled's property list for a dict of values (types as Tiled writes them)."""
    kinds = {bool: "bool", int: "int", float: "float", str: "string"}
    return [{"name": k, "type": kinds[type(v)], "value": v} for k, v in values.items()]


def shape(
    id_: int,
    cls: str,
    x: float,
    y: float,
    width: float = 0.0,
    height: float = 0.0,
    *,
    rotation: float = 0.0,
    name: str = "",
    properties: dict[str, Any] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A Tiled object as the JSON map holds it (a rectangle unless ``extra`` says ellipse, point...)."""
    obj = {
        "class": cls,
        "height": height,
        "id": id_,
        "name": name,
        "rotation": rotation,
        "visible": True,
        "width": width,
        "x": x,
        "y": y,
        **extra,
    }
    if properties:
        obj["properties"] = props(properties)
    return obj


def tiled_map(
    objects: list[dict[str, Any]], properties: dict[str, Any] | None = None, **layer: Any
) -> dict[str, Any]:
    """A 640 × 480 px map holding ``objects`` in one object layer (``layer`` adds e.g. offsets)."""
    data = {
        "compressionlevel": -1,
        "height": 30,
        "infinite": False,
        "layers": [
            {
                "draworder": "topdown",
                "id": 1,
                "name": "bodies",
                "objects": objects,
                "opacity": 1,
                "type": "objectgroup",
                "visible": True,
                "x": 0,
                "y": 0,
                **layer,
            }
        ],
        "nextlayerid": 2,
        "nextobjectid": 100,
        "orientation": "orthogonal",
        "renderorder": "right-down",
        "tiledversion": "1.10.2",
        "tileheight": 16,
        "tilesets": [],
        "tilewidth": 16,
        "type": "map",
        "version": "1.10",
        "width": 40,
    }
    if properties:
        data["properties"] = props(properties)
    return data


def write_map(tmp_path: Path, data: dict[str, Any] | str, name: str = "map.tmj") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1))
    return path


def level_of(tmp_path: Path, objects: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """The level data a map of ``objects`` becomes (validated)."""
    return load_level(write_map(tmp_path, tiled_map(objects, **kwargs))).raw


def problems_of(tmp_path: Path, data: dict[str, Any] | str, name: str = "map.tmj") -> list[str]:
    path = write_map(tmp_path, data, name)
    with pytest.raises(LevelError) as caught:
        load_level(path)
    return str(caught.value).splitlines()


def box_corners(center: list[float], size: list[float], angle_deg: float) -> np.ndarray:
    """World corners of a box: its own top-left, top-right, bottom-right, bottom-left (y up)."""
    w, h = size[0] / 2.0, size[1] / 2.0
    local = np.array([[-w, h], [w, h], [w, -h], [-w, -h]])
    a = math.radians(angle_deg)
    turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return np.asarray(center) + local @ turn.T


# -- the example map -----------------------------------------------------------


def test_example_map_runs_60_frames_without_nan() -> None:
    sim = Simulation.load(EXAMPLE)
    names = {body.name for _, body in sim.bodies()}
    assert {"banner", "hail", "crate-6", "crate-7", "tumbler", "plank", "ramp-0", "ramp-1"} <= names
    sim.step(60)
    assert np.isfinite(sim.positions()).all()
    for name in ("crate-6", "crate-7", "tumbler", "plank"):
        assert np.isfinite(sim.poses(name)).all()


def test_example_bodies_start_where_the_map_draws_them() -> None:
    sim = Simulation.load(EXAMPLE)
    height = 720.0
    # the banner's rectangle is at (420, 90), 468 × 234 px: 37 × 19 points 13 px apart, top-left first
    banner = sim.positions("banner")
    assert len(banner) == 37 * 19
    assert banner[0] == pytest.approx([420.0, height - 90.0])
    assert banner[-1] == pytest.approx([420.0 + 468.0, height - 90.0 - 234.0])
    # the plank: 200 × 16 at (1040, 300), turned 20° clockwise about that corner
    turn = math.radians(20.0)
    cx = 1040.0 + 100.0 * math.cos(turn) - 8.0 * math.sin(turn)
    cy = 300.0 + 100.0 * math.sin(turn) + 8.0 * math.cos(turn)
    x, y, angle = sim.poses("plank")[0]
    assert (x, y) == pytest.approx((cx, height - cy))
    assert math.degrees(angle) == pytest.approx(-20.0)
    assert sim.stores.rigid.inv_mass[sim.indices("plank")[0]] == 0.0  # fixed


def test_example_banner_hangs_from_its_two_pins() -> None:
    sim = Simulation.load(EXAMPLE)
    start = sim.positions("banner")
    sim.step(60)
    end = sim.positions("banner")
    top_right = 36  # the pin at (891, 93) snaps to column 36 of row 0
    for k in (0, top_right):
        assert end[k] == pytest.approx(start[k])
    middle = 18
    assert end[middle, 1] < start[middle, 1] - 20.0  # the unpinned top edge sags


# -- coordinates ---------------------------------------------------------------


def test_map_points_become_world_points_with_y_up_and_layer_offsets_added(tmp_path: Path) -> None:
    crate = shape(1, "box", 100, 50, 40, 20, name="crate")
    level = level_of(tmp_path, [crate])
    assert level["world"]["bounds"] == [0.0, 0.0, 640.0, HEIGHT]
    assert level["boxes"][0]["positions"] == [[120.0, HEIGHT - 60.0]]
    assert level["boxes"][0]["size"] == [40, 20]
    shifted = level_of(tmp_path, [crate], offsetx=10.0, offsety=5.0)
    assert shifted["boxes"][0]["positions"] == [[130.0, HEIGHT - 65.0]]


@pytest.mark.parametrize("rotation", [30.0, 90.0, -45.0, 200.0])
def test_clockwise_rotation_in_tiled_turns_the_box_about_its_top_left_corner(
    tmp_path: Path, rotation: float
) -> None:
    level = level_of(tmp_path, [shape(1, "box", 200, 100, 80, 40, rotation=rotation)])
    box = level["boxes"][0]
    angle = box["angles_deg"][0]
    assert -180.0 < angle <= 180.0
    assert math.remainder(angle + rotation, 360.0) == pytest.approx(0.0, abs=1e-9)  # -rotation, mod 360
    corners = box_corners(box["positions"][0], box["size"], angle)
    # the box's own top-left corner stays on the anchor; its top edge leaves it clockwise on screen
    assert corners[0] == pytest.approx([200.0, HEIGHT - 100.0])
    turn = math.radians(rotation)
    along_top = [200.0 + 80.0 * math.cos(turn), HEIGHT - (100.0 + 80.0 * math.sin(turn))]
    assert corners[1] == pytest.approx(along_top)


def test_a_box_turned_90_degrees_clockwise_hangs_down_left_of_its_anchor(tmp_path: Path) -> None:
    level = level_of(tmp_path, [shape(1, "box", 200, 100, 80, 40, rotation=90.0)])
    box = level["boxes"][0]
    # on screen the 80 px side now points down from (200, 100) and the 40 px side to the left
    assert box["positions"][0] == pytest.approx([180.0, HEIGHT - 140.0])
    assert box["angles_deg"] == [-90.0]


def test_ellipse_emitter_packs_circles_inside_the_ellipse_from_the_bottom(tmp_path: Path) -> None:
    hail = shape(1, "emitter", 100, 60, 200, 100, ellipse=True, properties={"count": 30, "radius_max": 6.0})
    level = level_of(tmp_path, [hail])
    centers = np.array(level["balls"][0]["positions"])
    assert len(centers) == 30
    assert level["balls"][0]["radius"] == [4.0, 6.0]
    center, a, b = np.array([200.0, HEIGHT - 110.0]), 100.0, 50.0
    # every circle of the largest radius lies inside: its farthest rim point is inside the ellipse
    around = np.linspace(0.0, 2.0 * np.pi, 720)
    circle = 6.0 * np.column_stack([np.cos(around), np.sin(around)])
    for p in centers:
        assert ((((p + circle) - center) / [a, b]) ** 2).sum(axis=1).max() <= 1.0 + 1e-3
    # filled from the bottom: the lowest row sits on the ellipse's bottom (within one pitch)
    assert centers[:, 1].min() - 6.0 < HEIGHT - 160.0 + 2.1 * 6.0
    assert centers[:, 1].max() < center[1] + b


def test_turned_ellipse_emitter_keeps_its_circles_in_the_turned_ellipse(tmp_path: Path) -> None:
    # 200 × 60 px turned 90° clockwise about its top-left corner (300, 100): an upright ellipse
    # 60 px wide, 200 px tall, centred at (270, 200) on the map
    tall = shape(1, "emitter", 300, 100, 200, 60, rotation=90.0, ellipse=True, properties={"count": 20})
    centers = np.array(level_of(tmp_path, [tall])["balls"][0]["positions"])
    assert len(centers) == 20
    assert np.abs(centers[:, 0] - 270.0).max() <= 30.0 - 7.0 + 1e-6
    assert np.abs(centers[:, 1] - (HEIGHT - 200.0)).max() <= 100.0 - 7.0 + 1e-6


def test_rectangle_emitter_fills_its_rectangle_as_a_region(tmp_path: Path) -> None:
    level = level_of(tmp_path, [shape(1, "emitter", 100, 60, 200, 100, properties={"count": 40})])
    balls = level["balls"][0]
    assert balls["region"] == [100.0, HEIGHT - 160.0, 300.0, HEIGHT - 60.0]
    assert balls["count"] == 40


def test_cloth_fits_its_rectangle_and_pins_hold_the_nearest_points(tmp_path: Path) -> None:
    sheet = shape(1, "cloth", 100, 100, 130, 65, name="sheet")
    other = shape(2, "cloth", 400, 100, 130, 65, name="other")
    pins = [
        shape(3, "pin", 140, 118, point=True),  # 40 px right, 18 px down: column 3, row 1
        shape(4, "pin", 99, 97, point=True),  # just outside the top-left corner: column 0, row 0
        shape(5, "pin", 530, 100, point=True),  # the other sheet's top-right corner
    ]
    level = level_of(tmp_path, [sheet, other, *pins])
    first, second = level["cloth"]
    assert (first["cols"], first["rows"], first["origin"]) == (11, 6, [100.0, HEIGHT - 100.0])
    assert first["pins"] == {"layout": "list", "points": [[3, 1], [0, 0]]}
    assert second["pins"] == {"layout": "list", "points": [[10, 0]]}
    sim = Simulation(load_level(tmp_path / "map.tmj"))
    sim.step(30)
    held = sim.positions("sheet")[1 * 11 + 3]
    assert held == pytest.approx([100.0 + 3 * 13.0, HEIGHT - 100.0 - 13.0])


def test_a_pin_with_a_cloth_property_pins_that_cloth_wherever_it_is(tmp_path: Path) -> None:
    sheet = shape(1, "cloth", 100, 100, 130, 65)
    pin = shape(2, "pin", 600, 90, point=True)
    pin["properties"] = [{"name": "cloth", "type": "object", "value": 1}]
    assert level_of(tmp_path, [sheet, pin])["cloth"][0]["pins"]["points"] == [[10, 0]]


def test_a_cloth_without_pins_falls_and_other_layouts_pass_through(tmp_path: Path) -> None:
    loose = shape(1, "cloth", 100, 100, 130, 65)
    topped = shape(2, "cloth", 300, 100, 130, 65, properties={"pins": "every", "pin_every": 5})
    first, second = level_of(tmp_path, [loose, topped])["cloth"]
    assert first["pins"] == {"layout": "none"}
    assert second["pins"] == {"layout": "every", "every": 5}


def test_ground_polyline_becomes_fixed_thin_boxes_along_each_segment(tmp_path: Path) -> None:
    points = [{"x": 0, "y": 0}, {"x": 300, "y": 0}, {"x": 400, "y": 100}]
    floor = shape(1, "ground", 0, 400, polyline=points, name="floor", properties={"thickness": 6.0})
    level = level_of(tmp_path, [floor])
    flat, slope = level["boxes"]
    assert flat["name"] == "floor-0" and flat["fixed"] is True
    assert flat["positions"] == [[150.0, HEIGHT - 400.0]]
    assert flat["size"] == [306.0, 6.0]  # half a thickness past each end
    assert flat["angles_deg"] == [0.0]
    assert slope["positions"] == [[350.0, HEIGHT - 450.0]]
    assert slope["size"][0] == pytest.approx(100.0 * math.sqrt(2.0) + 6.0)
    assert slope["angles_deg"] == [-45.0]  # going down to the right on screen
    corners = [{"x": 0, "y": 0}, {"x": 100, "y": 0}, {"x": 0, "y": 100}]
    wedge = shape(2, "ground", 200, 100, polygon=corners)
    closing = level_of(tmp_path, [wedge])["boxes"][-1]  # from (0, 100) back to (0, 0): straight up
    assert closing["positions"] == [[200.0, HEIGHT - 150.0]] and closing["angles_deg"] == [90.0]


def test_map_properties_set_level_keys(tmp_path: Path) -> None:
    data = tiled_map(
        [],
        properties={
            "level.name": "Windy",
            "world.gravity": "[0, -500]",
            "world.iterations": 7,
            "world.wind.enabled": True,
        },
    )
    data["backgroundcolor"] = "#203040"
    data["properties"].append(
        {"name": "tools", "propertytype": "tools", "type": "class", "value": {"strength": 0.9}}
    )
    level = load_level(write_map(tmp_path, data)).model
    assert level.level.name == "Windy"
    assert level.world.gravity == [0.0, -500.0]
    assert level.world.iterations == 7
    assert level.world.wind.enabled is True
    assert level.world.background == "#203040"
    assert level.tools.strength == 0.9


def test_repeated_and_missing_names_get_the_object_id(tmp_path: Path) -> None:
    crates = [shape(k, "box", 40 * k, 100, 30, 30, name="crate") for k in (4, 5)]
    level = level_of(tmp_path, [*crates, shape(6, "box", 400, 100, 30, 30)])
    assert [box["name"] for box in level["boxes"]] == ["crate-4", "crate-5", "box-6"]


def test_maps_saved_before_tiled_1_9_give_the_class_as_type(tmp_path: Path) -> None:
    crate = shape(1, "", 100, 50, 40, 20, name="crate")
    del crate["class"]
    crate["type"] = "box"
    assert level_of(tmp_path, [crate])["boxes"][0]["positions"] == [[120.0, HEIGHT - 60.0]]


def test_hidden_objects_and_objects_without_a_class_are_left_out(tmp_path: Path) -> None:
    hidden = shape(1, "box", 100, 100, 30, 30)
    hidden["visible"] = False
    note = shape(2, "", 200, 100, 30, 30)
    assert "boxes" not in level_of(tmp_path, [hidden, note])


def test_properties_left_at_their_defaults_equal_properties_omitted(tmp_path: Path) -> None:
    """Tiled saves only the properties that differ from the class's defaults."""
    kinds = {
        "cloth": {},
        "emitter": {"ellipse": True},
        "box": {},
        "ground": {"polyline": [{"x": 0, "y": 0}, {"x": 100, "y": 20}]},
    }
    for cls, extra in kinds.items():
        bare = shape(1, cls, 100, 100, 300, 200, **extra)
        full = dict(bare)
        full["properties"] = [
            {"name": m.name, "type": m.type, "value": m.default}
            for m in CLASSES[cls].members
            if not (m.type == "color" and m.default == "")  # Tiled leaves an unset colour out
        ]
        assert level_of(tmp_path, [full]) == level_of(tmp_path, [bare]), cls
    # and a cloth of defaults is a TOML cloth of defaults
    cloth = level_of(tmp_path, [shape(1, "cloth", 100, 100, 130, 65)])["cloth"][0]
    defaults = Cloth().model_dump()
    for key in ("spacing", "mass", "thickness", "tear_ratio", "compliance", "pattern", "pattern_size"):
        assert cloth[key] == defaults[key], key


def test_project_file_declares_the_loaders_classes_and_defaults() -> None:
    project = json.loads(PROJECT_FILE.read_text())
    assert project["propertyTypes"] == property_types()
    declared = {t["name"] for t in project["propertyTypes"] if t["type"] == "class"}
    assert declared == {"cloth", "pin", "emitter", "box", "ground"}
    assert all(t["useAs"] == ["object"] for t in project["propertyTypes"] if t["type"] == "class")


def test_overrides_use_level_keys_on_a_map() -> None:
    level = load_level(EXAMPLE, ["cloth.0.tear_ratio=3.5"])
    assert level.model.cloth[0].tear_ratio == 3.5
    with pytest.raises(LevelError) as caught:
        load_level(EXAMPLE, ["cloth.0.tear_ratio=0.5"])
    assert str(caught.value).endswith("cloth.0.tear_ratio: expected a number >= 1.05, got 0.5 (set by --set)")


# -- broken maps ---------------------------------------------------------------

BROKEN_OBJECTS = [
    (
        shape(1, "boxx", 10, 10, 30, 30, name="crate"),
        'object 1 (boxx "crate"): class: expected one of cloth, pin, emitter, box, ground (or no class, to '
        "be left out), got 'boxx'; did you mean 'box'?",
    ),
    (
        shape(1, "box", 10, 10, 30, 30, name="crate", properties={"friction": 3.5}),
        'object 1 (box "crate"): friction: expected a number <= 2.0, got 3.5',
    ),
    (
        shape(1, "box", 10, 10, 1, 30, name="crate"),
        'object 1 (box "crate"): width: expected a number >= 2.0, got 1',
    ),
    (
        shape(1, "cloth", 10, 10, 6000, 30),
        "object 1 (cloth): cols: expected an integer <= 400, got 462 (fitted to the rectangle's width "
        "6000 px at spacing 13 px)",
    ),
    (
        shape(1, "cloth", 10, 10, 100, 30, rotation=15),
        "object 1 (cloth): rotation: expected 0 (a sheet is built upright), got 15 degrees",
    ),
    (
        shape(1, "cloth", 10, 10, 100, 30, properties={"cols": "ten"}),
        "object 1 (cloth): cols: expected an integer, got 'ten'",
    ),
    (
        shape(1, "cloth", 10, 10, 100, 30, properties={"pattern": "stripe"}),
        "object 1 (cloth): pattern: expected one of gingham, stripes, checker, plaid, got 'stripe'; did you "
        "mean 'stripes'?",
    ),
    (
        shape(1, "cloth", 10, 10, 100, 30, properties={"origin": "[0, 0]"}),
        "object 1 (cloth): origin: expected no such property: the object's shape sets it; move, resize or "
        "turn the object instead",
    ),
    (
        shape(1, "cloth", 10, 10, 100, 30, properties={"texture": "nowhere.png"}),
        "object 1 (cloth): texture: expected an image file (PNG or JPEG), got 'nowhere.png' (no such file)",
    ),
    (
        shape(1, "pin", 300, 300, point=True),
        "object 1 (pin): position: expected a point inside a cloth's rectangle (or a cloth property naming "
        "one), got (300, 300), outside every cloth",
    ),
    (
        shape(1, "emitter", 10, 10, 4, 4, point=True),
        "object 1 (emitter): shape: expected an ellipse or a rectangle, got a point",
    ),
    (
        shape(1, "emitter", 10, 10, 60, 40, ellipse=True, properties={"count": 500}),
        "object 1 (emitter): count: expected at most 3 circles of radius 7 inside the 60 × 40 px ellipse, "
        "got 500",
    ),
    (
        shape(1, "emitter", 10, 10, 60, 40, ellipse=True, properties={"radius_min": 9.0}),
        "object 1 (emitter): radius_min: expected 0.5 <= radius_min <= radius_max <= 100, got 9 and 7",
    ),
]


@pytest.mark.parametrize(("obj", "expected"), BROKEN_OBJECTS, ids=lambda v: v if isinstance(v, str) else "")
def test_a_broken_object_is_one_line_naming_the_map_and_the_object(
    tmp_path: Path, obj: dict[str, Any], expected: str
) -> None:
    assert problems_of(tmp_path, tiled_map([obj])) == [f"{tmp_path / 'map.tmj'}: {expected}"]


def test_every_broken_object_is_reported_at_once(tmp_path: Path) -> None:
    lines = problems_of(tmp_path, tiled_map([obj for obj, _ in BROKEN_OBJECTS[:4]]))
    assert len(lines) == 4


def test_a_pin_on_a_refused_cloth_adds_no_line_of_its_own(tmp_path: Path) -> None:
    # before: the cloth's line, then the pin's "outside every cloth", which it was not; a pin off every
    # cloth is still reported
    cloth = shape(1, "cloth", 100, 100, 200, 100, properties={"spacing": 0.0})
    turned = shape(2, "cloth", 500, 100, 200, 100, rotation=30.0)
    pins = [shape(3, "pin", 150, 150, point=True), shape(4, "pin", 560, 180, point=True)]  # on each
    off = shape(5, "pin", 900, 600, point=True)
    lines = problems_of(tmp_path, tiled_map([cloth, turned, *pins, off]))
    assert [line.split(": ", 2)[1] for line in lines] == [
        "object 1 (cloth)",
        "object 2 (cloth)",
        "object 5 (pin)",
    ]


def test_broken_map_files_are_one_line_each(tmp_path: Path) -> None:
    label = tmp_path / "map.tmj"
    assert problems_of(tmp_path, '{"width": 3,\n "height": }') == [
        f"{label}: line 2, column 12: expected valid JSON, got a syntax error: Expecting value"
    ]
    untitled = shape(1, "box", 10, 10, 30, 30, name="crate")
    del untitled["rotation"]
    assert problems_of(tmp_path, tiled_map([untitled])) == [
        f'{label}: object 1 (box "crate"): rotation: expected this key (Tiled writes it in every object), '
        "got none"
    ]
    iso = tiled_map([]) | {"orientation": "isometric", "infinite": True}
    assert problems_of(tmp_path, iso) == [
        f"{label}: orientation: expected \"orthogonal\", got 'isometric'",
        f"{label}: infinite: expected a fixed-size map (untick Map > Map Properties > Infinite)",
    ]
    tiny = tiled_map([]) | {"width": 2}
    assert problems_of(tmp_path, tiny) == [
        f"{label}: map size: expected [left, bottom, right, top] at least 64 px wide and tall, got "
        "[0.0, 0.0, 32.0, 480.0] (32 × 480 px: width × tile width, height × tile height)"
    ]
    bounds = tiled_map([], properties={"world.bounds": "[0, 0, 10, 10]"})
    assert problems_of(tmp_path, bounds) == [
        f"{label}: map property world.bounds: expected no such property: the bounds are the map's size; "
        "resize the map instead"
    ]
    tmx = problems_of(tmp_path, "<?xml version='1.0'?><map/>", name="map.tmx")
    assert tmx == [
        f"{tmp_path / 'map.tmx'}: expected a map saved as JSON, got a TMX map; in Tiled, File > Save As... "
        'and pick "JSON map files (*.tmj *.json)"'
    ]


def test_validate_reports_a_broken_map_without_a_traceback(tmp_path: Path) -> None:
    objects = [obj for obj, _ in BROKEN_OBJECTS[:2]]
    path = write_map(tmp_path, tiled_map(objects, properties={"world.iterations": 0}))
    result = run_game("validate", str(path), str(EXAMPLE))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 3 and all(line.startswith(f"{path}: ") for line in lines)
    assert f"{path}: map property world.iterations: expected an integer >= 1, got 0" in lines
    assert f"{EXAMPLE}: ok" in result.stdout or "example.tmj: ok" in result.stdout


# -- fuzzing the example map ---------------------------------------------------

FUZZ_EXAMPLES = int(os.environ.get("WEFT_FUZZ_EXAMPLES", "150"))
FUZZ_RUNS = max(4, FUZZ_EXAMPLES // 40)
RAN: list[Any] = []
"""Mutations that were valid and ran (at most ``FUZZ_RUNS``: a run costs half a second)."""
BAD_VALUES: list[Any] = [
    "x",
    "",
    "[1,",
    "#zz",
    True,
    None,
    [],
    [1, 2, 3],
    {},
    {"a": 1},
    0,
    -1,
    0.5,
    1e9,
    10**9,
    1e308,
    math.nan,
    math.inf,
    -math.inf,
]
"""Values put in place of any value of the map: wrong types, signs, sizes and non-numbers."""


def json_paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key path of nested JSON objects and arrays, leaves and branches alike."""
    children = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    paths = []
    for key, value in children:
        paths += [(*prefix, key), *json_paths(value, (*prefix, key))]
    return paths


EXAMPLE_DATA = json.loads(EXAMPLE.read_text())
EXAMPLE_PATHS = json_paths(EXAMPLE_DATA)


@settings(
    max_examples=FUZZ_EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    mutations=st.lists(
        st.tuples(st.sampled_from(EXAMPLE_PATHS), st.sampled_from([*BAD_VALUES, "delete"])),
        min_size=1,
        max_size=3,
    )
)
def test_mutated_example_maps_run_or_fail_with_one_line_per_problem(
    tmp_path: Path, mutations: list[tuple[tuple[Any, ...], Any]]
) -> None:
    data = copy.deepcopy(EXAMPLE_DATA)
    for path, value in mutations:
        node = data
        try:
            for part in path[:-1]:
                node = node[part]
            if value == "delete" and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced a table on this path
    path = write_map(tmp_path, data)
    try:
        level = load_level(path)
    except LevelError as error:
        lines = str(error).splitlines()
        assert lines and all(line.startswith(f"{path}: ") for line in lines), lines
        return
    if len(RAN) < FUZZ_RUNS:  # valid: the first few run, as the shipped levels' fuzz does
        RAN.append(mutations)
        sim = Simulation(level)
        sim.step(60)
        rigid = sim.stores.rigid
        assert np.isfinite(sim.positions()).all()
        assert np.isfinite(rigid.pos[: rigid.count]).all() and np.isfinite(rigid.angle[: rigid.count]).all()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"properties": props({"cloth": "x"})}, "map property cloth: expected a key of the level's settings"),
        ({"properties": props({"boxes": 3})}, "map property boxes: expected a key of the level's settings"),
        (
            {"tilesets": [{"firstgid": 1, "source": "/dev/zero"}]},
            "tilesets.0.source: expected a tileset or template file in the level's folder",
        ),
        (
            {"tilesets": [{"firstgid": 1, "source": "../../etc/passwd"}]},
            "in the level's folder, got '../../etc/passwd' (it lies outside)",
        ),
    ],
)
def test_a_map_cannot_replace_a_body_table_or_reach_outside_its_folder(
    tmp_path: Path, change: dict[str, Any], expected: str
) -> None:
    data = json.loads(EXAMPLE.read_text())
    data.update(change)
    (problem,) = problems_of(tmp_path, data)
    assert expected in problem


def test_a_template_outside_the_maps_folder_is_named_by_its_object(tmp_path: Path) -> None:
    data = json.loads(EXAMPLE.read_text())
    layer = next(layer for layer in data["layers"] if layer.get("objects"))
    obj = layer["objects"][0]
    obj["template"] = "../../etc/passwd"
    (problem,) = problems_of(tmp_path, data)
    assert f"map.tmj: object {obj['id']}" in problem
    assert "template: expected a tileset or template file in the level's folder" in problem
