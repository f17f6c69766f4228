"""Contact points between boxes, and between boxes and the walls: separating axes, then edge clipping.

A manifold has up to two points, each with a feature key (which face of
which box was the reference, which edge of the other met it, and which end
of that edge the point comes from, clipped to the reference face or not),
so a point found again next step is recognised and starts from the
impulses it ended with (warm starting). The key leaves out whether the end
was clipped, as Box2D's does: in an aligned stack a corner sits on the side
plane, and rounding clips it one step and not the next; keyed by that, half
the points of a 40-box stack started cold each step and the stack bounced. While the pair
list is kept, a point looks for its key among the last step's points of its
own pair only (``warm_from_last``); when it is made anew, in a hash table of
all of them (``remember_impulses``, ``warm_from_table``).

Normals point from body ``a`` to body ``b``; separations are negative where
the boxes overlap. Points up to ``margin`` apart are kept as speculative
contacts: the solver lets such a pair close the gap but not overlap.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

FACE_TOLERANCE = 0.02
"""Share of the smaller half extent by which a face of box B (or A's second axis) must separate
better than the best so far to become the reference face: the choice stays put from step to step
while a stack rests, and so do the feature keys."""

FEATURES = 128
"""Feature codes per pair: ``flip · 64 + reference face · 16 + incident face · 4 + point``."""

PLANES = 4

PARALLEL_PAIRS = 1000
"""Pairs (and twice as many points) from which the manifolds are found, and the warm start made, in
two halves at once (fewer: starting the threads costs more)."""


@numba.njit(cache=True)
def _axes(c: float, s: float) -> tuple[float, float, float, float]:
    """The x axis ``(ux, uy)`` and y axis ``(vx, vy)`` of a box turned by the angle of cosine c, sine s."""
    return c, s, -s, c


@numba.njit(cache=True)
def _face(
    face: int, c: float, s: float, hx: float, hy: float
) -> tuple[float, float, float, float, float, float]:
    """Face ``face`` of a box (0 +x, 1 +y, 2 −x, 3 −y): outward normal, tangent, half length along the
    tangent, and the distance from the centre to the face along its normal."""
    ux, uy, vx, vy = _axes(c, s)
    if face == 0:
        return ux, uy, vx, vy, hy, hx
    if face == 1:
        return vx, vy, -ux, -uy, hx, hy
    if face == 2:
        return -ux, -uy, -vx, -vy, hy, hx
    return -vx, -vy, ux, uy, hx, hy


@numba.njit(cache=True)
def _separation(
    nx: float, ny: float, dx: float, dy: float, c: float, s: float, hx: float, hy: float, extent: float
) -> float:
    """Gap along axis n between a box of extent ``extent`` on it (at the origin) and one at ``d``."""
    ux, uy, vx, vy = _axes(c, s)
    reach = abs(ux * nx + uy * ny) * hx + abs(vx * nx + vy * ny) * hy
    return abs(dx * nx + dy * ny) - extent - reach


@numba.njit(cache=True)
def box_box(
    ax: float,
    ay: float,
    ac: float,
    a_s: float,
    ahx: float,
    ahy: float,
    bx: float,
    by: float,
    bc: float,
    b_s: float,
    bhx: float,
    bhy: float,
    margin: float,
) -> tuple[int, float, float, float, float, float, int, float, float, float, int]:
    """The manifold of boxes a and b (centre, cosine and sine of the angle, half extents each).

    Returns ``(count, nx, ny, x0, y0, s0, f0, x1, y1, s1, f1)``: how many
    points (0 to 2), the normal from a to b, and each point's position,
    separation and feature code. The reference face is the face of either
    box along which they separate best (favouring A, then x, by
    ``FACE_TOLERANCE``); the incident edge is the face of the other box most
    opposed to it, clipped to the reference face's sides. A point sits
    halfway between the incident corner and the reference face.
    """
    dx = bx - ax
    dy = by - ay
    a_ux, a_uy, a_vx, a_vy = _axes(ac, a_s)
    b_ux, b_uy, b_vx, b_vy = _axes(bc, b_s)
    tolerance = FACE_TOLERANCE * min(ahx, ahy, bhx, bhy)
    # the four candidate axes: A's x, A's y, B's x, B's y
    best = -math.inf
    best_axis = -1
    for axis in range(4):
        if axis == 0:
            s = _separation(a_ux, a_uy, dx, dy, bc, b_s, bhx, bhy, ahx)
        elif axis == 1:
            s = _separation(a_vx, a_vy, dx, dy, bc, b_s, bhx, bhy, ahy)
        elif axis == 2:
            s = _separation(b_ux, b_uy, dx, dy, ac, a_s, ahx, ahy, bhx)
        else:
            s = _separation(b_vx, b_vy, dx, dy, ac, a_s, ahx, ahy, bhy)
        if s > margin:
            return 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0
        if best_axis < 0 or s > best + tolerance:
            best = s
            best_axis = axis
    flip = best_axis >= 2
    # the reference box and the incident one
    if flip:
        rx, ry, rc, r_s, rhx, rhy = bx, by, bc, b_s, bhx, bhy
        ix, iy, ic, i_s, ihx, ihy = ax, ay, ac, a_s, ahx, ahy
        along_x, along_y = -dx, -dy
    else:
        rx, ry, rc, r_s, rhx, rhy = ax, ay, ac, a_s, ahx, ahy
        ix, iy, ic, i_s, ihx, ihy = bx, by, bc, b_s, bhx, bhy
        along_x, along_y = dx, dy
    # the reference face: the one of the reference box facing the other box
    ux, uy, vx, vy = _axes(rc, r_s)
    if best_axis % 2 == 0:
        ref_face = 0 if ux * along_x + uy * along_y > 0.0 else 2
    else:
        ref_face = 1 if vx * along_x + vy * along_y > 0.0 else 3
    nx, ny, tx, ty, side, depth = _face(ref_face, rc, r_s, rhx, rhy)
    # the incident face: the other box's face most opposed to the reference normal
    inc_face = 0
    lowest = math.inf
    for face in range(4):
        fx, fy, _, _, _, _ = _face(face, ic, i_s, ihx, ihy)
        d = fx * nx + fy * ny
        if d < lowest:
            lowest = d
            inc_face = face
    fx, fy, gx, gy, glen, gdist = _face(inc_face, ic, i_s, ihx, ihy)
    # the incident edge's two corners, as offsets along the reference face's tangent and normal
    face_x = rx + nx * depth
    face_y = ry + ny * depth
    cx0 = ix + fx * gdist - gx * glen - face_x
    cy0 = iy + fy * gdist - gy * glen - face_y
    cx1 = ix + fx * gdist + gx * glen - face_x
    cy1 = iy + fy * gdist + gy * glen - face_y
    t0 = cx0 * tx + cy0 * ty
    n0 = cx0 * nx + cy0 * ny
    t1 = cx1 * tx + cy1 * ty
    n1 = cx1 * nx + cy1 * ny
    code0 = 0  # the points are keyed by the end of the incident edge they come from
    code1 = 1
    # clip the edge to the reference face's two sides, |t| <= side
    for k_side in range(2):
        sign = -1.0 if k_side == 0 else 1.0
        d0 = sign * t0 - side
        d1 = sign * t1 - side
        if d0 > 0.0 and d1 > 0.0:
            return 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0
        if d0 > 0.0 or d1 > 0.0:
            f = d0 / (d0 - d1)
            t_new = t0 + f * (t1 - t0)
            n_new = n0 + f * (n1 - n0)
            if d0 > 0.0:
                t0, n0 = t_new, n_new
            else:
                t1, n1 = t_new, n_new
    key = (1 if flip else 0) * 64 + ref_face * 16 + inc_face * 4
    normal_x = -nx if flip else nx
    normal_y = -ny if flip else ny
    # halfway between each incident point and the reference face; the deeper first when only one stays
    x0 = face_x + tx * t0 + nx * 0.5 * n0
    y0 = face_y + ty * t0 + ny * 0.5 * n0
    x1 = face_x + tx * t1 + nx * 0.5 * n1
    y1 = face_y + ty * t1 + ny * 0.5 * n1
    if n0 > margin and n1 > margin:
        return 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0
    if n0 > margin:
        return 1, normal_x, normal_y, x1, y1, n1, key + code1, 0.0, 0.0, 0.0, 0
    if n1 > margin:
        return 1, normal_x, normal_y, x0, y0, n0, key + code0, 0.0, 0.0, 0.0, 0
    return 2, normal_x, normal_y, x0, y0, n0, key + code0, x1, y1, n1, key + code1


@numba.njit(cache=True)
def box_plane(
    ax: float,
    ay: float,
    ac: float,
    a_s: float,
    ahx: float,
    ahy: float,
    mx: float,
    my: float,
    offset: float,
    margin: float,
) -> tuple[int, float, float, float, int, float, float, float, int]:
    """The manifold of a box and the wall ``m · x >= offset`` (m points into the world).

    Returns ``(count, x0, y0, s0, f0, x1, y1, s1, f1)``: up to the two
    deepest corners within ``margin``, each keyed by its corner index, at
    the point halfway to the wall. The normal, from the box into the wall,
    is ``-m``.
    """
    ux, uy, vx, vy = _axes(ac, a_s)
    count = 0
    x0 = y0 = s0 = x1 = y1 = s1 = 0.0
    f0 = f1 = 0
    for corner in range(4):
        sx = 1.0 if corner == 0 or corner == 3 else -1.0
        sy = 1.0 if corner < 2 else -1.0
        x = ax + sx * ahx * ux + sy * ahy * vx
        y = ay + sx * ahx * uy + sy * ahy * vy
        s = mx * x + my * y - offset
        if s > margin:
            continue
        px = x - 0.5 * s * mx
        py = y - 0.5 * s * my
        if count == 0:
            x0, y0, s0, f0 = px, py, s, corner
            count = 1
        elif count == 1:
            x1, y1, s1, f1 = px, py, s, corner
            count = 2
        elif s0 >= s1 and s < s0:  # keep the two deepest
            x0, y0, s0, f0 = px, py, s, corner
        elif s1 > s0 and s < s1:
            x1, y1, s1, f1 = px, py, s, corner
    return count, x0, y0, s0, f0, x1, y1, s1, f1


@numba.njit(cache=True)
def contact_key(a: int, b: int, feature: int, bodies: int) -> int:
    """One integer naming a contact point across steps: its two bodies (walls below zero) and feature."""
    return ((a * (bodies + PLANES)) + (b + PLANES)) * FEATURES + feature


@numba.njit(cache=True, parallel=True)
def collide_boxes(
    pos: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    moving: npt.NDArray[np.bool_],
    margin: npt.NDArray[np.float64],
    pair_a: npt.NDArray[np.int64],
    pair_b: npt.NDArray[np.int64],
    walls: npt.NDArray[np.float64],
    wall_margin: float,
    start: npt.NDArray[np.int64],
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    c_key: npt.NDArray[np.int64],
    c_point: npt.NDArray[np.float64],
    c_normal: npt.NDArray[np.float64],
    c_separation: npt.NDArray[np.float64],
    manifold: npt.NDArray[np.float64],
) -> int:
    """Every contact point of the moving boxes (turned by ``turn``: cosine and sine) against the
    walls, then of the listed pairs.

    ``walls`` is ``(4, 3)``: each wall's inward normal and offset
    (``m · x >= offset`` is inside), in ``plane_body`` order. ``start``
    (at least boxes + pairs + 1 long) gets where each box's wall points,
    then each pair's points, begin (the rows of group ``g`` are
    ``[start[g], start[g + 1])``), for the warm start (``warm_from_last``).
    Returns the number of points; when the ``c_`` rows are too few, only
    the count is right: grow them and call again.

    Many pairs are tested in two halves at once (each pair's manifold into
    its own row of ``manifold``, scratch of at least ``(pairs, 11)`` kept
    by the caller), then written out in pair order.
    """
    capacity = c_a.shape[0]
    bodies = pos.shape[0]
    count = 0
    # the walls first: in a Gauss-Seidel pass the floor's push then travels up through what rests on it
    for a in range(bodies):
        start[a] = count
        if not moving[a]:
            continue
        reach = math.hypot(half[a, 0], half[a, 1]) + margin[a] + wall_margin
        for side in range(PLANES):
            mx = walls[side, 0]
            my = walls[side, 1]
            if mx * pos[a, 0] + my * pos[a, 1] - walls[side, 2] > reach:
                continue  # no corner can come within the margin of this wall
            found, x0, y0, s0, f0, x1, y1, s1, f1 = box_plane(
                pos[a, 0],
                pos[a, 1],
                turn[a, 0],
                turn[a, 1],
                half[a, 0],
                half[a, 1],
                mx,
                my,
                walls[side, 2],
                margin[a] + wall_margin,
            )
            for k in range(found):
                if count < capacity:
                    c_a[count] = a
                    c_b[count] = -1 - side
                    c_normal[count, 0] = -mx
                    c_normal[count, 1] = -my
                    c_point[count, 0] = x0 if k == 0 else x1
                    c_point[count, 1] = y0 if k == 0 else y1
                    c_separation[count] = s0 if k == 0 else s1
                    c_key[count] = contact_key(a, -1 - side, f0 if k == 0 else f1, bodies)
                count += 1
    # the pairs' manifolds (two halves at once when there are many), then written out in pair order
    pairs = pair_a.shape[0]
    if pairs >= PARALLEL_PAIRS:
        middle = pairs // 2
        for part in numba.prange(2):
            _manifolds(
                part * middle, pairs if part else middle, pos, turn, half, margin, pair_a, pair_b, manifold
            )
    else:
        _manifolds(0, pairs, pos, turn, half, margin, pair_a, pair_b, manifold)
    for p in range(pairs):
        start[bodies + p] = count
        a = pair_a[p]
        b = pair_b[p]
        for k in range(int(manifold[p, 0])):
            if count < capacity:
                c_a[count] = a
                c_b[count] = b
                c_normal[count, 0] = manifold[p, 1]
                c_normal[count, 1] = manifold[p, 2]
                c_point[count, 0] = manifold[p, 3 + 4 * k]
                c_point[count, 1] = manifold[p, 4 + 4 * k]
                c_separation[count] = manifold[p, 5 + 4 * k]
                c_key[count] = contact_key(a, b, int(manifold[p, 6 + 4 * k]), bodies)
            count += 1
    start[bodies + pairs] = count
    return count


@numba.njit(cache=True)
def _manifolds(
    first: int,
    last: int,
    pos: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    margin: npt.NDArray[np.float64],
    pair_a: npt.NDArray[np.int64],
    pair_b: npt.NDArray[np.int64],
    manifold: npt.NDArray[np.float64],
) -> None:
    """Pairs ``[first, last)``: each one's manifold into its row of ``manifold`` (count, normal, then
    each point's x, y, separation and feature)."""
    for p in range(first, last):
        a = pair_a[p]
        b = pair_b[p]
        found, nx, ny, x0, y0, s0, f0, x1, y1, s1, f1 = box_box(
            pos[a, 0],
            pos[a, 1],
            turn[a, 0],
            turn[a, 1],
            half[a, 0],
            half[a, 1],
            pos[b, 0],
            pos[b, 1],
            turn[b, 0],
            turn[b, 1],
            half[b, 0],
            half[b, 1],
            margin[a] + margin[b],
        )
        manifold[p, 0] = found
        manifold[p, 1] = nx
        manifold[p, 2] = ny
        manifold[p, 3] = x0
        manifold[p, 4] = y0
        manifold[p, 5] = s0
        manifold[p, 6] = f0
        manifold[p, 7] = x1
        manifold[p, 8] = y1
        manifold[p, 9] = s1
        manifold[p, 10] = f1


@numba.njit(cache=True, parallel=True)
def warm_from_last(
    start: npt.NDArray[np.int64],
    last_start: npt.NDArray[np.int64],
    c_key: npt.NDArray[np.int64],
    last_key: npt.NDArray[np.int64],
    last_normal: npt.NDArray[np.float64],
    last_tangent: npt.NDArray[np.float64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
) -> None:
    """Each point starts from the impulses the point of its key ended the last step with, or zero,
    when the groups (each box's wall points, then each pair's, ``collide_boxes``) are the same as
    the last step's: a point's key can then only be among the last points of its own group, found
    without a hash. Many points: two halves of the groups at once."""
    groups = start.shape[0] - 1
    if start[groups] >= 2 * PARALLEL_PAIRS:
        middle = groups // 2
        for part in numba.prange(2):
            _warm_groups(
                part * middle, groups if part else middle, start, last_start, c_key, last_key,
                last_normal, last_tangent, c_normal_impulse, c_tangent_impulse,
            )  # fmt: skip
    else:
        _warm_groups(
            0, groups, start, last_start, c_key, last_key, last_normal, last_tangent, c_normal_impulse,
            c_tangent_impulse,
        )  # fmt: skip


@numba.njit(cache=True)
def _warm_groups(
    first: int,
    last: int,
    start: npt.NDArray[np.int64],
    last_start: npt.NDArray[np.int64],
    c_key: npt.NDArray[np.int64],
    last_key: npt.NDArray[np.int64],
    last_normal: npt.NDArray[np.float64],
    last_tangent: npt.NDArray[np.float64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
) -> None:
    """``warm_from_last`` for groups ``[first, last)``."""
    for g in range(first, last):
        for k in range(start[g], start[g + 1]):
            c_normal_impulse[k] = 0.0
            c_tangent_impulse[k] = 0.0
            for j in range(last_start[g], last_start[g + 1]):
                if last_key[j] == c_key[k]:
                    c_normal_impulse[k] = last_normal[j]
                    c_tangent_impulse[k] = last_tangent[j]
                    break


@numba.njit(cache=True, parallel=True)
def warm_from_table(
    c_key: npt.NDArray[np.int64],
    table: npt.NDArray[np.float64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
) -> None:
    """Each point starts from the impulses the hash ``table`` (``remember_impulses``) keeps for its
    key, or zero. Many points: two halves at once."""
    count = c_key.shape[0]
    if count >= 2 * PARALLEL_PAIRS:
        middle = count // 2
        for part in numba.prange(2):
            _warm_impulses(
                part * middle, count if part else middle, c_key, table, c_normal_impulse, c_tangent_impulse
            )
    else:
        _warm_impulses(0, count, c_key, table, c_normal_impulse, c_tangent_impulse)


@numba.njit(cache=True)
def _warm_impulses(
    first: int,
    last: int,
    c_key: npt.NDArray[np.int64],
    table: npt.NDArray[np.float64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
) -> None:
    """Points ``[first, last)`` start from the impulses the hash table keeps for their keys, or zero."""
    size = table.shape[0]
    for k in range(first, last):
        c_normal_impulse[k] = 0.0
        c_tangent_impulse[k] = 0.0
        key = float(c_key[k])
        slot = _hash(c_key[k]) & (size - 1)
        while table[slot, 0] >= 0.0:
            if table[slot, 0] == key:
                c_normal_impulse[k] = table[slot, 1]
                c_tangent_impulse[k] = table[slot, 2]
                break
            slot = _next_slot(slot, size)


GOLDEN = -7046029254386353131
"""2⁶⁴ / φ as a signed 64-bit integer (0x9E3779B97F4A7C15): Fibonacci hashing's multiplier."""


@numba.njit(cache=True)
def _hash(key: int) -> int:
    """Well-mixed bits of a contact key (Fibonacci hashing: the product wraps; callers mask the result)."""
    return (key * GOLDEN) >> 20


@numba.njit(cache=True)
def _next_slot(slot: int, size: int) -> int:
    """The slot probed after ``slot``: the next one, wrapping round within its half of the table (so
    the two halves can be filled at once)."""
    half = size >> 1
    base = slot & half
    return base + ((slot - base + 1) & (half - 1))


def table_size(points: int) -> int:
    """Rows of a hash table for ``points`` points (``remember_impulses``): a power of two, at least
    twice as many, at least 64."""
    return max(64, 1 << math.ceil(math.log2(2 * points + 1)))


@numba.njit(cache=True, parallel=True)
def remember_impulses(
    c_key: npt.NDArray[np.int64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
    table: npt.NDArray[np.float64],
) -> None:
    """Fill the hash ``table`` (rows of key, normal and tangent impulse; a power of two of them, at
    least twice the points) with the last step's points, for a warm start by key (linear probing
    within the half of the table a key hashes to; keys are unique).

    Many points fill the two halves on two threads, each taking the keys that hash into it in the
    points' order, so the table is the same however many threads there are. Each half has room for
    every point (the table is at least twice their number), so a probe always ends.
    """
    if c_key.shape[0] >= 2 * PARALLEL_PAIRS:
        for half in numba.prange(2):
            _remember_half(half, c_key, c_normal_impulse, c_tangent_impulse, table)
    else:
        for half in range(2):
            _remember_half(half, c_key, c_normal_impulse, c_tangent_impulse, table)


@numba.njit(cache=True)
def _remember_half(
    half: int,
    c_key: npt.NDArray[np.int64],
    c_normal_impulse: npt.NDArray[np.float64],
    c_tangent_impulse: npt.NDArray[np.float64],
    table: npt.NDArray[np.float64],
) -> None:
    """``remember_impulses`` for the keys that hash into half ``half`` of the table."""
    size = table.shape[0]
    low = half * (size >> 1)
    high = low + (size >> 1)
    table[low:high, 0] = -1.0
    for k in range(c_key.shape[0]):
        slot = _hash(c_key[k]) & (size - 1)
        if slot < low or slot >= high:
            continue
        while table[slot, 0] >= 0.0:
            slot = _next_slot(slot, size)
        table[slot, 0] = float(c_key[k])
        table[slot, 1] = c_normal_impulse[k]
        table[slot, 2] = c_tangent_impulse[k]
