"""The level format: one pydantic model per TOML table.

Every field carries its unit and meaning in ``description``; the JSON schema
(``levels/level.schema.json``) and the key reference in ``docs/levels.md`` are
both generated from these models, so the three never disagree.
"""

from __future__ import annotations

import math
import typing
from typing import Annotated, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.fields import FieldInfo

from weft.budgets import BOXES, CONSTRAINTS, PARTICLES, SKIN_VERTICES, too_big
from weft.components import CORRECTIONS
from weft.game.level.problems import AtKey, model_at
from weft.game.level.skeletons import Skeleton
from weft.game.level.system_table import SystemTable
from weft.game.level.values import (
    SLIDER,
    Acceleration,
    Color,
    Coordinate,
    Rectangle,
    Size,
    Spin,
    Substeps,
    Table,
    Vec2,
    Velocity,
    slider,
    when,
)
from weft.systems.balls import lattice_capacity, packed_extent
from weft.systems.box_build import pyramid_centers, stack_centers
from weft.systems.softbody import LEGS, creature_extent

PATTERNS = ("gingham", "stripes", "checker", "plaid")
"""Procedural cloth patterns; a ``texture`` image replaces them."""

PIN_LAYOUTS = ("every", "ends", "top", "list", "none")

TOOLS = ("drag", "cut", "wind", "pour", "attract", "repel", "explode", "shake", "tilt", "press")
"""Every input tool, in hotkey order (1 to 9, then 0)."""

TUNABLES = (
    "gravity",
    "tilt",
    "wind",
    "wind_direction",
    "tear_ratio",
    "iterations",
    "substeps",
    "compliance",
    "pins",
    "shear",
    "bend",
    "pattern",
    "restitution",
    "friction",
    "strength",
    "radius",
    "sizes",
    "color_by",
    "box_iterations",
    "box_substeps",
    "correction",
    "slop",
    "percent",
    "box_friction",
    "sleeping",
)
"""Controls the panel can show, in the order it shows them."""

COLOR_MODES = ("size", "speed")


class LevelInfo(Table):
    """What the level is called and what it shows."""

    name: str = Field("Untitled", description="Title shown in the window and the level list.")
    description: str = Field("", description="One line saying what to try in this level.")


class WindTable(Table):
    """A force along a direction with deterministic gusts."""

    enabled: bool = Field(False, description="Whether the wind blows at the start (the W key toggles it).")
    strength: float = Field(
        400.0,
        ge=0.0,
        le=5000.0,
        description="Mean force per unit mass, px/s².",
        json_schema_extra=slider(0.0, 3000.0),
    )
    direction_deg: float = Field(
        0.0,
        ge=-360.0,
        le=360.0,
        description="Direction the wind blows towards, degrees (0 = +x, 90 = up).",
        json_schema_extra=slider(-180.0, 180.0),
    )
    gust: float = Field(
        0.35,
        ge=0.0,
        le=1.0,
        description="Relative amplitude of the gusts that ripple the cloth (0 = steady).",
    )


class RigidTable(Table):
    """How rigid boxes are solved (the [world.rigid] table)."""

    correction: Literal[CORRECTIONS] = Field(
        "soft",
        description='How overlap is removed: "soft" (substepped soft step: stiff damped contacts, then '
        'a relax pass; tall stacks stand), or sequential impulses with "baumgarte" (a velocity bias), '
        '"split" (a separate position pass) or "none" (boxes sink in and stay).',
    )
    substeps: int = Field(
        4,
        ge=1,
        le=32,
        description="Solver substeps per 1/60 s frame (at least one per particle substep).",
        json_schema_extra=slider(1, 16),
    )
    iterations: int = Field(
        2,
        ge=1,
        le=100,
        description="Solver passes per substep: more stand steadier and settle sooner (and cost more).",
        json_schema_extra=slider(1, 20),
    )
    slop: float = Field(
        0.4,
        ge=0.0,
        le=10.0,
        description='Overlap left alone, px: resting boxes settle this deep ("baumgarte", "split"; the '
        "soft step needs none).",
        json_schema_extra=slider(0.0, 2.0),
    )
    percent: float = Field(
        0.2,
        ge=0.05,
        le=1.0,
        description="Share of the overlap beyond the slop removed per 1/60 s frame, however many "
        'substeps ("baumgarte", "split").',
    )
    contact_hertz: float = Field(
        30.0,
        ge=1.0,
        le=240.0,
        description='Stiffness of the soft contacts, Hz ("soft"); below 1 Hz a contact would take longer '
        "than a second to push back, and its coefficients lose all precision.",
    )
    damping_ratio: float = Field(
        10.0, ge=0.0, le=100.0, description='Damping of the soft contacts (1 is critical) ("soft").'
    )
    push_speed: float = Field(
        120.0,
        ge=1.0,
        le=10000.0,
        description='Fastest overlapping boxes are pushed apart, px/s ("soft", "baumgarte").',
    )
    sleeping: bool = Field(True, description="Whether boxes at rest fall asleep (and cost nothing).")
    sleep_speed: float = Field(
        2.0, ge=0.0, le=1000.0, description="px/s under which a box (its corners too) counts as at rest."
    )
    sleep_delay: float = Field(
        0.5, ge=0.0, le=60.0, description="Seconds a group of touching boxes must rest before it sleeps."
    )


class World(Table):
    """Settings of the whole simulation."""

    gravity: Acceleration = Field([0.0, -980.0], description="Acceleration [x, y], px/s² (y up).")
    damping: float = Field(
        0.99,
        gt=0.0,
        le=1.0,
        description="Verlet velocity kept per 1/60 s frame (1 = no air drag).",
    )
    iterations: int = Field(
        20,
        ge=1,
        le=200,
        description="Relaxation passes per substep: the stiffness of rigid threads "
        "(2 is saggy and rubbery, 40 and more almost inextensible). A level of circles without "
        "cloth defaults to 2 (contacts converge over the 6 substeps), one of boxes alone to 1 "
        "(boxes have their own, in [world.rigid]).",
        json_schema_extra=slider(1, 80),
    )
    substeps: Substeps = Field(
        "auto",
        description='Steps per 1/60 s frame (1 to 16), or "auto": 6 in a level with circles or ragdolls, '
        "else 1 at particle spacings of 12 px and more, else ceil(12 / spacing) up to 6.",
    )
    bounds: Rectangle = Field(
        [0.0, 0.0, 1280.0, 720.0],
        description="The level's rectangle [left, bottom, right, top], px; also the window size.",
    )
    floor_friction: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Share of horizontal velocity a particle on the floor loses each substep.",
    )
    background: Color = Field("#1b1f2a", description='Window background colour, "#rrggbb" or [r, g, b].')
    restitution: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Share of its speed a circle keeps off a wall; without air drag a drop rises to e² of "
        "its height (`damping` takes more: at 0.99 a 300 px drop at 0.6 rises to 22%, as the panel says).",
    )
    friction: float = Field(
        0.0,
        ge=0.0,
        le=2.0,
        description="Coulomb friction of circles on circles and on walls: 0 flows like water, 0.5 piles up.",
        json_schema_extra=slider(0.0, 1.5),
    )
    max_circles: int = Field(
        6000, ge=0, le=50000, description="Most circles the level may hold (pouring stops there)."
    )
    wind: WindTable = Field(default_factory=WindTable, description="See [world.wind].")
    rigid: RigidTable = Field(default_factory=RigidTable, description="See [world.rigid].")

    @field_validator("bounds")
    @classmethod
    def _bounds_not_empty(cls, value: list[float]) -> list[float]:
        left, bottom, right, top = value
        if right - left < 64.0 or top - bottom < 64.0:
            raise ValueError(f"expected [left, bottom, right, top] at least 64 px wide and tall, got {value}")
        if right - left > 8192.0 or top - bottom > 8192.0:
            raise ValueError(f"expected a rectangle at most 8192 px wide and tall, got {value}")
        return value


class PinsTable(Table):
    """Which points of a cloth are held in place (a `pins` table inside a [[cloth]])."""

    layout: Literal["every", "ends", "top", "list", "none"] = Field(
        "every",
        description='"every": every N-th point of the top row (corners included); "ends": the two top '
        'corners; "top": the whole top row; "list": the points in `points`; "none": nothing.',
    )
    every: int = Field(4, ge=1, le=1000, description='N for layout "every".')
    points: list[Annotated[list[Annotated[int, Field(ge=0)]], Field(min_length=2, max_length=2)]] = Field(
        [], description='[column, row] pairs for layout "list"; row 0 is the top row.'
    )
    anchors: list[Vec2] = Field(
        [],
        description='For layout "list": where to hold each point [x, y], px, one per point (default: '
        "where the sheet is built). Anchors closer together than the sheet is wide make it hang slack.",
    )

    @model_validator(mode="after")
    def _one_anchor_per_point(self) -> PinsTable:
        if self.anchors and len(self.anchors) != len(self.points):
            raise AtKey(
                "anchors", f"expected one [x, y] per point ({len(self.points)}), got {len(self.anchors)}"
            )
        return self


class Cloth(Table):
    """A tearable sheet of points and threads."""

    name: str = Field("cloth", description="Name of the sheet in state files and `--set` keys.")
    origin: Vec2 = Field([190.0, 660.0], description="Position of the top-left point [x, y], px.")
    cols: int = Field(70, ge=1, le=400, description="Points across (1 and a few rows make a hanging rope).")
    rows: int = Field(45, ge=1, le=400, description="Points down (1 row makes a rope).")
    spacing: float = Field(
        13.0, ge=2.0, le=200.0, description="Rest distance between neighbouring points, px."
    )
    # the floor keeps wind force × inverse mass far from overflow
    mass: float = Field(
        1.0, ge=0.001, le=1000.0, description="Mass of each point (wind pushes light cloth further)."
    )
    thickness: float = Field(
        2.0,
        ge=0.0,
        le=50.0,
        description="Thickness, px: points keep half of it from the walls, and from circles and creatures, "
        "which meet the sheet at its points only: a sheet to catch them needs a thickness near its "
        "spacing (hammock.toml: 8 at 12 px; at 2 a falling creature passes between the points).",
    )
    pins: PinsTable = Field(default_factory=PinsTable, description="See the pins table.")
    tearable: bool = Field(True, description="Whether overloaded threads break.")
    tear_ratio: float = Field(
        2.6,
        ge=1.05,
        le=100.0,
        description="A thread breaks when longer than tear_ratio × its rest length.",
        json_schema_extra=slider(1.2, 6.0),
    )
    compliance: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="XPBD compliance (inverse stiffness) of every thread, px/(unit force); "
        "0 is rigid. Above 0 the softness no longer depends on iterations. With points of mass 1 "
        "the useful range is 1e-5 (barely soft) to 1e-3 (a sheet 20 points tall stretches to the floor).",
    )
    shear: bool = Field(False, description="Add hidden diagonal threads that resist shearing.")
    bend: bool = Field(False, description="Add hidden skip-one threads that resist folding.")
    pattern: Literal["gingham", "stripes", "checker", "plaid"] = Field(
        "gingham", description="Procedural pattern drawn on the sheet."
    )
    pattern_size: float = Field(
        52.0, ge=4.0, le=2000.0, description="Size of one repeat of the pattern on the sheet at rest, px."
    )
    texture: str | None = Field(
        None,
        description="Image file (PNG or JPEG) stretched over the sheet, relative to the level file; "
        "replaces the pattern.",
    )
    colors: list[Color] = Field(
        ["#c8553d", "#f2e9dc", "#2d4159"],
        min_length=2,
        max_length=4,
        description='Two to four colours of the pattern, each "#rrggbb" or [r, g, b].',
    )

    @property
    def structural_tear_ratio(self) -> float:
        """What the sheet's structural threads tear at: ``tear_ratio``, or infinity (never) when the
        sheet is not ``tearable``; the building and the in-place tuning of a sheet both read it."""
        return self.tear_ratio if self.tearable else math.inf

    @model_validator(mode="after")
    def _pins_on_the_sheet(self) -> Cloth:
        if self.cols * self.rows < 2:
            raise AtKey("cols", f"expected at least 2 points in all, got {self.cols} × {self.rows}")
        for k, (col, row) in enumerate(self.pins.points):
            if col >= self.cols or row >= self.rows:
                raise AtKey(
                    f"pins.points.{k}",
                    f"expected a [column, row] inside the {self.cols} × {self.rows} sheet, "
                    f"got [{col}, {row}]",
                )
        return self


Range = Annotated[list[Annotated[float, Field(ge=0.5, le=100.0)]], Field(min_length=2, max_length=2)]


class Balls(Table):
    """A set of circles, packed into a rectangle at the start."""

    name: str = Field("balls", description="Name of the set in state files.")
    count: int = Field(1000, ge=0, le=50000, description="How many circles.")
    radius: Range = Field(
        [4.0, 7.0], description="Smallest and largest radius [min, max], px; uniform between."
    )
    region: Rectangle = Field(
        [40.0, 40.0, 1240.0, 680.0],
        description="Rectangle [left, bottom, right, top], px, filled row by row from the bottom; inside the "
        "world's `bounds`.",
    )
    seed: int = Field(
        1, ge=0, description="Seed of the sizes and of the small jitter of the starting lattice."
    )
    positions: list[Vec2] = Field(
        [],
        max_length=50000,
        description="Centres [[x, y], ...], px, instead of count and region: one circle at each, inside the "
        "world's `bounds`.",
    )
    fixed: bool = Field(False, description="Whether the circles never move: obstacles for everything else.")

    @model_validator(mode="after")
    def _fits(self) -> Balls:
        low, high = self.radius
        if low > high:
            raise AtKey("radius", f"expected [min, max] with min <= max, got {self.radius}")
        if self.positions:
            return self
        left, bottom, right, top = self.region
        if right - left < 2 * high or top - bottom < 2 * high:
            raise AtKey(
                "region", f"expected a rectangle at least one circle wide and tall, got {self.region}"
            )
        room = lattice_capacity(high, (left, bottom, right, top))
        if self.count > room:
            raise AtKey(
                "count",
                f"expected at most {room} circles of radius {high} in region {self.region}, got {self.count}",
            )
        return self


class Creature(Table):
    """A round creature with four short legs: a ring of points kept inflated by pressure."""

    name: str = Field("creature", description="Name of the creature in state files.")
    center: Vec2 = Field(
        [640.0, 200.0],
        description="Where its body's centre starts [x, y], px; its skin and feet must start inside the "
        "world's `bounds`.",
    )
    radius: float = Field(60.0, ge=15.0, le=300.0, description="Radius of the body as built, px.")
    points: int = Field(16, ge=8, le=64, description="Points in the body's ring.")
    rotation_deg: float = Field(
        0.0,
        ge=-360.0,
        le=360.0,
        description="How it starts turned, degrees counter-clockwise (180: upside down).",
    )
    pressure: float = Field(
        0.2,
        ge=0.001,
        le=1.0,
        description="Share of the area deficit pushed outward each iteration: how hard it is inflated.",
    )
    upright: float = Field(
        0.04, ge=0.0, le=1.0, description="Share of its tilt it turns back towards upright each frame."
    )
    body_color: Color = Field("#f6b26b", description="Body colour.")
    shade_color: Color = Field("#d68454", description="Colour of the shadow band along the lower right.")
    outline_color: Color = Field("#3a262a", description="Outline, legs' outline and face colour.")
    cheek_color: Color = Field("#f07878c8", description="Cheeks.")


BOX_LAYOUTS = ("stack", "pyramid", "list")

MAX_BOXES = BOXES


class Boxes(Table):
    """A set of rigid boxes of one size: a stack, a pyramid, or boxes placed one by one."""

    model_config = ConfigDict(
        json_schema_extra=when(
            "layout", "list", {"required": ["positions"], "properties": {"positions": {"minItems": 1}}}
        )
    )

    name: str = Field("boxes", description="Name of the set in state files.")
    layout: Literal[BOX_LAYOUTS] = Field(
        "stack",
        description='"stack": `count` boxes one above the other; "pyramid": `count` boxes in the '
        'bottom layer, one fewer on each layer up; "list": one box at each of `positions`.',
    )
    size: Size = Field([40.0, 40.0], description="Width and height of each box [w, h], px.")
    base: Vec2 = Field(
        [640.0, 0.0],
        description="Bottom middle of the stack or pyramid [x, y], px (the floor is y = 0); every box's "
        "centre inside the world's `bounds`.",
    )
    count: int = Field(
        5, ge=1, le=MAX_BOXES, description="Boxes in the stack, or in the pyramid's bottom layer."
    )
    gap: float = Field(
        0.0,
        ge=0.0,
        le=1000.0,
        description="px between boxes: above each other in a stack (they drop into place), side by side "
        "in a pyramid.",
    )
    offsets: list[Coordinate] = Field(
        [], description="Sideways shift of each box of a stack, px, used in turn (e.g. [0, 3, -2])."
    )
    positions: list[Vec2] = Field(
        [],
        max_length=MAX_BOXES,
        description='Centres [[x, y], ...], px ("list"), inside the world\'s `bounds`.',
    )
    angles_deg: list[Annotated[float, Field(ge=-3600.0, le=3600.0)]] = Field(
        [], description='Angle of each box of `positions`, degrees counter-clockwise ("list"; default 0).'
    )
    sizes: list[Size] = Field(
        [],
        max_length=MAX_BOXES,
        description='Size [w, h] of each box of `positions`, px ("list"; default `size`).',
    )
    velocity: Velocity = Field([0.0, 0.0], description="Velocity every box starts with [x, y], px/s.")
    velocities: list[Velocity] = Field(
        [],
        max_length=MAX_BOXES,
        description='Velocity of each box of `positions`, px/s ("list"; default `velocity`).',
    )
    spin: Spin = Field(0.0, description="Spin every box starts with, degrees/s counter-clockwise.")
    spins: list[Spin] = Field(
        [],
        max_length=MAX_BOXES,
        description='Spin of each box of `positions`, degrees/s ("list"; default `spin`).',
    )
    density: float = Field(
        1.0,
        ge=0.001,
        le=1000.0,
        description="Mass per area; 1 weighs as much as circles of the same area (a subnormal density "
        "would give infinite inverse masses: 0.001 is the lightest).",
    )
    friction: float = Field(
        0.6,
        ge=0.0,
        le=2.0,
        description="Coulomb friction (a pair of boxes uses the geometric mean; walls and particles "
        "take the box's own).",
        json_schema_extra=slider(0.0, 1.5),
    )
    restitution: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="Bounciness: the share of an impact's speed a box leaves with (a pair takes the larger; "
        "0.5 rebounds to a quarter of the height). Slow touches never bounce.",
    )
    fixed: bool = Field(False, description="Whether the boxes never move: platforms and obstacles.")
    iterations: int | None = Field(
        None,
        ge=1,
        le=100,
        description="Solver passes for this set's contacts instead of [world.rigid] iterations.",
    )
    colors: list[Color] = Field(
        ["#d6a25c", "#c98b4a", "#e0b877"],
        min_length=1,
        max_length=8,
        description="Fill colours, given to the boxes in turn.",
    )

    @model_validator(mode="after")
    def _layout_is_complete(self) -> Boxes:
        if self.layout == "list" and not self.positions:
            raise AtKey("positions", 'expected at least one [x, y] for layout "list", got none')
        for key in ("angles_deg", "sizes", "velocities", "spins"):
            given = len(getattr(self, key))
            if given and given != len(self.positions):
                raise AtKey(key, f"expected one per position ({len(self.positions)}), got {given}")
        if self.layout == "pyramid" and self.count * (self.count + 1) // 2 > MAX_BOXES:
            raise AtKey(
                "count",
                f"expected a pyramid of at most {MAX_BOXES} boxes, got {self.count * (self.count + 1) // 2}",
            )
        return self


class ToolsTable(Table):
    """Which input tools the level offers, and how strong they are."""

    available: list[Literal[TOOLS]] = Field(
        ["drag", "cut", "wind"],
        description="Tools the player can pick: " + ", ".join(TOOLS) + " (none: the left button does "
        "nothing, for a level that only shows something).",
    )
    start: Literal[TOOLS] = Field("drag", description="Tool selected when the level starts.")
    strength: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="How hard attract, repel, explode and shake act, 0 to 1 of their maximum "
        "(15000 px/s², 6000 px/s, 40 px of swing; for a circle of radius 5 at the cursor: a box catches "
        "them across its width, as that many such circles side by side would).",
    )
    radius: float = Field(
        150.0,
        ge=10.0,
        le=1000.0,
        description="Reach of attract, repel and explode, px.",
        json_schema_extra=slider(20.0, 600.0),
    )
    sizes: Range = Field(
        [4.0, 8.0], description="Smallest and largest radius of poured circles [min, max], px."
    )
    pour_rate: float = Field(
        4.0, ge=0.01, le=50.0, description="Circles poured per frame while the button is held."
    )
    seed: int = Field(7, ge=0, description="Seed of the poured circles' sizes and spread.")

    @model_validator(mode="after")
    def _start_is_available(self) -> ToolsTable:
        if self.available and self.start not in self.available:
            raise AtKey("start", f"expected one of the available tools {self.available}, got {self.start!r}")
        if self.sizes[0] > self.sizes[1]:
            raise AtKey("sizes", f"expected [min, max] with min <= max, got {self.sizes}")
        return self


class ViewTable(Table):
    """How the world is drawn."""

    color_by: Literal[COLOR_MODES] = Field(
        "size", description='Circle colours: "size" (small to large) or "speed" (still to fast).'
    )
    palette: list[Color] = Field(
        ["#3a86ff", "#8ac926", "#ffca3a", "#ff595e"],
        min_length=2,
        max_length=8,
        description="Colour ramp for the circles, from small (or still) to large (or fast).",
    )


class PanelTable(Table):
    """Which controls the tuning panel shows."""

    show: list[Literal[TUNABLES]] = Field(
        [
            "gravity",
            "wind",
            "wind_direction",
            "tear_ratio",
            "iterations",
            "compliance",
            "pins",
            "shear",
            "bend",
            "pattern",
        ],
        description="Controls shown in the panel, in order; any of: " + ", ".join(TUNABLES) + ".",
    )
    open: bool = Field(True, description="Whether the panel is open when the level starts (P toggles it).")


class Level(Table):
    """A whole level file."""

    level: LevelInfo = Field(default_factory=LevelInfo, description="See [level].")
    world: World = Field(default_factory=World, description="See [world].")
    cloth: list[Cloth] = Field([], description="Cloth sheets, each a [[cloth]] table.")
    balls: list[Balls] = Field([], description="Sets of circles, each a [[balls]] table.")
    creature: list[Creature] = Field([], description="Soft-body creatures, each a [[creature]] table.")
    boxes: list[Boxes] = Field([], description="Sets of rigid boxes, each a [[boxes]] table.")
    skeleton: list[Skeleton] = Field(
        [], description="Skinned characters (ragdolls or keyframed), each a [[skeleton]] table."
    )
    system: list[SystemTable] = Field(
        [], description="Custom systems added to the schedule, each a [[system]] table (docs/extending.md)."
    )
    tools: ToolsTable = Field(default_factory=ToolsTable, description="See [tools].")
    panel: PanelTable = Field(default_factory=PanelTable, description="See [panel].")
    view: ViewTable = Field(default_factory=ViewTable, description="See [view].")

    @model_validator(mode="after")
    def _names_are_unique(self) -> Level:
        seen: set[str] = {"poured"}  # the set poured circles join
        bodies = [("cloth", k, body.name) for k, body in enumerate(self.cloth)]
        bodies += [("balls", k, body.name) for k, body in enumerate(self.balls)]
        bodies += [("creature", k, body.name) for k, body in enumerate(self.creature)]
        bodies += [("boxes", k, body.name) for k, body in enumerate(self.boxes)]
        bodies += [("skeleton", k, body.name) for k, body in enumerate(self.skeleton)]
        for table, k, name in bodies:
            if name in seen:
                raise AtKey(f"{table}.{k}.name", f"expected a name no other body uses, got {name!r}")
            seen.add(name)
        return self

    @model_validator(mode="after")
    def _fits_the_budgets(self) -> Level:
        """Totals over all tables, so that 100 tables of the largest cloth are refused as one is not."""
        tallies: dict[str, list[tuple[str, int]]] = {"particles": [], "threads": [], "boxes": [], "skin": []}
        for k, cloth in enumerate(self.cloth):
            tallies["particles"].append((f"cloth.{k}", cloth.cols * cloth.rows))
            tallies["threads"].append((f"cloth.{k}", cloth_threads(cloth)))
        for k, balls in enumerate(self.balls):
            tallies["particles"].append((f"balls.{k}", len(balls.positions) or balls.count))
        for k, creature in enumerate(self.creature):
            tallies["particles"].append((f"creature.{k}", creature.points + 2 * len(LEGS)))
        for k, boxes in enumerate(self.boxes):
            tallies["boxes"].append((f"boxes.{k}", box_count(boxes)))
        for k, body in enumerate(self.skeleton):
            tallies["particles"].append((f"skeleton.{k}", len(body.joints)))
            skin = body.skin
            vertices = len(skin.vertices) or (skin.grid[0] + 1) * (skin.grid[1] + 1)
            tallies["skin"].append((f"skeleton.{k}.skin", vertices))
        budgets = {
            "particles": (PARTICLES, "particles (cloth points, circles, creature and skeleton joints)"),
            "threads": (CONSTRAINTS, "cloth threads (structural, shear and bend)"),
            "boxes": (BOXES, "boxes"),
            "skin": (SKIN_VERTICES, "skin mesh vertices"),
        }
        for kind, entries in tallies.items():
            budget, what = budgets[kind]
            total = 0
            for key, count in entries:
                total += count
                if total > budget:
                    raise AtKey(key, f"{too_big(total, budget, what)} (counting up to this table)")
        return self

    @model_validator(mode="after")
    def _bodies_start_inside_the_world(self) -> Level:
        for kind in ("cloth", "creature", "balls", "boxes", "skeleton"):
            for k, table in enumerate(getattr(self, kind)):
                problem = outside_world(table, self.world.bounds)
                if problem:
                    key, message = problem
                    raise AtKey(f"{kind}.{k}.{key}", message)
        return self

    @model_validator(mode="after")
    def _circles_fit_the_cap(self) -> Level:
        total = sum(len(balls.positions) or balls.count for balls in self.balls)
        if total > self.world.max_circles:
            raise AtKey(
                "world.max_circles",
                f"expected room for the level's {total} circles, got {self.world.max_circles}",
            )
        return self


def outside_world(
    table: Cloth | Creature | Balls | Boxes | Skeleton, bounds: list[float] | tuple[float, ...]
) -> tuple[str, str] | None:
    """The key (within the table) and what is wrong when a sheet, a creature, a set of circles or of
    boxes does not start inside the world ``bounds``, else None: a level's rule, which
    ``Physics.add`` applies to all but sheets too (built through a wall, a creature is fired off by
    it, circles pile along it, a box with its centre outside is never brought in; a sheet added in
    code is brought in whole by the walls, and let in)."""
    if isinstance(table, Cloth):
        return sheet_outside(table, bounds)
    if isinstance(table, Creature):
        problem = creature_outside(table, bounds)
        return None if problem is None else ("center", problem)
    if isinstance(table, Boxes):
        return boxes_outside(table, bounds)
    if isinstance(table, Skeleton):
        return joints_outside(table, bounds)
    return balls_outside(table, bounds)


def joints_outside(skeleton: Skeleton, bounds: list[float] | tuple[float, ...]) -> tuple[str, str] | None:
    """The key and what is wrong when a skeleton's joint (``position`` + its ``at``) lies outside
    ``bounds``, else None: a ragdoll's joints are particles the walls would squash against them, and a
    clip's bones would move where nothing can reach them."""
    left, bottom, right, top = bounds
    x0, y0 = skeleton.position
    for k, joint in enumerate(skeleton.joints):
        x, y = x0 + joint.at[0], y0 + joint.at[1]
        if not (left <= x <= right and bottom <= y <= top):
            world = f"the world [{left:g}, {bottom:g}, {right:g}, {top:g}]"
            return f"joints.{k}.at", (
                f"expected a joint inside {world} (with `position` {[x0, y0]}), got {joint.name!r} at "
                f"({x:g}, {y:g})"
            )
    return None


def box_centers(boxes: Boxes) -> npt.NDArray[np.float64]:
    """Where a ``[[boxes]]`` table puts its boxes' centres, ``(n, 2)`` px."""
    size = (boxes.size[0], boxes.size[1])
    base = (boxes.base[0], boxes.base[1])
    if boxes.layout == "stack":
        return stack_centers(boxes.count, size, base, boxes.gap, boxes.offsets)
    if boxes.layout == "pyramid":
        return pyramid_centers(boxes.count, size, base, boxes.gap)
    return np.array(boxes.positions, dtype=np.float64).reshape(-1, 2)


def boxes_outside(boxes: Boxes, bounds: list[float] | tuple[float, ...]) -> tuple[str, str] | None:
    """The key and what is wrong when a box's centre lies outside ``bounds``, else None."""
    left, bottom, right, top = bounds
    centers = box_centers(boxes)
    x, y = centers[:, 0], centers[:, 1]
    outside = np.flatnonzero((x < left) | (x > right) | (y < bottom) | (y > top))
    if len(outside) == 0:
        return None
    k = int(outside[0])
    key = f"positions.{k}" if boxes.layout == "list" else "base"
    world = f"the world [{left:g}, {bottom:g}, {right:g}, {top:g}]"
    return key, f"expected the boxes' centres inside {world}, got box {k}'s at ({x[k]:g}, {y[k]:g})"


def sheet_outside(cloth: Cloth, bounds: list[float] | tuple[float, ...]) -> tuple[str, str] | None:
    """The key and what is wrong when ``cloth``'s points or pins' anchors are not inside ``bounds``
    less half the thread's thickness, else None."""
    left, bottom, right, top = bounds
    r = cloth.thickness / 2.0
    x0, y0, x1, y1 = sheet_extent(cloth)
    where = f"the world's bounds {list(bounds)} (less half the thickness, {r:g} px)"
    if not (left + r <= x0 <= right - r and bottom + r <= y1 <= top - r):
        return "origin", f"expected a top-left point inside {where}, got {cloth.origin}"
    if x1 > right - r:
        return "cols", (
            f"expected a sheet inside {where}, got {cloth.cols} columns {cloth.spacing:g} px apart "
            f"from x = {x0:g}, reaching x = {x1:g}"
        )
    if y0 < bottom + r:
        return "rows", (
            f"expected a sheet inside {where}, got {cloth.rows} rows {cloth.spacing:g} px apart "
            f"from y = {y1:g}, reaching y = {y0:g}"
        )
    for n, (x, y) in enumerate(cloth.pins.anchors):
        if not (left + r <= x <= right - r and bottom + r <= y <= top - r):
            return f"pins.anchors.{n}", f"expected an anchor inside {where}, got {[x, y]}"
    return None


def balls_outside(balls: Balls, bounds: list[float] | tuple[float, ...]) -> tuple[str, str] | None:
    """The key and what is wrong when ``balls`` do not start inside the world ``bounds``, else None:
    each centre given, or the rows of ``region`` its circles fill (not the whole region: the default
    one is wider than a small world, which a few circles at its bottom left still fit).

    Circles made outside the walls are all pushed onto them at once, piled along an edge (a region
    beyond the world took a frame of 1280 x 720 circles from 3 to 25 ms at its 95th percentile).
    """
    left, bottom, right, top = bounds
    world = f"the world [{left:g}, {bottom:g}, {right:g}, {top:g}]"
    for n, (x, y) in enumerate(balls.positions):
        if not (left <= x <= right and bottom <= y <= top):
            return f"positions.{n}", f"expected a centre inside {world}, got {[x, y]}"
    if balls.positions or balls.count == 0:
        return None
    x0, y0, x1, y1 = packed_extent(balls.count, balls.radius[1], tuple(balls.region))
    if left <= x0 and x1 <= right and bottom <= y0 and y1 <= top:
        return None
    return "region", (
        f"expected circles inside {world}, got {balls.count} of radius up to {balls.radius[1]:g} packed "
        f"into region {balls.region} from its bottom left, reaching x {x0:.0f} to {x1:.0f}, "
        f"y {y0:.0f} to {y1:.0f}"
    )


def creature_outside(creature: Creature, bounds: list[float] | tuple[float, ...]) -> str | None:
    """What is wrong when ``creature`` does not start inside the world ``bounds``, else None.

    A creature built through a wall is pushed out by it at once, and flies (one touching the
    ceiling was fired down at 1064 px/s): its skin and feet must start inside.
    """
    left, bottom, right, top = bounds
    x0, y0, x1, y1 = creature_extent(
        (creature.center[0], creature.center[1]),
        creature.radius,
        creature.points,
        math.radians(creature.rotation_deg),
    )
    if x0 >= left and y0 >= bottom and x1 <= right and y1 <= top:
        return None
    return (
        f"expected a creature inside the world [{left:g}, {bottom:g}, {right:g}, {top:g}] "
        f"(radius {creature.radius:g} px, skin and feet reach x {x0:.0f} to {x1:.0f}, "
        f"y {y0:.0f} to {y1:.0f}), got center {list(creature.center)}"
    )


def cloth_threads(cloth: Cloth) -> int:
    """Distance constraints a sheet is built with (``weft.systems.cloth.build_cloth``)."""
    cols, rows = cloth.cols, cloth.rows
    threads = (cols - 1) * rows + cols * (rows - 1)
    if cloth.shear:
        threads += 2 * (cols - 1) * (rows - 1)
    if cloth.bend:
        threads += max(cols - 2, 0) * rows + cols * max(rows - 2, 0)
    return threads


def sheet_extent(cloth: Cloth) -> tuple[float, float, float, float]:
    """The rectangle ``(left, bottom, right, top)``, px, of a sheet's points as built."""
    x, y = cloth.origin
    return (x, y - (cloth.rows - 1) * cloth.spacing, x + (cloth.cols - 1) * cloth.spacing, y)


def box_count(boxes: Boxes) -> int:
    """Boxes a set is built with."""
    if boxes.layout == "list":
        return len(boxes.positions)
    if boxes.layout == "pyramid":
        return boxes.count * (boxes.count + 1) // 2
    return boxes.count


Spec = Cloth | Balls | Boxes | Creature | Skeleton
"""A body's spec: the table of a level that describes one body (``physics.add`` takes any of them)."""

SPECS = (Cloth, Balls, Boxes, Creature, Skeleton)


def field_at(key: str) -> FieldInfo:
    """The schema's field of level key ``key`` (``"world.rigid.iterations"``, ``"cloth.tear_ratio"``: a
    table of bodies stands for each of them); ``KeyError`` if there is no such key."""
    *tables, name = (part for part in key.split(".") if not part.isdigit())
    model: type[BaseModel] = Level
    for table in tables:
        inner = model_at((table,), model) or model_at((table, 0), model)
        if inner is None:
            raise KeyError(key)
        model = inner
    if name not in model.model_fields:
        raise KeyError(key)
    return model.model_fields[name]


def number_range(field: FieldInfo) -> tuple[float, float]:
    """The bounds the schema puts on a number field, strict or not (infinite where it puts none); for a
    number-or-word such as ``substeps``, the number's."""
    bounds = list(field.metadata)
    for option in typing.get_args(field.annotation):  # Annotated numbers inside a union
        if typing.get_origin(option) is Annotated:
            bounds += [b for info in typing.get_args(option)[1:] for b in getattr(info, "metadata", [])]
    low, high = -math.inf, math.inf
    for bound in bounds:
        for name in ("ge", "gt"):
            if getattr(bound, name, None) is not None:
                low = max(low, getattr(bound, name))
        for name in ("le", "lt"):
            if getattr(bound, name, None) is not None:
                high = min(high, getattr(bound, name))
    return low, high


def slider_span(key: str) -> tuple[float, float]:
    """What a panel slider for level key ``key`` spans: the key's ``slider`` if it gives one, else its
    whole range."""
    field = field_at(key)
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    span = extra.get(SLIDER)
    if isinstance(span, list):
        return float(span[0]), float(span[1])
    low, high = number_range(field)
    return float(low), float(high)
