"""One box step in one call, once a particle substep: motion, kept pairs, contacts, warm start, the
solver's substeps, the points kept.

The box step is several kernels in a row. Called from Python one by one,
a small scene paid more for the calls (each array handed over, each slice
made) than for some of the kernels: about 20 µs of the 55-box pyramid's
frame. Here they run in one call, over the stores' whole arrays and their
counts, and Python steps in only where the work is rare or makes arrays:
listing the pairs anew, and growing the contact rows.
"""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.box_contacts import (
    PARALLEL_PAIRS,
    collide_boxes,
    remember_impulses,
    warm_from_last,
    warm_from_table,
)
from weft.systems.kernels.box_grid import box_motion, pairs_still_hold
from weft.systems.kernels.box_solver import Settings, solve_boxes
from weft.systems.kernels.jit import INNER, kernel_with_threads

ASLEEP, STEPPED, RELIST, GROW = range(4)
"""What ``step_boxes`` did: nothing (every box asleep or fixed), the step, nothing yet (the pairs
must be listed anew first), or nothing yet (the contact rows must grow to the count it returns)."""

Bodies = tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.bool_],
]
"""The ``RigidStore``'s ``(pos, angle, vel, omega, half, inv_mass, inv_inertia, friction, restitution,
iterations, asleep)``."""

Grid = tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.bool_],
    npt.NDArray[np.float64],
]
"""The ``BoxGrid``'s ``(turn, moving, margin, pair_a, pair_b, listed_pos, listed_angle, listed_margin,
listed_moving, manifold)``."""

Points = tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    npt.NDArray[np.float64],
]
"""The ``ContactStore``'s ``(start, a, b, key, point, normal, separation, gap, normal_impulse,
tangent_impulse, last_key, last_normal, last_tangent, last_start, table)``."""

Work = tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]
"""The solver's working memory and its kept batches (``solve_boxes``)."""


@kernel_with_threads
def step_boxes(
    n: int,
    bodies: Bodies,
    grid: Grid,
    pair_count: int,
    fresh_pairs: bool,
    points: Points,
    last_count: int,
    last_groups: int,
    work: Work,
    walls: npt.NDArray[np.float64],
    reach: float,
    wall_margin: float,
    spring: npt.NDArray[np.float64],
    spring_body: int,
    settings: Settings,
) -> tuple[int, int]:
    """Step the first ``n`` boxes by ``dt`` (one particle substep, holding the solver's own
    substeps); returns what it did (``ASLEEP``, ``STEPPED``, ``RELIST``, ``GROW``) and how many
    contact points the step has.

    In turn: each box's motion (``box_motion``, with ``reach`` on every
    margin), whether the ``pair_count`` pairs listed still hold (unless
    ``fresh_pairs``: just listed), the points of those pairs and of the
    ``walls`` (``collide_boxes``), their warm start (by pair while the
    pairs are kept and the last step had as many groups; else from the
    hash table, which is filled here from the ``last_count`` points), the
    solver, and this step's points kept as the next one's last.

    Compiled for threads, though only the copy of many points uses them
    here (the solver's twin is inlined into this one's twin; the solver for
    threads is called); compiled plain, it segfaulted here on every load
    from numba's cache (numba 0.68.1, OpenMP threads; numba issue 8578: a
    cached plain function calling kernels compiled for threads).

    The caller sizes what it can before the call: ``start`` at least boxes
    plus pairs plus one, ``manifold`` a row per pair, ``last_start`` as
    long as ``start``, the table for ``last_count`` points (``table_size``),
    and the work arrays for as many points as the contact rows hold. Arrays
    too short raise ``ValueError`` (numba checks no index).
    """
    pos, angle, vel, omega, half, inv_mass, inv_inertia, friction, restitution, iterations, asleep = bodies
    turn, moving, margin, pair_a, pair_b = grid[:5]
    listed_pos, listed_angle, listed_margin, listed_moving, manifold = grid[5:]
    start, c_a, c_b, key, point, normal, separation, gap, normal_impulse, tangent_impulse = points[:10]
    last_key, last_normal, last_tangent, last_start, table = points[10:]
    wall_vx, wall_vy, dt = settings[2:5]
    # Never write a slice of an array unpacked above: in a function compiled for threads numba 0.68
    # writes it to a copy (as with arrays in a namedtuple, numba issue 5872). Write elements.
    groups = n + pair_count
    if (
        start.shape[0] <= groups
        or last_start.shape[0] <= groups
        or manifold.shape[0] < pair_count
        or table.shape[0] <= 2 * last_count
        or min(pos.shape[0], turn.shape[0], moving.shape[0], margin.shape[0]) < n
    ):
        raise ValueError("step_boxes: arrays shorter than the boxes, pairs or points ask")
    if not box_motion(
        angle[:n], vel[:n], omega[:n], half[:n], inv_mass[:n], asleep[:n], reach, dt,
        moving[:n], margin[:n], turn[:n],
    ):  # fmt: skip
        return ASLEEP, 0
    if not fresh_pairs and (
        listed_pos.shape[0] != n
        or min(listed_angle.shape[0], listed_margin.shape[0], listed_moving.shape[0]) != n
        or not pairs_still_hold(
            pos[:n],
            angle[:n],
            half[:n],
            margin[:n],
            listed_pos,
            listed_angle,
            listed_margin,
            moving[:n],
            listed_moving,
        )
    ):
        return RELIST, 0
    found = collide_boxes(
        pos[:n], vel[:n], omega[:n], turn[:n], half[:n], moving[:n], margin[:n], pair_a[:pair_count],
        pair_b[:pair_count], walls, wall_margin, wall_vx, wall_vy, dt, start, c_a, c_b, key, point, normal,
        separation, manifold,
    )  # fmt: skip
    if found > c_a.shape[0]:
        return GROW, found
    if not fresh_pairs and last_groups == groups:
        warm_from_last(
            start[: groups + 1], last_start, key[:found], last_key[:last_count], last_normal[:last_count],
            last_tangent[:last_count], normal_impulse[:found], tangent_impulse[:found],
        )  # fmt: skip
    else:
        remember_impulses(last_key[:last_count], last_normal[:last_count], last_tangent[:last_count], table)
        warm_from_table(key[:found], table, normal_impulse[:found], tangent_impulse[:found])
    work_floats, work_ints, plan_floats, plan_ints = work
    solve_boxes(
        pos[:n], angle[:n], vel[:n], omega[:n], inv_mass[:n], inv_inertia[:n], friction[:n],
        restitution[:n], iterations[:n], moving[:n], c_a[:found], c_b[:found], point[:found], normal[:found],
        separation[:found], normal_impulse[:found], tangent_impulse[:found], gap[:found], work_floats,
        work_ints, plan_floats, plan_ints, spring, spring_body, settings,
    )  # fmt: skip
    # this step's points become the last ones (many: two halves at once)
    if found >= 2 * PARALLEL_PAIRS:
        middle = found // 2
        for part in numba.prange(2):
            _keep_points(
                part * middle, found if part else middle, key, normal_impulse, tangent_impulse, points
            )
    else:
        _keep_points(np.int64(0), found, key, normal_impulse, tangent_impulse, points)
    for g in range(groups + 1):
        last_start[g] = start[g]
    return STEPPED, found


@numba.njit(cache=True, **INNER)
def _keep_points(
    first: int,
    last: int,
    key: npt.NDArray[np.int64],
    normal_impulse: npt.NDArray[np.float64],
    tangent_impulse: npt.NDArray[np.float64],
    points: Points,
) -> None:
    """Points ``[first, last)`` become the last points: their keys and impulses."""
    last_key, last_normal, last_tangent = points[10], points[11], points[12]
    for k in range(first, last):
        last_key[k] = key[k]
        last_normal[k] = normal_impulse[k]
        last_tangent[k] = tangent_impulse[k]
