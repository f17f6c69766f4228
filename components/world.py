"""Components of the single world entity: settings, clock and the stores."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from weft.components.circles import Broadphase
from weft.components.distances import DistanceSides, DistanceStore
from weft.components.particles import ParticleStore
from weft.components.pins import PinStore
from weft.components.rigid import BoxGrid, ContactStore, NearBoxes, RigidSettings, RigidStore

FRAME_DT = 1.0 / 60.0
"""The fixed frame length in seconds; substeps divide it."""

AUTO_SUBSTEP_SPACING = 12.0
"""Below this particle spacing (px) a frame is split into substeps."""

MAX_AUTO_SUBSTEPS = 6

CIRCLE_SUBSTEPS = 6
"""Automatic substeps of a level with circles: 1/360 s steps keep fast circles from overshooting."""

REST_SPEED = 30.0
"""px/s: a circle meeting a wall slower than this does not bounce (resting circles must not hop)."""


@dataclass
class Wind:
    """A force along a direction with a little deterministic gusting: the level's ``[world.wind]``
    (its keys' units, ranges and defaults are the schema's, ``WindTable``), the direction in radians.

    ``strength`` is the mean force per unit mass in px/s²; ``gust`` the
    relative amplitude (0..1) of the smooth noise that ripples it over space and time.
    """

    enabled: bool
    strength: float
    direction: float
    gust: float

    @property
    def vector(self) -> tuple[float, float]:
        """The mean wind force per unit mass, or zero when off."""
        if not self.enabled:
            return (0.0, 0.0)
        return (self.strength * math.cos(self.direction), self.strength * math.sin(self.direction))


@dataclass
class WorldSettings:
    """Everything the level and the panel tune for the whole world; systems read it each frame.

    Made by ``weft.game.level.build.world_settings`` from the level's ``[world]`` table, whose
    schema (``World``) holds each key's unit, range, default and meaning; nothing here repeats them.
    ``damping`` is the Verlet velocity factor per 1/60 s frame (each of ``n``
    substeps applies ``damping ** (1/n)``, so changing substeps does not
    change the drag). ``substeps`` 0 means automatic (see ``resolved_substeps``).
    """

    gravity: tuple[float, float]
    damping: float
    iterations: int
    substeps: int
    bounds: tuple[float, float, float, float]
    floor_friction: float
    wind: Wind
    min_spacing: float
    """The finest cloth spacing, px (infinite without cloth): automatic substeps follow it."""
    circles: bool
    """Whether the level can hold circles (it has ball sets or the pour tool)."""
    ragdolls: bool
    """Whether the level has ragdolls: their joints collide like circles, and need their substeps."""
    restitution: float
    friction: float
    max_circles: int
    rigid: RigidSettings
    wall_offset: tuple[float, float] = (0.0, 0.0)
    """px the walls are displaced from ``bounds`` (the shake tool moves them)."""
    wall_velocity: tuple[float, float] = (0.0, 0.0)
    """px/s the walls move at: what they hit is bounced in their frame."""

    @property
    def walls(self) -> tuple[float, float, float, float]:
        """Where the walls are now: ``bounds`` moved by ``wall_offset``."""
        dx, dy = self.wall_offset
        left, bottom, right, top = self.bounds
        return (left + dx, bottom + dy, right + dx, top + dy)

    def resolved_substeps(self) -> int:
        """Substeps per frame: the set value, or automatic from the finest particle spacing.

        Automatic: 6 when the level has circles or ragdolls; otherwise one substep at
        spacings of 12 px and above, else ``ceil(12 / spacing)`` up to 6: a
        fine sheet falls further than its spacing in one 1/60 s step and its
        relaxation would lag behind.
        """
        if self.substeps > 0:
            return self.substeps
        if self.circles or self.ragdolls:
            return CIRCLE_SUBSTEPS
        if self.min_spacing >= AUTO_SUBSTEP_SPACING:
            return 1
        return min(MAX_AUTO_SUBSTEPS, math.ceil(AUTO_SUBSTEP_SPACING / self.min_spacing))


@dataclass
class Clock:
    """Frames stepped since the level was built; simulation time is ``frame * FRAME_DT``."""

    frame: int = 0


@dataclass
class Stores:
    """The structure-of-arrays buffers that hold every particle, constraint and box."""

    particles: ParticleStore = field(default_factory=ParticleStore)
    distances: DistanceStore = field(default_factory=DistanceStore)
    distance_sides: DistanceSides = field(default_factory=DistanceSides)
    pins: PinStore = field(default_factory=PinStore)
    broadphase: Broadphase = field(default_factory=Broadphase)
    rigid: RigidStore = field(default_factory=RigidStore)
    contacts: ContactStore = field(default_factory=ContactStore)
    box_grid: BoxGrid = field(default_factory=BoxGrid)
    near_boxes: NearBoxes = field(default_factory=NearBoxes)
