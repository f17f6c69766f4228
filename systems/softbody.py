"""Pressure soft bodies: building a creature, and the systems that keep it round, upright and on its legs."""

from __future__ import annotations

import math

import esper
import numpy as np

from weft.components import CreatureLook, Legs, ParticleKind, Press, SoftBody, Stores
from weft.systems import world
from weft.systems.kernels.softbody import hold_perimeter, place_legs, press_out, relax_ring, turn_about
from weft.systems.schedule import Stage, Step, System
from weft.systems.world import by_entity

PUFFINESS = 1.5
"""Target area over the built circle's: more than any ring of that perimeter can enclose (the circle
is the most a perimeter can hold), so the pressure never rests and the skin stays taut."""

SMOOTHING = 0.3
"""Weight of the smoothing vote at each ring point, against 1 for an edge or the pressure."""

LEG_TONE = 0.05
"""Share of the way to the middle of its range a leg joint turns each substep: one standing pose."""

POKE_FRAMES = 12
"""How long a poke (Enter) presses the top of the head."""

POKE_DEPTH = 30.0
"""px a poke squashes the head down."""

POKE_REACH = 100.0
"""px: a poke is the press tool's finger, on the top of the head."""

LEGS = (
    # (angle of the root on the ring from the bottom, degrees (+: towards +x), length / radius,
    #  knee range from straight down, foot range from the upper segment), degrees; the outer
    #  two are longer and splay more
    (-34.0, 0.26, (-55.0, -25.0), (-10.0, 30.0)),
    (-10.0, 0.22, (-22.0, 4.0), (-10.0, 25.0)),
    (10.0, 0.22, (-4.0, 22.0), (-25.0, 10.0)),
    (34.0, 0.26, (25.0, 55.0), (-30.0, 10.0)),
)


def build_creature(
    stores: Stores,
    owner: int,
    *,
    name: str,
    center: tuple[float, float],
    radius: float,
    points: int = 16,
    rotation: float = 0.0,
    pressure: float = 0.2,
    upright: float = 0.04,
    look: CreatureLook | None = None,
) -> SoftBody:
    """Add a round creature of ``points`` ring points and four legs, turned ``rotation`` radians; return it.

    The ring is counter-clockwise from the right; the top of the head is a
    quarter of the way round. Its edges only pull, at the built spacing;
    the skin points' radius is half that spacing, so neighbouring beads
    touch and nothing slips between them.
    """
    angles = rotation + 2.0 * math.pi * np.arange(points) / points
    ring_pos = np.column_stack([center[0] + radius * np.cos(angles), center[1] + radius * np.sin(angles)])
    spacing = 2.0 * radius * math.sin(math.pi / points)
    bead = 0.5 * spacing
    added = stores.particles.add(ring_pos, 1.0, bead, owner, kind=ParticleKind.RING)
    ring = np.arange(added.start, added.stop, dtype=np.int64)
    legs = _build_legs(stores, owner, ring, center, radius, rotation)
    return SoftBody(
        name=name,
        ring=ring,
        rest=spacing,
        legs=legs,
        target_area=PUFFINESS * math.pi * radius * radius,
        rest_perimeter=points * spacing,
        pressure=pressure,
        head=points // 4,
        bead=bead,
        upright=upright,
        look=look or CreatureLook(),
    )


def _build_legs(
    stores: Stores, owner: int, ring: np.ndarray, center: tuple[float, float], radius: float, rotation: float
) -> Legs:
    """Four legs hanging straight down (in the body's frame) from roots between ring points at the bottom."""
    points = len(ring)
    step = 2.0 * math.pi / points
    root_a, root_b, root_t, lengths, knee_range, foot_range, joints = [], [], [], [], [], [], []
    thickness = 0.16 * radius
    for offset, share, knee, foot in LEGS:
        # counter-clockwise angle of the root, from the ring's first point; the bottom is three quarters round
        angle = (1.5 * math.pi + math.radians(offset)) % (2.0 * math.pi)
        a = int(angle // step)
        root_a.append(ring[a])
        root_b.append(ring[(a + 1) % points])
        root_t.append(angle / step - a)
        length = share * radius
        lengths.append(length)
        knee_range += [math.radians(knee[0]), math.radians(knee[1])]
        foot_range += [math.radians(foot[0]), math.radians(foot[1])]
        root = np.array([math.cos(angle + rotation), math.sin(angle + rotation)]) * radius + center
        down = np.array([math.sin(rotation), -math.cos(rotation)])
        joints.append((root + length * down, root + 2.0 * length * down))
    # radius 0 and placed along their chain each substep, which undoes any push: nothing holds legs out
    # of other things (a ball they meet is still pushed aside); they stand on the walls through the
    # body (see ``place_legs``)
    knees = stores.particles.add(np.array([k for k, _ in joints]), 1.0, 0.0, owner)
    feet = stores.particles.add(np.array([f for _, f in joints]), 1.0, 0.0, owner)
    return Legs(
        root_a=np.array(root_a, dtype=np.int64),
        root_b=np.array(root_b, dtype=np.int64),
        root_t=np.array(root_t),
        knee=np.arange(knees.start, knees.stop, dtype=np.int64),
        foot=np.arange(feet.start, feet.stop, dtype=np.int64),
        length=np.array(lengths),
        knee_range=np.array(knee_range),
        foot_range=np.array(foot_range),
        thickness=thickness,
    )


def head_line(pos: np.ndarray, body: SoftBody) -> tuple[float, float]:
    """Unit vector across the top of the head, from the point left of the top to the one right of it.

    It points along +x when the creature is upright; its tilt is what the
    upright correction undoes, and the legs and face turn with it.
    """
    m = len(body.ring)
    right = pos[body.ring[(body.head - 1) % m]]
    left = pos[body.ring[(body.head + 1) % m]]
    dx, dy = right - left
    length = math.hypot(dx, dy)
    return (dx / length, dy / length) if length > 1e-9 else (1.0, 0.0)


def poke_center(pos: np.ndarray, body: SoftBody, reach: float) -> tuple[float, float]:
    """Where a poke's finger is: above the top of the head, close enough to squash it ``POKE_DEPTH`` px."""
    ux, uy = head_line(pos, body)
    top = pos[body.ring[body.head]]
    up = (-uy, ux)
    lift = reach - POKE_DEPTH
    return (top[0] + lift * up[0], top[1] + lift * up[1])


class PressureSystem(System):
    """Relaxes every soft body's ring (edges and pressure, averaged), then lets the finger squash it.

    Runs every iteration: one Jacobi pass, the ring projected back onto its
    rest perimeter (so it meets obstacles at its true size, see
    ``PerimeterSystem``), then the finger: the press tool's, or a poke's
    (Enter). Records whether each body was pressed this frame: all its face
    knows.
    """

    name = "pressure"
    stage = Stage.ITERATION
    needs_particles = True
    after = ("distances",)
    before = ("bounds",)

    def __init__(self) -> None:
        self._pokes: dict[int, tuple[float, float]] = {}
        """Where each poke's finger came down, by entity, for as long as the poke lasts."""

    def idle(self, step: Step) -> bool:
        return not by_entity(SoftBody)

    def process(self, step: Step) -> None:
        bodies = by_entity(SoftBody)
        if not bodies:
            return
        particles = world.stores().particles
        fingers = [(press.center, press.reach) for _, press in by_entity(Press) if press.active]
        first = step.substep == 0 and step.iteration == 0
        for entity, body in bodies:
            if first:
                body.pressed = False
                if body.poke == POKE_FRAMES:
                    # the finger comes down once, over the head as it is then, and stays: placed anew
                    # every iteration it would follow the head down and push it through the body
                    self._pokes[entity] = poke_center(particles.pos, body, POKE_REACH)
                body.poke = max(0, body.poke - 1)
                if body.poke == 0:
                    self._pokes.pop(entity, None)
            relax_ring(
                particles.pos,
                particles.inv_mass,
                body.ring,
                body.rest,
                body.target_area,
                body.pressure,
                SMOOTHING,
            )
            hold_perimeter(particles.pos, particles.inv_mass, body.ring, body.rest_perimeter)
            touching = list(fingers)
            if entity in self._pokes:
                touching.append((self._pokes[entity], POKE_REACH))
            for (cx, cy), reach in touching:
                body.pressed |= press_out(
                    particles.pos, particles.inv_mass, body.ring, cx, cy, reach, body.bead
                )


class PerimeterSystem(System):
    """Projects every soft body's ring back onto its rest perimeter at the end of each substep.

    Averaged with the pressure, the pull-only edges give in a little: without
    the global projection the skin of a firm creature stretches by 2 to 30
    percent (measured). ``PressureSystem`` projects after every pass, or the
    ring would swell within the iterations, meet obstacles swollen and rest
    a few px away from them; this last projection takes back what the
    finger and the contacts stretched after it.
    """

    name = "perimeter"
    stage = Stage.SUBSTEP_END
    needs_particles = True
    before = ("legs", "contain", "tear")

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        for _, body in by_entity(SoftBody):
            hold_perimeter(particles.pos, particles.inv_mass, body.ring, body.rest_perimeter)


class UprightSystem(System):
    """Turns every creature a little towards upright each frame: 4% of the tilt of its head line.

    Positions and previous positions turn together about the ring's
    centre, so no velocity is made: a creature that rolled over slowly
    stands up, and its legs gather under it again.
    """

    name = "upright"
    stage = Stage.FRAME_END
    needs_particles = True
    before = ("metrics",)

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        for _, body in by_entity(SoftBody):
            ux, uy = head_line(particles.pos, body)
            tilt = math.atan2(uy, ux)
            center = particles.pos[body.ring].mean(axis=0)
            turn = -body.upright * tilt
            turn_about(particles.pos, particles.prev, body.particles, center[0], center[1], turn)


class LegsSystem(System):
    """Pulls each knee and foot back to one segment from its parent, within its angle limits; feet stand on
    the walls, so the body rests on its legs.

    At the end of every substep, not once a frame: the body falls a little
    every substep, and a support given less often than the fall lets it
    bounce on its legs (measured: at 6 substeps it hopped across the level).
    """

    name = "legs"
    stage = Stage.SUBSTEP_END
    needs_particles = True
    after = ("perimeter",)
    before = ("contain", "tear")

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        settings = world.settings()
        left, bottom, right, top = settings.walls
        for _, body in by_entity(SoftBody):
            ux, uy = head_line(particles.pos, body)
            legs = body.legs
            place_legs(
                particles.pos,
                particles.prev,
                body.ring,
                legs.root_a,
                legs.root_b,
                legs.root_t,
                legs.knee,
                legs.foot,
                legs.length,
                legs.knee_range,
                legs.foot_range,
                uy,
                -ux,
                0.5 * legs.thickness,
                left,
                bottom,
                right,
                top,
                settings.floor_friction,
                LEG_TONE,
            )


def poke_all() -> None:
    """Start a poke on every soft body of the active world (what Enter does)."""
    for _, body in esper.get_component(SoftBody):
        body.poke = POKE_FRAMES
