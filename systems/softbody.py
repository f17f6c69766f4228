"""Pressure soft bodies: building a creature, and the systems that keep it round, upright and on its legs."""

from __future__ import annotations

import math

import esper
import numpy as np

from weft.components import FRAME_DT, CreatureLook, Legs, ParticleKind, Press, SoftBody, Stores
from weft.systems import world
from weft.systems.kernels.softbody import (
    hold_perimeter,
    part_rings,
    place_legs,
    press_out,
    relax_ring,
    ring_area,
    set_spin,
)
from weft.systems.queries import fixed_particles
from weft.systems.schedule import Step, System
from weft.systems.world import by_entity

PUFFINESS = 1.5
"""Target area over the built circle's: more than any ring of that perimeter can enclose (the circle
is the most a perimeter can hold), so the pressure never rests and the skin stays taut."""

SMOOTHING = 0.3
"""Weight of the smoothing vote at each ring point, against 1 for an edge or the pressure."""

LEG_TONE = 0.05
"""Share of the way to the middle of its range a leg joint turns each substep: one standing pose."""

FINGER_SPEED = 120.0
"""px/s: the fastest the press tool's finger moves while it touches skin (through the air it keeps up
with the cursor). A kinematic body carries what it pushes at its own speed, so this bounds how fast a
press can leave a creature: at the cursor's speed a drag across one threw it hundreds of px ahead; at
this speed a press still reaches its depth in a few frames."""

HELD_SPEED = 1.0 * FINGER_SPEED
"""px/s: the fastest a body a finger touches moves as a whole. Pushed down near its middle, or into a
peg or a wall, a body slides out sideways at ``u·tan β`` for a finger at ``u`` meeting it at ``β``
from the horizontal: 650 px/s from a 180 px/s finger, and no finger speed bounds ``tan β``. So the
finger holds what it presses (``hold_drift``: the excess of the body's velocity goes, its wobble is
kept), and waits, as a finger that feels a slippery thing give does, while it moves faster than this."""

FINGER_GRIP = 1.0
"""Share of the skin's sliding along a finger the finger's pad takes each pass (1: it holds what it
touches). Frictionless, a press low on a flank squeezed the body out sideways at up to 650 px/s."""

FLATTEST = 0.8
"""Share of its rest area a finger squashes a body to, no further: the skin then has nowhere to go
between the finger and the floor or the legs (pressed to the floor, the ring folded inside the disc),
and a ring flatter than this is no longer drawn as one shape by a fan from its centre."""

FINGER_FROM = (0.0, 1.0)
"""Which way a finger lies from its tip (the cursor): above it, pressing down, as on a thing lying on a
table, and as a poke presses the head. Coming from the body's centre out through the tip, a press low
on a body came up through the floor."""

POKE_FRAMES = 24
"""How long a poke (Enter) holds its finger down on the top of the head; it lifts as slowly as it came."""

POKE_DEPTH = 0.2
"""How far a poke squashes the head down, as a share of the body's rest height (28 px of 140)."""


LEG_THICKNESS = 0.16
"""A leg's thickness over the body's radius."""

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
    points: int,
    rotation: float,
    pressure: float,
    upright: float,
    look: CreatureLook | None = None,
) -> SoftBody:
    """Add a round creature of ``points`` ring points and four legs, turned ``rotation`` radians; return it.

    The ring is counter-clockwise; its point ``points // 4`` (the top of the
    head) is straight up, so the body is symmetric about its up axis for any
    count. Its edges only pull, at the built spacing;
    the skin points' radius is half that spacing, so neighbouring beads
    touch and nothing slips between them.
    """
    head = points // 4
    # the head's point straight up (turned by ``rotation``) whatever the count: at 10 points a ring
    # started from the right had its head 18° off the top, and upright stood it with its legs aside
    phase = 0.5 * math.pi - 2.0 * math.pi * head / points
    angles = rotation + phase + 2.0 * math.pi * np.arange(points) / points
    ring_pos = np.column_stack([center[0] + radius * np.cos(angles), center[1] + radius * np.sin(angles)])
    spacing = 2.0 * radius * math.sin(math.pi / points)
    bead = 0.5 * spacing
    added = stores.particles.add(ring_pos, 1.0, bead, owner, kind=ParticleKind.RING)
    ring = np.arange(added.start, added.stop, dtype=np.int64)
    legs = _build_legs(stores, owner, ring, center, radius, rotation, phase)
    return SoftBody(
        name=name,
        ring=ring,
        rest=spacing,
        legs=legs,
        target_area=PUFFINESS * math.pi * radius * radius,
        rest_perimeter=points * spacing,
        pressure=pressure,
        head=head,
        bead=bead,
        upright=upright,
        look=look or CreatureLook(),
    )


def leg_joints(
    center: tuple[float, float], radius: float, rotation: float
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each leg's knee and foot as built: hanging straight down (in the body's frame) from its root."""
    down = np.array([math.sin(rotation), -math.cos(rotation)])
    joints = []
    for offset, share, _, _ in LEGS:
        angle = 1.5 * math.pi + math.radians(offset) + rotation
        root = np.array([math.cos(angle), math.sin(angle)]) * radius + center
        joints.append((root + share * radius * down, root + 2.0 * share * radius * down))
    return joints


def creature_extent(
    center: tuple[float, float], radius: float, points: int, rotation: float
) -> tuple[float, float, float, float]:
    """The rectangle ``(left, bottom, right, top)`` a creature takes as built: its skin (beads included)
    and its feet (half a leg's thickness round each), px."""
    bead = radius * math.sin(math.pi / points)
    feet = np.array([foot for _, foot in leg_joints(center, radius, rotation)])
    foot = 0.5 * LEG_THICKNESS * radius
    reach = radius + bead
    return (
        min(center[0] - reach, float(feet[:, 0].min()) - foot),
        min(center[1] - reach, float(feet[:, 1].min()) - foot),
        max(center[0] + reach, float(feet[:, 0].max()) + foot),
        max(center[1] + reach, float(feet[:, 1].max()) + foot),
    )


def _build_legs(
    stores: Stores,
    owner: int,
    ring: np.ndarray,
    center: tuple[float, float],
    radius: float,
    rotation: float,
    phase: float,
) -> Legs:
    """Four legs hanging straight down (in the body's frame) from roots between ring points at the bottom.

    ``phase`` is the angle of the ring's first point in the body's frame (radians from +x).
    """
    points = len(ring)
    step = 2.0 * math.pi / points
    root_a, root_b, root_t, lengths, knee_range, foot_range = [], [], [], [], [], []
    thickness = LEG_THICKNESS * radius
    for offset, share, knee, foot in LEGS:
        # the root's angle in the body's frame (the bottom is three quarters round from +x), and
        # counter-clockwise from the ring's first point
        angle = 1.5 * math.pi + math.radians(offset)
        along = (angle - phase) % (2.0 * math.pi)
        a = int(along // step) % points
        root_a.append(ring[a])
        root_b.append(ring[(a + 1) % points])
        root_t.append(along / step - a)
        length = share * radius
        lengths.append(length)
        knee_range += [math.radians(knee[0]), math.radians(knee[1])]
        foot_range += [math.radians(foot[0]), math.radians(foot[1])]
    joints = leg_joints(center, radius, rotation)
    # radius 0 and placed along their chain each substep, which undoes any push: nothing holds legs out
    # of other things (a ball they meet is still pushed aside); they stand on the walls and on pegs
    # through the body (see ``place_legs``)
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


def rest_height(body: SoftBody) -> float:
    """Height of the ring at rest along its up axis, px: from its lowest point to the top of the head.

    The ring rests as a regular polygon of its edge length with the head on top (see
    ``build_creature``), so this is a property of the body, not of how squashed it is now.
    """
    m = len(body.ring)
    radius = 0.5 * body.rest / math.sin(math.pi / m)
    return radius * (1.0 - math.cos(2.0 * math.pi * (m // 2) / m))


def rest_area(body: SoftBody) -> float:
    """Area of the ring at rest, px²: the regular polygon of its edge length."""
    m = len(body.ring)
    radius = 0.5 * body.rest / math.sin(math.pi / m)
    return 0.5 * m * radius * radius * math.sin(2.0 * math.pi / m)


def poke_tip(pos: np.ndarray, body: SoftBody) -> tuple[float, float]:
    """Where a poke's finger presses down to: ``POKE_DEPTH`` of its rest height into where the top of
    the head's skin is at rest.

    Measured from the ring's lowest point along the body's up axis plus its rest height, not from
    the head as it is now: a poke that comes while the head is still squashed from the last one
    presses as deep as the first did, never deeper (each aimed at the squashed head, nine pokes in
    12 frames flattened a 140 px body to 37 px).
    """
    ux, uy = head_line(pos, body)
    up = np.array([-uy, ux])
    ring = pos[body.ring]
    center = ring.mean(axis=0)
    lowest = float(((ring - center) @ up).min())
    height = rest_height(body)
    lift = lowest + height + body.bead - POKE_DEPTH * height
    return (float(center[0] + lift * up[0]), float(center[1] + lift * up[1]))


def finger_landing(
    pos: np.ndarray, bodies: list[SoftBody], tip: tuple[float, float], reach: float
) -> tuple[float, float]:
    """Where a finger pressed at ``tip`` first comes down: its centre, raised above the tip until the
    disc touches no skin (beads included), never less than ``reach`` above it.

    A kinematic body enters what it presses from outside; appearing inside a body, a press on its
    centre pushed every skin point out at once and launched it at 3000 px/s. For a skin point at
    ``q`` from the tip, the centre ``t`` along ``d`` clears it once ``|q - t d| >= reach + bead``:
    ``t >= q·d + sqrt((q·d)² - |q|² + (reach + bead)²)``.
    """
    d = np.asarray(FINGER_FROM)
    far = reach
    for body in bodies:
        q = pos[body.ring] - np.asarray(tip)
        along = q @ d
        room = along**2 - (q**2).sum(axis=1) + (reach + body.bead) ** 2
        hit = room > 0.0
        if hit.any():
            far = max(far, float((along[hit] + np.sqrt(room[hit])).max()))
    return (tip[0] + far * d[0], tip[1] + far * d[1])


def skin_gap(pos: np.ndarray, bodies: list[SoftBody], at: tuple[float, float], reach: float) -> float:
    """px between a finger of radius ``reach`` at ``at`` and the nearest skin (beads included): 0 or less
    where it touches, infinity without bodies."""
    tip = np.asarray(at)
    gaps = [float(np.hypot(*(pos[body.ring] - tip).T).min()) - reach - body.bead for body in bodies]
    return min(gaps, default=math.inf)


def free_travel(
    pos: np.ndarray, bodies: list[SoftBody], at: tuple[float, float], goal: tuple[float, float], reach: float
) -> float:
    """How far a finger of radius ``reach`` can go from ``at`` straight towards ``goal`` before it touches
    skin (beads included), px: 0 when it touches already, the whole way when it meets nothing.

    For a skin point at ``w`` from ``at`` and the unit heading ``e``, the disc first touches it after
    ``w·e - sqrt((w·e)² - |w|² + ρ²)``, with ``ρ = reach + bead`` (a ray against a circle).
    """
    start = np.asarray(at)
    heading = np.asarray(goal) - start
    length = float(np.hypot(*heading))
    if length < 1e-9:
        return 0.0
    heading /= length
    travel = length
    for body in bodies:
        w = pos[body.ring] - start
        along = w @ heading
        gap = (w**2).sum(axis=1) - (reach + body.bead) ** 2
        if (gap <= 0.0).any():
            return 0.0
        room = along**2 - gap
        ahead = (room >= 0.0) & (along > 0.0)
        if ahead.any():
            travel = min(travel, float((along[ahead] - np.sqrt(room[ahead])).min()))
    return travel


def _yielding(
    pos: np.ndarray, bodies: list[SoftBody], at: tuple[float, float], to: tuple[float, float], reach: float
) -> bool:
    """Whether moving a finger from ``at`` to ``to`` brings it nearer the centre of a body it touches that
    will not take more: squashed to ``FLATTEST`` of its rest area, or running from the finger (its
    centre moved faster than ``HELD_SPEED`` over the last frame)."""
    for body in _nearing(pos, bodies, at, to, reach):
        center = pos[body.ring].mean(axis=0)
        flattened = ring_area(pos, body.ring) <= FLATTEST * rest_area(body)
        running = body.was_at is not None and math.dist(center, body.was_at) > HELD_SPEED * FRAME_DT
        if flattened or running:
            return True
    return False


def _nearing(
    pos: np.ndarray, bodies: list[SoftBody], at: tuple[float, float], to: tuple[float, float], reach: float
) -> list[SoftBody]:
    """The bodies a finger at ``at`` touches whose centre moving it to ``to`` brings it nearer."""
    nearing = []
    for body in bodies:
        ring = pos[body.ring]
        center = ring.mean(axis=0)
        touching = float(np.hypot(*(ring - np.asarray(at)).T).min()) < reach + body.bead
        if touching and math.dist(to, center) < math.dist(at, center):
            nearing.append(body)
    return nearing


def move_fingers(pos: np.ndarray, bodies: list[SoftBody], presses: list[Press]) -> list[tuple[float, ...]]:
    """Move each finger one frame; return each one's ``(x, y, dx, dy, reach)``: where it was when the
    frame began and how far it goes this frame, px.

    A kinematic body never jumps into the skin or out of it. A finger that comes down lands above
    the skin (``finger_landing``), then heads for the cursor: freely until it touches skin, then at
    most ``FINGER_SPEED``, and not deeper into a body that will not take more (``_yielding``). One
    let go rises back up, as slowly, until it touches nothing, so the skin it held follows it out no
    faster than it moves (lifted at once, a deep press let the body spring off the floor). One let go
    under or beside a body, where rising would carry it (a finger dragged down past a creature took
    it up the wall into the ceiling), goes at once.
    """
    moves = []
    most = FINGER_SPEED * FRAME_DT
    for press in presses:
        if press.active and (press.at is None or press.lifting):
            press.at = finger_landing(pos, bodies, press.center, press.reach)
        press.lifting = not press.active
        if press.at is None:
            continue
        (x, y), (dx, dy) = press.at, FINGER_FROM
        if press.lifting:
            goal = (x + dx * most, y + dy * most)
        else:
            goal = (press.center[0] + dx * press.reach, press.center[1] + dy * press.reach)
        gx, gy = goal[0] - x, goal[1] - y
        length = math.hypot(gx, gy)
        # within a frame's move of the skin it is in touch (the skin rests a hair off its rim): it
        # moves freely only beyond, and a lifted one goes only once the skin stops following it
        gap = skin_gap(pos, bodies, press.at, press.reach)
        if press.lifting and (gap > most or _nearing(pos, bodies, press.at, goal, press.reach)):
            press.at = None  # clear of the skin; or under a body it touches, which rising would carry up
            continue
        free = free_travel(pos, bodies, press.at, goal, press.reach) if gap > most else 0.0
        allowed = min(length, free + most)
        if length > allowed:
            gx, gy = gx * allowed / length, gy * allowed / length
        if not press.lifting and _yielding(pos, bodies, press.at, (x + gx, y + gy), press.reach):
            gx = gy = 0.0
        press.at = (x + gx, y + gy)
        moves.append((x, y, gx, gy, press.reach))
    return moves


def hold_drift(pos: np.ndarray, prev: np.ndarray, ring: np.ndarray, most: float) -> None:
    """Slow a held body's centre to at most ``most`` px a step, leaving how it deforms as it was: the
    excess of its mean Verlet velocity comes off every point alike (their previous positions move)."""
    drift = (pos[ring] - prev[ring]).mean(axis=0)
    speed = math.hypot(*drift)
    if speed > most:
        prev[ring] += drift * (1.0 - most / speed)


class PressureSystem(System):
    """Relaxes every soft body's ring (edges and pressure, averaged), then lets the fingers squash it.

    Runs every iteration: one Jacobi pass, the ring projected back onto its
    rest perimeter (so it meets obstacles at its true size, see
    ``PerimeterSystem``), then the fingers: the press tool's and each body's
    poke (Enter), kinematic discs moved in even steps over the substeps
    (``move_fingers``). A finger's contact never makes skin faster than the
    finger (``press_out``). Records whether each
    body was pressed this frame: all its face knows.
    """

    name = "pressure"
    needs = ("particles", "creatures")

    def __init__(self) -> None:
        self._fingers: list[tuple[float, ...]] = []
        """This frame's press-tool fingers: ``(x, y, dx, dy, reach)``, from ``move_fingers``."""

    def process(self, step: Step) -> None:
        bodies = by_entity(SoftBody)  # one at least: the schedule leaves this out without creatures
        particles = world.stores().particles
        first = step.substep == 0 and step.iteration == 0
        if first:
            for _, body in bodies:
                body.pressed = False
                poke = body.poke_finger
                if body.poke == POKE_FRAMES and not poke.active:
                    # aimed once, at the head at rest; another poke while it lasts keeps it down longer
                    poke.center, poke.active = poke_tip(particles.pos, body), True
                body.poke = max(0, body.poke - 1)
                poke.active = body.poke > 0
            presses = [press for _, press in by_entity(Press)] + [body.poke_finger for _, body in bodies]
            self._fingers = move_fingers(particles.pos, [body for _, body in bodies], presses)
            for _, body in bodies:
                center = particles.pos[body.ring].mean(axis=0)
                body.was_at = (float(center[0]), float(center[1]))
        share = (step.substep + 1) / step.substeps
        fingers = [
            (x + share * dx, y + share * dy, dx / step.substeps, dy / step.substeps, reach)
            for x, y, dx, dy, reach in self._fingers
        ]
        for _, body in bodies:
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
            held = False
            for cx, cy, move_x, move_y, reach in fingers:
                held |= press_out(
                    particles.pos,
                    particles.prev,
                    particles.inv_mass,
                    body.ring,
                    cx,
                    cy,
                    move_x,
                    move_y,
                    reach,
                    body.bead,
                    FINGER_GRIP,
                )
            body.pressed |= held


class PerimeterSystem(System):
    """Projects every soft body's ring back onto its rest perimeter at the end of each substep.

    Averaged with the pressure, the pull-only edges give in a little: without
    the global projection the skin of a firm creature stretches by 2 to 30
    percent (measured). ``PressureSystem`` projects after every pass, or the
    ring would swell within the iterations, meet obstacles swollen and rest
    a few px away from them; this last projection takes back what the
    finger and the contacts stretched after it. Then no two rings are left
    one inside the other (``part_rings``).
    """

    name = "perimeter"
    needs = ("particles", "creatures")

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        bodies = [body for _, body in by_entity(SoftBody)]
        for body in bodies:
            hold_perimeter(particles.pos, particles.inv_mass, body.ring, body.rest_perimeter)
            if body.pressed:
                hold_drift(particles.pos, particles.prev, body.ring, HELD_SPEED * step.dt)
        # then no ring inside another: nested, no bead of one meets a bead of the other (``part_rings``)
        for k, body in enumerate(bodies):
            for other in bodies[k + 1 :]:
                gap = body.bead + other.bead
                part_rings(particles.pos, particles.prev, particles.inv_mass, body.ring, other.ring, gap)


class UprightSystem(System):
    """Sets every creature's spin each frame to turn it back 4% of the tilt of its head line
    (``upright``) over the next frame: the legs' muscles, as a servo on the spin.

    The spin is velocity the contacts see: a creature in a pile pushes the balls it turns into
    aside and stands up (turned by positions alone, the contacts took the turn back every frame,
    and creatures in a pile of balls stayed tilted 75° for 15 s). Only the spin is set: the body's
    own velocity is kept exactly (``set_spin``), so a creature dropped upside down still lands
    straight below, and each frame's new spin replaces the last, so it never overshoots.
    """

    name = "upright"
    needs = ("particles", "creatures")

    def process(self, step: Step) -> None:
        particles = world.stores().particles
        for _, body in by_entity(SoftBody):
            if body.pressed:
                # held by a finger that grips it, its spin would turn about the finger and roll it away
                continue
            ux, uy = head_line(particles.pos, body)
            tilt = math.atan2(uy, ux)
            set_spin(particles.pos, particles.prev, body.ring, -body.upright * tilt / step.substeps)


class LegsSystem(System):
    """Pulls each knee and foot back to one segment from its parent, within its angle limits; feet stand on
    the walls and on pegs, so the body rests on its legs.

    At the end of every substep, not once a frame: the body falls a little
    every substep, and a support given less often than the fall lets it
    bounce on its legs (measured: at 6 substeps it hopped across the level).
    The pegs are gathered at a frame's first substep: nothing moves them.
    """

    name = "legs"
    needs = ("particles", "creatures")

    def __init__(self) -> None:
        self._pegs = np.zeros((0, 3))

    def process(self, step: Step) -> None:
        stores = world.stores()
        particles = stores.particles
        settings = world.settings()
        left, bottom, right, top = settings.walls
        if step.substep == 0:
            self._pegs = fixed_circles(stores)
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
                self._pegs,
                left,
                bottom,
                right,
                top,
                settings.floor_friction,
                LEG_TONE,
            )


def fixed_circles(stores: Stores) -> np.ndarray:
    """The circles that never move (``fixed_particles``: a level's pegs), as ``(K, 3)`` rows of x, y
    and radius: what a creature's feet stand on besides the walls (never its own skin, whose points
    are rings)."""
    particles = stores.particles
    if not particles.circles:
        return np.zeros((0, 3))
    circle = particles.kind[: particles.count] == ParticleKind.CIRCLE
    rows = np.flatnonzero(fixed_particles(stores) & circle)
    return np.column_stack([particles.pos[rows], particles.radius[rows]])


def poke_all() -> None:
    """Start a poke on every soft body of the active world (what Enter does)."""
    for _, body in esper.get_component(SoftBody):
        body.poke = POKE_FRAMES
