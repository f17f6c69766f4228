"""Grabbing: the mouse holds a box through a soft spring, or the nearest particle through a pin
(never led into a fixed box or circle)."""

from __future__ import annotations

import numpy as np

from weft.components import Grab, SoftBody, Stores
from weft.components.tools import NOTHING
from weft.systems import world
from weft.systems.bounds import inside_walls
from weft.systems.boxes import wake
from weft.systems.pins import pin, unpin
from weft.systems.queries import (
    FloatArray,
    boxes_at,
    cast_boxes,
    cast_circles,
    fixed_normals_at,
    fixed_particles,
    polygon_holds,
)
from weft.systems.schedule import Step, System


def nearest_particle(stores: Stores, x: float, y: float, reach: float) -> int:
    """Index of the particle a hand can take nearest to (x, y) within ``reach`` px, or ``NOTHING``:
    a free one or a pinned one (its pin is moved), never a fixed one (inverse mass 0 and no pin),
    which never moves.

    Ties go to the lowest index, so picking is reproducible.
    """
    particles = stores.particles
    n = particles.count
    if n == 0:
        return NOTHING
    offset = particles.pos[:n] - (x, y)
    dist2 = np.einsum("ij,ij->i", offset, offset)
    dist2[fixed_particles(stores)] = np.inf
    k = int(np.argmin(dist2))
    return k if dist2[k] <= reach * reach else NOTHING


def ring_around(stores: Stores, x: float, y: float) -> int:
    """The point of the creature whose ring holds (x, y) nearest to it (the first such creature's),
    or ``NOTHING``: a press on a creature's middle takes it by its skin. Its skin is all of it a
    hand can take, and a big creature's middle is farther from its skin than a grab reaches (80 px
    against 40: a press there took nothing)."""
    pos = stores.particles.pos
    for _, body in world.by_entity(SoftBody):
        ring = pos[body.ring]
        if polygon_holds(ring, x, y):
            offset = ring - (x, y)
            return int(body.ring[int(np.argmin(np.einsum("ij,ij->i", offset, offset)))])
    return NOTHING


def by_the_hip(particle: int) -> int:
    """The particle the hand holds when it takes ``particle``: itself, but for a creature's knee or
    foot, the ring point its leg hangs from. The legs system places knees and feet from the body
    every substep, whatever holds them: a held foot stayed where the leg put it, and the creature
    never followed the cursor."""
    for _, body in world.by_entity(SoftBody):
        legs = body.legs
        for leg in np.flatnonzero((legs.knee == particle) | (legs.foot == particle)):
            return int(legs.root_a[leg] if legs.root_t[leg] < 0.5 else legs.root_b[leg])
    return particle


SURFACE_GAP = 0.5
"""px a held particle is kept short of a fixed box or circle it is led against: on the surface, the
next frame's path would start on it and pass through."""


def clear_path(stores: Stores, start: FloatArray, goal: tuple[float, float], radius: float) -> FloatArray:
    """Where a held particle of ``radius`` led from ``start`` towards ``goal`` ends: at ``goal``, or
    pressed against the first fixed box or circle on the way and slid along it by what is left of
    the move (once), as a body is against a wall.

    The hand is a pin: nothing pushes a held particle, so led straight it went through fixed planks
    and pegs (a rag doll's foot through the ramp, the doll left impaled). A movable box is pushed
    aside by it instead. A particle already against a fixed shape, or in it, may move along it or
    away, never further in. The pin moves the particle in a straight line, so the slid end is kept
    only as far as that line is clear too (a slide round one peg cut through the next).
    """
    goal_point = np.asarray(goal, dtype=float)
    stop, normal = _first_stop(stores, start, goal_point, radius)
    if normal is None:
        return stop
    rest = goal_point - stop
    # the slide stays inside the walls: lifted in after the cast, it went up into a peg on the floor
    along = np.asarray(inside_walls(tuple(stop + rest - (rest @ normal) * normal), (radius,) * 4))
    slid, _ = _first_stop(stores, stop, along, radius)
    straight, _ = _first_stop(stores, start, slid, radius)
    return straight


def _first_stop(
    stores: Stores, start: FloatArray, goal: FloatArray, radius: float
) -> tuple[FloatArray, FloatArray | None]:
    """The end of the move ``start -> goal`` of a disc of ``radius``, and the normal of what stopped
    it (None if nothing did): ``start`` itself if it is against a fixed box or circle (within
    ``SURFACE_GAP``, or in it) and the move goes into it, else ``SURFACE_GAP`` off the first one met
    where it meets it, along its normal (backed off along the move instead, a grazing move ended on
    the surface, and the next one met it at once: a slow drag along a slope stuttered), else
    ``goal``."""
    move = goal - start
    length = float(np.hypot(*move))
    if length == 0.0:
        return goal, None
    against = fixed_normals_at(stores, start, radius + SURFACE_GAP)
    inward = against @ move < -1e-9 * length  # a move along a face is not into it
    if inward.any():
        return start, against[int(np.argmin(against @ move))]
    box = cast_boxes(stores, start, goal, grow=radius, fixed=True)
    circle = cast_circles(stores, start, goal, grow=radius, fixed=True)
    hits = [hit for hit in (box, circle) if hit[0] >= 0]
    if not hits:
        return goal, None
    _, t, normal = min(hits, key=lambda hit: hit[1])
    return start + t * move + SURFACE_GAP * normal, normal


def movable_box_at(stores: Stores, x: float, y: float) -> int:
    """The movable box (the last added, where several overlap) whose outline holds (x, y), or ``NOTHING``."""
    rows, _ = boxes_at(stores, x, y)
    movable = rows[stores.rigid.inv_mass[rows] > 0.0]
    return int(movable[-1]) if len(movable) else NOTHING


class GrabSystem(System):
    """Turns each ``Grab`` into a box spring or a pin: taken on press, led by the cursor, let go on release.

    A box under the cursor is taken first (the box solver pulls it by its
    spring); otherwise the nearest particle is pinned (a creature by the hip
    for its knee or foot: ``by_the_hip``; by its skin for its middle:
    ``ring_around``). Grabbing a pinned point moves its
    pin instead: it stays where it is dropped.
    """

    name = "grab"

    def process(self, step: Step) -> None:
        stores = world.stores()
        pins = stores.pins
        for entity, grab in world.by_entity(Grab):
            if self._hold_box(stores, grab):
                continue
            if grab.held and grab.particle == NOTHING:
                near = nearest_particle(stores, *grab.pressed_at, grab.reach)
                taken = near if near != NOTHING else ring_around(stores, *grab.pressed_at)
                grab.particle = by_the_hip(taken)
                grab.offset = (0.0, 0.0)
                # a hip for a knee or foot, or skin for the middle: held where it is from the cursor
                if grab.particle != near:
                    x, y = stores.particles.pos[grab.particle] - grab.pressed_at
                    grab.offset = (float(x), float(y))
                if grab.particle != NOTHING and pins.find(grab.particle) < 0:
                    pin(
                        stores,
                        grab.particle,
                        stores.particles.pos[grab.particle],
                        owner=entity,
                        speed=grab.speed,
                    )
            if grab.particle == NOTHING:
                continue
            row = pins.find(grab.particle)
            if row < 0:  # the pin went away under us (a re-layout of pins)
                grab.particle = NOTHING
            elif grab.held:
                radius = stores.particles.radius[grab.particle]
                target = (grab.target[0] + grab.offset[0], grab.target[1] + grab.offset[1])
                path = clear_path(
                    stores, stores.particles.pos[grab.particle], inside_walls(target, (radius,) * 4), radius
                )
                pins.anchor[row] = inside_walls(tuple(path), (radius,) * 4)
            else:
                if pins.owner[row] == entity:
                    unpin(stores, row)
                grab.particle = NOTHING

    @staticmethod
    def _hold_box(stores: Stores, grab: Grab) -> bool:
        """Take, keep or let go of a box; True while a box is (or was just) held, so no particle is taken."""
        store = stores.rigid
        if grab.box != NOTHING:
            if not grab.held:
                grab.box = NOTHING
            return True
        if not grab.held or grab.particle != NOTHING:
            return False
        grab.box = movable_box_at(stores, *grab.pressed_at)
        if grab.box == NOTHING:
            return False
        c, s = np.cos(store.angle[grab.box]), np.sin(store.angle[grab.box])
        dx, dy = np.array(grab.pressed_at) - store.pos[grab.box]
        grab.anchor = (float(c * dx + s * dy), float(-s * dx + c * dy))
        wake(store, grab.box)
        return True
