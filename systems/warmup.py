"""Loading every kernel once, before the first frame is timed.

numba compiles (or loads from its cache) a kernel on its first call: about
a quarter of a second for the set, which would land in the first frame's
physics time and make the first cut of a session stutter. Calling each
kernel once on tiny arrays of the dtypes the systems pass moves that cost
to start-up, once the cache holds them all (``weft warmup`` marked it,
``READY_MARK``). Before that, loading would be compiling (5 s here), most
of it for kinds of bodies a level may not have: the first frame then
compiles what the level needs, and no more.
"""

from __future__ import annotations

import functools

import numpy as np

from weft.systems.kernels import READY_MARK
from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.box_overlaps import count_box_overlaps
from weft.systems.kernels.box_sleep import wake_touched
from weft.systems.kernels.cells import same_triangles, weave_cells
from weft.systems.kernels.circle_contacts import collide_pairs
from weft.systems.kernels.distance import needs_general, relax_distances, relax_rigid_distances
from weft.systems.kernels.distance_sides import balanced_split, sides_hold, split_sides
from weft.systems.kernels.fold_shade import fold_shades
from weft.systems.kernels.force_fields import blast, kick_boxes, push_radially
from weft.systems.kernels.grid import bin_points, bin_points_sparse, find_pairs, index_blocks
from weft.systems.kernels.inside_walls import all_inside_walls
from weft.systems.kernels.jit import one_thread
from weft.systems.kernels.measure import deepest_overlap, farthest_particle_move, longest_move
from weft.systems.kernels.pins import place_pins
from weft.systems.kernels.softbody import hold_perimeter, place_legs, press_out, relax_ring, set_spin
from weft.systems.kernels.sweep import any_fast_circle, sweep_fast_circles
from weft.systems.kernels.tear import break_overstretched, kill_orphans, sweep_cut
from weft.systems.kernels.verlet import integrate


@functools.cache
def warm_kernels() -> None:
    """Call every kernel once when they are all cached (the first call per process does the work;
    later calls return at once)."""
    if READY_MARK.exists():
        call_every_kernel()


def call_wall_kernels() -> None:
    """The walls' test and clamp (``bounds``), on tiny arrays of the dtypes the systems pass: the
    clamp runs only once a point meets a wall, in a substep whose iterations are not one call."""
    pos = np.array([[0.0, 0.0], [10.0, 0.0]])
    radius = np.ones(2)
    all_inside_walls(pos, radius, -100.0, -100.0, 100.0, 100.0)
    kind = np.array([0, 1], dtype=np.uint8)
    clamp_to_bounds(
        pos, pos.copy(), radius, np.ones(2), kind, -100.0, -100.0, 100.0, 100.0, 0.5, 0.5, 0.1, 0.1, 0.0, 0.0
    )


def call_sleep_kernels() -> None:
    """Waking the sleeping boxes a moving one may touch (``wake_touched``), on empty arrays of the
    dtypes the box step passes: it runs only once some box has fallen asleep."""
    none = np.zeros(0, dtype=np.int64)
    wake_touched(none, none, np.zeros(0), np.zeros(0, dtype=np.bool_), none, np.zeros(0))


def call_cloth_drawing_kernels() -> None:
    """The kernels a cloth's mesh is drawn with (``draw/cloth_mesh.py``), on one cell: no stepped
    frame calls them, so they compile at a sheet's first draw unless called before (1.6 s)."""
    square = np.array([[0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]])
    cell = np.array([[0, 1, 2, 3]], dtype=np.int64)
    triangles = np.zeros((2, 3), np.int64)
    weave_cells(square, cell, np.zeros((1, 4), np.int64), np.ones(1, np.bool_), triangles, np.zeros(1))
    same_triangles(triangles, triangles)
    whole = np.ones((2, 1), np.bool_)
    fold_shades(square, cell.reshape(2, 2), 1.0, whole, whole.T.copy(), 0.5, 0.45, np.zeros(4, np.float32))


def call_every_kernel() -> None:
    """Call each kernel once on tiny arrays: loaded from numba's cache, or compiled and cached when
    it is not there (``weft warmup`` does so for the drawing kernels, which no stepped frame calls)."""
    pos = np.array([[0.0, 0.0], [10.0, 0.0]])
    prev = pos.copy()
    inv_mass = np.ones(2)
    i = np.array([0], dtype=np.uint32)
    j = np.array([1], dtype=np.uint32)
    rest = np.array([10.0])
    alive = np.ones(1, dtype=np.bool_)
    integrate(pos, prev, inv_mass, 0.0, -1.0, 1.0, 0.0, 0.1, 0.0, 0.99, 1.0 / 60.0)
    place_pins(
        pos,
        prev,
        np.ones(2),
        np.array([0], dtype=np.int64),
        pos[:1].copy(),
        pos[:1].copy(),
        np.full(1, 300.0),
        1.0 / 60.0,
        0.0,
        0.0,
        100.0,
        100.0,
        True,
        0.0,
        1.0,
    )
    relax_rigid_distances(pos, inv_mass, i, j, rest, alive)
    needs_general(np.zeros(1), np.zeros(1, dtype=np.uint8))
    split_sides(i, j, balanced_split(i, j), np.zeros((1, 3), dtype=np.int64))
    sides_hold(i, j, i, j)
    relax_distances(
        pos, inv_mass, i, j, rest, np.zeros(1), np.zeros(1), alive, np.zeros(1, dtype=np.uint8), 0.1
    )
    kind = np.array([0, 1], dtype=np.uint8)
    radius = np.ones(2)
    call_wall_kernels()
    call_sleep_kernels()
    no_parents = np.full((1, 4), -1, dtype=np.int64)
    break_overstretched(pos, i, j, rest, alive, np.full(1, np.inf), no_parents)
    kill_orphans(alive, no_parents)
    sweep_cut(pos, pos, i, j, alive, 5.0, -1.0, 5.0, 1.0, 0.0, 1.0)
    call_cloth_drawing_kernels()
    cell_of = np.zeros(2, dtype=np.int64)
    cell_start = np.zeros(5, dtype=np.uint32)
    order = np.zeros(2, dtype=np.uint32)
    bin_points(pos, np.ones(2, dtype=np.bool_), -100.0, -100.0, 100.0, 0, 0, 2, 2, cell_of, cell_start, order)
    pair_i = np.zeros(4, dtype=np.uint32)
    pair_j = np.zeros(4, dtype=np.uint32)
    one_thread(find_pairs)(
        pos,
        radius,
        kind,
        np.zeros(2, dtype=np.int64),
        2,
        2,
        cell_start,
        order,
        np.zeros(0, dtype=np.int64),
        0.5,
        pair_i.copy(),
        pair_j.copy(),
        np.zeros(4, np.uint8),
        pair_i,
        pair_j,
    )
    sweep_fast_circles(
        pos,
        prev,
        inv_mass,
        radius,
        kind,
        cell_of,
        -100.0,
        -100.0,
        100.0,
        2,
        2,
        cell_start,
        order,
        np.zeros(0, np.int64),
        np.zeros(1, np.int64),
        2.0,
        1000,
    )
    keys = np.zeros(2, dtype=np.int64)
    bin_points_sparse(
        pos, np.ones(2, np.bool_), -100.0, -100.0, 100.0, 2, 2, cell_of, order, keys, cell_start
    )
    blocks = np.zeros(3, dtype=np.int64)
    index_blocks(keys, 2, 2, blocks)
    sweep_fast_circles(
        pos,
        prev,
        inv_mass,
        radius,
        kind,
        cell_of,
        -100.0,
        -100.0,
        100.0,
        2,
        2,
        cell_start,
        order,
        keys,
        blocks,
        2.0,
        1000,
    )
    any_fast_circle(pos, prev, radius, kind)
    count_box_overlaps(pos, np.zeros(2), np.ones((2, 2)), np.zeros(2, np.bool_), np.zeros(2, np.int64))
    collide_pairs(pos, prev, inv_mass, radius, pair_i[:1], pair_j[:1], 0.1)
    deepest_overlap(pos, radius, pair_i[:1], pair_j[:1])
    longest_move(pos, prev)
    farthest_particle_move(pos, prev.copy())
    push_radially(pos, inv_mass, 0.0, 0.0, 50.0, 100.0, 0.1)
    blast(pos, prev, inv_mass, 0.0, 0.0, 50.0, 100.0, 0.1)
    asleep, island = np.zeros(2, np.bool_), np.full(2, -1, np.int64)
    kick_boxes(
        pos,
        np.zeros(2),
        np.ones((2, 2)),
        np.zeros((2, 2)),
        inv_mass,
        asleep,
        island,
        np.zeros(2),
        0.0,
        0.0,
        50.0,
        1.0,
        10.0,
    )
    ring_pos = np.array([[10.0, 0.0], [0.0, 10.0], [-10.0, 0.0], [0.0, -10.0]])
    ring_prev = ring_pos.copy()
    ring = np.arange(4, dtype=np.int64)
    one = np.ones(4)
    relax_ring(ring_pos, one, ring, 14.0, 400.0, 0.2, 0.3)
    press_out(ring_pos, ring_prev, one, ring, 0.0, 20.0, 0.0, 0.0, 15.0, 1.0, 1.0)
    hold_perimeter(ring_pos, one, ring, 50.0)
    set_spin(ring_pos, ring_prev, ring, 0.01)
    leg = np.array([0], dtype=np.int64)
    place_legs(
        ring_pos,
        ring_prev,
        ring,
        leg,
        leg + 1,
        np.array([0.5]),
        leg + 2,
        leg + 3,
        np.array([5.0]),
        np.array([-0.5, 0.5]),
        np.array([-0.5, 0.5]),
        0.0,
        -1.0,
        1.0,
        np.array([[0.0, -20.0, 2.0]]),
        -100.0,
        -100.0,
        100.0,
        100.0,
        0.5,
        0.05,
    )
