"""The contact list of the box step: every point of the walls and of the listed pairs, keyed, and its
warm start from the last step's points.

Each point carries a key: its two bodies and its feature (``box_manifold``),
so a point found again next step starts from the impulses it ended with.
While the pair list is kept, a point looks for its key among the last
step's points of its own pair only (``warm_from_last``); when it is made
anew, in a hash table of all of them (``remember_impulses``,
``warm_from_table``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_manifold import FEATURES, box_box, box_plane
from weft.systems.kernels.jit import INNER, kernel_with_threads

PLANES = 4
"""The walls: floor, ceiling, left, right (bodies ``-1`` to ``-4`` in a point's ``c_b``)."""

PARALLEL_PAIRS = 1000
"""Pairs (and twice as many points) from which the manifolds are found, and the warm start made, in
two halves at once (fewer: starting the threads costs more)."""

MANIFOLD_COLUMNS = 11
"""A pair's manifold as ``collide_boxes`` keeps it between finding and writing out: point count,
normal, then each of two points' x, y, separation and feature."""


@numba.njit(cache=True, **INNER)
def contact_key(a: int, b: int, feature: int, bodies: int) -> int:
    """One integer naming a contact point across steps: its two bodies (walls below zero) and feature."""
    return ((a * (bodies + PLANES)) + (b + PLANES)) * FEATURES + feature


@kernel_with_threads(**INNER)
def collide_boxes(
    pos: npt.NDArray[np.float64],
    vel: npt.NDArray[np.float64],
    omega: npt.NDArray[np.float64],
    turn: npt.NDArray[np.float64],
    half: npt.NDArray[np.float64],
    moving: npt.NDArray[np.bool_],
    margin: npt.NDArray[np.float64],
    pair_a: npt.NDArray[np.int64],
    pair_b: npt.NDArray[np.int64],
    walls: npt.NDArray[np.float64],
    wall_margin: float,
    wall_vx: float,
    wall_vy: float,
    dt: float,
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
    (``m · x >= offset`` is inside), in ``plane_body`` order, moving
    together at ``(wall_vx, wall_vy)``; of a box's corners within the
    margin of a wall, the two deepest after ``dt`` are kept. ``start``
    (at least boxes + pairs + 1 long) gets where each box's wall points,
    then each pair's points, begin (the rows of group ``g`` are
    ``[start[g], start[g + 1])``), for the warm start (``warm_from_last``).
    Returns the number of points; when the ``c_`` rows are too few, only
    the count is right: grow them and call again.

    Many pairs are tested in two halves at once (each pair's manifold into
    its own row of ``manifold``, scratch of at least ``(pairs, MANIFOLD_COLUMNS)`` kept
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
                dt * (mx * (vel[a, 0] - wall_vx) + my * (vel[a, 1] - wall_vy)),
                dt * omega[a],
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
        _manifolds(np.int64(0), pairs, pos, turn, half, margin, pair_a, pair_b, manifold)
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


@numba.njit(cache=True, **INNER)
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


@kernel_with_threads(**INNER)
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
            np.int64(0), groups, start, last_start, c_key, last_key, last_normal, last_tangent,
            c_normal_impulse, c_tangent_impulse,
        )  # fmt: skip


@numba.njit(cache=True, **INNER)
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


@kernel_with_threads(**INNER)
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
        _warm_impulses(np.int64(0), count, c_key, table, c_normal_impulse, c_tangent_impulse)


@numba.njit(cache=True, **INNER)
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
        slot = fibonacci_hash(c_key[k]) & (size - 1)
        while table[slot, 0] >= 0.0:
            if table[slot, 0] == key:
                c_normal_impulse[k] = table[slot, 1]
                c_tangent_impulse[k] = table[slot, 2]
                break
            slot = _next_slot(slot, size)


GOLDEN = -7046029254386353131
"""2⁶⁴ / φ as a signed 64-bit integer (0x9E3779B97F4A7C15): Fibonacci hashing's multiplier."""


@numba.njit(cache=True, **INNER)
def fibonacci_hash(key: int) -> int:
    """Well-mixed bits of an integer key (Fibonacci hashing: the product wraps; callers mask the
    result to their table's power-of-two size): contact keys here, cell keys in ``box_overlaps``."""
    return (key * GOLDEN) >> 20


@numba.njit(cache=True, **INNER)
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


@kernel_with_threads(**INNER)
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
            _remember_half(np.int64(half), c_key, c_normal_impulse, c_tangent_impulse, table)
    else:
        for half in range(2):
            _remember_half(half, c_key, c_normal_impulse, c_tangent_impulse, table)


@numba.njit(cache=True, **INNER)
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
        slot = fibonacci_hash(c_key[k]) & (size - 1)
        if slot < low or slot >= high:
            continue
        while table[slot, 0] >= 0.0:
            slot = _next_slot(slot, size)
        table[slot, 0] = float(c_key[k])
        table[slot, 1] = c_normal_impulse[k]
        table[slot, 2] = c_tangent_impulse[k]
