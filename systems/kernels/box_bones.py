"""A ragdoll's bones against boxes: the segment between two joints kept out of a box, not only the joints.

The joints are particles, pushed out of boxes like any other
(``box_particles``), but the bone between two of them met nothing: dragged
round the end of a thin ramp, a rag doll's shin lay across it with its knee
above and its foot below, and stayed threaded through it after it was let
go. So each bone is also a capsule (the segment, grown by the thinner of its
two joints' radii) that a box pushes out.

The push is the smallest move that parts the two, by separating axes: the
box's two axes and the bone's normal (the capsule's round ends are taken as
square, so near a corner it may push up to 0.4 radius more than needed; the
joints' own contacts are exact there). Along the bone's normal the box's
corner presses into the bone's side; along a box axis the bone's end, or
where the bone leaves the box's side, presses into a face. Either is a point
at ``t`` along the bone, moved as a point on a segment (PBD, Müller et al.
2007): with ``w = (1 - t)² w_a + t² w_b``, a depth ``D`` shared with the box
as ``λ = D / (w + w_box)``, the ends move ``(1 - t) w_a λ n`` and
``t w_b λ n``, so the point moves ``w λ n``. A bone already threaded through
a box comes out by its shorter side. A box braced against the push
(``box_braces``) slides along its brace, or holds as a fixed one, and then
the bone alone moves out, a pinned end (a held joint) as if it were free.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_braces import FREE, HELD, SLIDES, brace_push
from weft.systems.kernels.box_particles import shift_box, slide_box
from weft.systems.kernels.jit import INNER

SHORTEST_BONE = 1e-9
"""px: a bone shorter than this has no side to push; its joints' own contacts hold it."""


@numba.njit(cache=True)
def push_bones_out_of_boxes(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    heads: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    bone_radius: npt.NDArray[np.float64],
    box_pos: npt.NDArray[np.float64],
    box_angle: npt.NDArray[np.float64],
    box_vel: npt.NDArray[np.float64],
    box_omega: npt.NDArray[np.float64],
    box_inv_mass: npt.NDArray[np.float64],
    box_inv_inertia: npt.NDArray[np.float64],
    box_half: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    pair_bone: npt.NDArray[np.int64],
    pair_box: npt.NDArray[np.int64],
    h: float,
    box_friction: npt.NDArray[np.float64],
    braced: npt.NDArray[np.int64],
) -> None:
    """One pass over the listed (bone, box) pairs: each bone that overlaps its box is moved out along
    the axis of least overlap, and an awake movable box is pushed back (a sleeping one holds still;
    one ``braced`` against the push slides along its brace or holds, by its ``box_friction``). Bones
    run from particle ``heads[k]`` to ``tails[k]``, ``bone_radius[k]`` thick each side."""
    box = (box_pos, box_angle, box_vel, box_omega, box_inv_mass, box_inv_inertia)
    for p in range(pair_bone.shape[0]):
        k = pair_bone[p]
        j = pair_box[p]
        a = heads[k]
        b = tails[k]
        if inv_mass[a] + inv_mass[b] == 0.0:
            continue
        c = math.cos(box_angle[j])
        s = math.sin(box_angle[j])
        ax, ay = _into_box(pos[a, 0] - box_pos[j, 0], pos[a, 1] - box_pos[j, 1], c, s)
        bx, by = _into_box(pos[b, 0] - box_pos[j, 0], pos[b, 1] - box_pos[j, 1], c, s)
        ex = bx - ax
        ey = by - ay
        length = math.hypot(ex, ey)
        if length < SHORTEST_BONE:
            continue
        r = bone_radius[k]
        hx = box_half[j, 0]
        hy = box_half[j, 1]
        nx = -ey / length
        ny = ex / length
        # separating axes: x, y, the bone's normal; the least overlap, and which way it parts them
        depth = math.inf
        axis = -1
        sign = 0.0
        for candidate in range(3):
            if candidate == 0:
                low, high, reach = min(ax, bx), max(ax, bx), hx
            elif candidate == 1:
                low, high, reach = min(ay, by), max(ay, by), hy
            else:
                side = ax * nx + ay * ny
                low, high, reach = side, side, hx * abs(nx) + hy * abs(ny)
            up = reach - (low - r)  # the move along the axis that parts them
            down = (high + r) + reach  # and against it
            if up <= 0.0 or down <= 0.0:
                axis = -1
                break
            if up < depth:
                depth, axis, sign = up, candidate, 1.0
            if down < depth:
                depth, axis, sign = down, candidate, -1.0
        if axis < 0:
            continue
        moves = not asleep[j] and box_inv_mass[j] > 0.0
        # the ways it is braced (box_braces)
        mask = braced[j] if moves else 0
        if axis == 2:
            # a corner of the box in the bone's side: the one farthest along the push
            qx = hx if sign * nx > 0.0 else -hx
            qy = hy if sign * ny > 0.0 else -hy
            t = min(max(((qx - ax) * ex + (qy - ay) * ey) / (length * length), 0.0), 1.0)
            _push_point(
                pos, inv_mass, a, b, t, depth, sign * nx, sign * ny, qx, qy, c, s, box, j, moves, mask,
                box_friction[j], h,
            )  # fmt: skip
            continue
        # a face: the bone within the box's extent across the face (clipped to it), each end of that
        # piece pushed as far as it is in
        ux, uy = (sign, 0.0) if axis == 0 else (0.0, sign)
        across = hy if axis == 0 else hx
        start = ay if axis == 0 else ax
        span = ey if axis == 0 else ex
        t0, t1 = _clip(start, span, across + r)
        if t0 > t1:
            continue
        face = hx if axis == 0 else hy
        for t in (t0, t1):
            px, py = ax + t * ex, ay + t * ey
            inside = face + r - sign * (px if axis == 0 else py)
            if inside <= 0.0:
                continue
            qx = sign * face if axis == 0 else min(max(px, -hx), hx)
            qy = sign * face if axis == 1 else min(max(py, -hy), hy)
            _push_point(
                pos, inv_mass, a, b, t, inside, ux, uy, qx, qy, c, s, box, j, moves, mask, box_friction[j], h
            )


@numba.njit(cache=True)
def bone_bounds(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    heads: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    low: npt.NDArray[np.float64],
    high: npt.NDArray[np.float64],
) -> None:
    """Each bone's bounding box over the substep, its ends now (``pos``) and a substep ago
    (``prev``): lower corners into ``low``, upper into ``high`` (``(bones, 2)``)."""
    for k in range(heads.shape[0]):
        for axis in range(2):
            a, b = heads[k], tails[k]
            low[k, axis] = min(min(pos[a, axis], pos[b, axis]), min(prev[a, axis], prev[b, axis]))
            high[k, axis] = max(max(pos[a, axis], pos[b, axis]), max(prev[a, axis], prev[b, axis]))


@numba.njit(cache=True, inline="always", **INNER)
def _into_box(dx: float, dy: float, c: float, s: float) -> tuple[float, float]:
    """A world offset from a box's centre in the box's frame (its angle's cosine and sine)."""
    return c * dx + s * dy, -s * dx + c * dy


@numba.njit(cache=True, inline="always", **INNER)
def _clip(start: float, span: float, reach: float) -> tuple[float, float]:
    """The part ``[t0, t1]`` of ``[0, 1]`` where ``start + t span`` lies within ``±reach`` (empty:
    ``t0 > t1``)."""
    if abs(span) < SHORTEST_BONE:
        return (0.0, 1.0) if abs(start) <= reach else (1.0, 0.0)
    t0 = (-reach - start) / span
    t1 = (reach - start) / span
    return max(min(t0, t1), 0.0), min(max(t0, t1), 1.0)


@numba.njit(cache=True, **INNER)
def _push_point(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    a: int,
    b: int,
    t: float,
    depth: float,
    lnx: float,
    lny: float,
    qx: float,
    qy: float,
    c: float,
    s: float,
    box: tuple[Any, ...],
    j: int,
    moves: bool,
    braced: int,
    friction: float,
    h: float,
) -> None:
    """Move the bone's point at ``t`` out by ``depth`` along the box-frame normal ``(lnx, lny)``,
    shared with box ``j`` (touched at its box-frame point ``q``) by inverse mass when it ``moves``
    (``box``: the boxes' positions, angles, velocities, spins, inverse masses and inertias). Where
    it is ``braced`` against the push (its mask; ``friction``, its own), it slides along its brace
    without turning, or holds: then the bone alone moves, a pinned end as a free joint (inverse
    mass 1)."""
    nx = c * lnx - s * lny
    ny = s * lnx + c * lny
    rx = c * qx - s * qy
    ry = s * qx + c * qy
    weight_a = inv_mass[a]
    weight_b = inv_mass[b]
    hold, ux, uy = FREE, 0.0, 0.0
    if moves and braced:
        hold, ux, uy = brace_push(braced, nx, ny, friction)
    if hold == HELD:
        weight_a = weight_a if weight_a > 0.0 else 1.0
        weight_b = weight_b if weight_b > 0.0 else 1.0
    wa = (1.0 - t) * weight_a
    wb = t * weight_b
    w = (1.0 - t) * wa + t * wb
    turn = rx * ny - ry * nx
    un = ux * nx + uy * ny
    if hold == FREE:
        w_box = box[4][j] + box[5][j] * turn * turn if moves else 0.0
    else:
        w_box = box[4][j] * un * un if hold == SLIDES else 0.0
    if w + w_box == 0.0:
        return
    share = depth / (w + w_box)
    pos[a, 0] += wa * share * nx
    pos[a, 1] += wa * share * ny
    pos[b, 0] += wb * share * nx
    pos[b, 1] += wb * share * ny
    if hold == SLIDES:
        slide_box(j, -box[4][j] * share * un, ux, uy, box[0], box[2], h)
    elif hold == FREE and moves:
        shift_box(j, -share * nx, -share * ny, rx, ry, *box, h)
