"""Keeping particles inside the level's rectangle: points stop and drag, circles bounce and slide."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.inside_walls import inside
from weft.systems.kernels.jit import INNER

CIRCLE = 1  # ParticleKind.CIRCLE


@numba.njit(cache=True, **INNER)
def _bounce(
    x: float,
    v: float,
    t: float,
    edge: float,
    side: float,
    wall_v: float,
    restitution: float,
    friction: float,
    rest_speed: float,
) -> tuple[float, float, float]:
    """One wall contact of a circle along one axis; returns the new (position, normal and tangent velocity).

    ``side`` is +1 for a wall the circle must stay above/right of, -1 for
    below/left; ``wall_v`` the wall's own velocity along the axis (px per
    step): the bounce happens in the wall's frame, so a moving wall throws
    what it hits. The overshoot past the wall is mirrored and scaled by
    the restitution, so a bounce between two substeps loses exactly what
    ``e`` says; below ``rest_speed`` nothing bounces (a resting circle must
    not hop). Coulomb friction: the tangential velocity loses at most
    ``friction`` times the change of the normal velocity.
    """
    depth = (edge - x) * side
    if depth <= 0.0:
        return x, v, t
    inward = -(v - wall_v) * side  # speed into the wall, in its frame
    e = restitution if inward > rest_speed else 0.0
    new_v = v
    if inward > 0.0:
        new_v = wall_v + e * inward * side
    x = edge + side * e * depth
    change = abs(new_v - v)
    if friction > 0.0 and t != 0.0:
        slow = min(abs(t), friction * change)
        t -= math.copysign(slow, t)
    return x, new_v, t


@numba.njit(cache=True)
def _stop(x: float, v: float, edge: float, side: float, wall_v: float) -> tuple[float, float]:
    """One wall contact of a point along one axis; returns the new (position, normal velocity).

    The point is put on the wall and moves with it along the normal: an
    inelastic contact, whatever ``prev`` was. Keeping ``prev`` as it was
    would turn the push into speed: a point found outside (built there, let
    go by a grab beyond the window, or pulled in by threads from there)
    would come back at the depth it was pushed by, in px per step.
    """
    if (edge - x) * side <= 0.0:
        return x, v
    return edge, wall_v


@numba.njit(cache=True)
def clamp_to_bounds(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    kind: npt.NDArray[np.uint8],
    left: float,
    bottom: float,
    right: float,
    top: float,
    floor_friction: float,
    restitution: float,
    friction: float,
    rest_speed: float,
    wall_vx: float,
    wall_vy: float,
) -> None:
    """Put every free particle that left the rectangle back inside it (inset by its radius).

    Points (cloth, skins, joints) stop at the wall and take its normal
    velocity (see ``_stop``); on the floor their horizontal velocity
    ``x - prev_x`` is scaled by ``1 - floor_friction``. Velocities are
    written through ``prev``: friction without a velocity array. Circles bounce with
    ``restitution`` and slide with Coulomb ``friction`` (see ``_bounce``);
    ``rest_speed`` and the walls' velocity ``wall_vx, wall_vy`` are in px
    per step. Shapes: ``pos``, ``prev`` ``(N, 2)``;
    the rest ``(N,)``.
    """
    walls = (left, bottom, right, top, floor_friction, restitution, friction, rest_speed, wall_vx, wall_vy)
    for k in range(pos.shape[0]):
        if inv_mass[k] == 0.0:
            continue
        x, y, r = pos[k, 0], pos[k, 1], radius[k]
        if inside(x, y, r, left, bottom, right, top):
            continue
        x, y, vx, vy = clamp_point(x, y, x - prev[k, 0], y - prev[k, 1], r, kind[k] == CIRCLE, walls)
        pos[k, 0], pos[k, 1], prev[k, 0], prev[k, 1] = x, y, x - vx, y - vy


@numba.njit(cache=True, **INNER)
def clamp_point(
    x: float,
    y: float,
    vx: float,
    vy: float,
    r: float,
    circle: bool,
    walls: tuple[float, float, float, float, float, float, float, float, float, float],
) -> tuple[float, float, float, float]:
    """``clamp_to_bounds`` for one free particle of radius ``r`` at ``(x, y)`` moving ``(vx, vy)``
    px a step (``walls``: that kernel's arguments after the arrays): its position and velocity
    after. A particle inside the walls comes out as it went in.

    Scalars in and out: a helper given the arrays, inlined into the loops, made numba count
    references to them for every particle (25 times the loop's cost: 150 against 5.7 µs for 3150
    points inside the walls)."""
    left, bottom, right, top, floor_friction, restitution, friction, rest_speed, wall_vx, wall_vy = walls
    if circle:
        x, vx, vy = _bounce(x, vx, vy, left + r, 1.0, wall_vx, restitution, friction, rest_speed)
        x, vx, vy = _bounce(x, vx, vy, right - r, -1.0, wall_vx, restitution, friction, rest_speed)
        y, vy, vx = _bounce(y, vy, vx, bottom + r, 1.0, wall_vy, restitution, friction, rest_speed)
        y, vy, vx = _bounce(y, vy, vx, top - r, -1.0, wall_vy, restitution, friction, rest_speed)
        # a circle wider than the box, or thrown past both walls: keep it inside all the same
        x = min(max(x, left + r), right - r) if right - left > 2 * r else (left + right) / 2
        y = min(max(y, bottom + r), top - r) if top - bottom > 2 * r else (bottom + top) / 2
        return x, y, vx, vy
    x, vx = _stop(x, vx, left + r, 1.0, wall_vx)
    x, vx = _stop(x, vx, right - r, -1.0, wall_vx)
    y, vy = _stop(y, vy, top - r, -1.0, wall_vy)
    if y < bottom + r:
        y, vy = _stop(y, vy, bottom + r, 1.0, wall_vy)
        vx = wall_vx + (vx - wall_vx) * (1.0 - floor_friction)  # the floor drags, in its own frame
    return x, y, vx, vy
