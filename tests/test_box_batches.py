"""Manifolds packed into batches of four: no batch holds a moving box twice, pairs that share a box keep
their order, large scenes give the same numbers on one thread as on two, and a packing kept from step
to step gives the same numbers as a fresh one."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.kernels import from_python
from support.worlds import simulate

from weft.systems.kernels import box_batches, jit
from weft.systems.kernels.box_batches import LANES, PARTS, SEAM, SPLIT_FROM

# built for other kernels only (no wrapper for Python): copies a test can call
group_manifolds = from_python(box_batches.group_manifolds)
median = from_python(box_batches.median)
pack_batches = from_python(box_batches.pack_batches)
split_sides = from_python(box_batches.split_sides)

BODIES = 12


def pack(m_a: np.ndarray, m_b: np.ndarray, fixed: np.ndarray, part: np.ndarray) -> tuple[np.ndarray, ...]:
    """``pack_batches`` with its scratch made here: each manifold's batch and lane, and the part starts."""
    count = len(m_a)
    batch_of = np.zeros(count, dtype=np.int64)
    lane_of = np.zeros(count, dtype=np.int64)
    starts = pack_batches(
        m_a,
        m_b,
        fixed,
        part,
        batch_of,
        lane_of,
        np.zeros(count + 1, dtype=np.int64),
        np.zeros(count + 1, dtype=np.int64),
        np.zeros(len(fixed), dtype=np.int64),
    )
    return batch_of, lane_of, starts


manifold_lists = st.lists(
    st.tuples(st.integers(0, BODIES - 1), st.integers(0, BODIES)).filter(lambda ab: ab[0] != ab[1]),
    min_size=1,
    max_size=80,
)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(manifold_lists, st.lists(st.booleans(), min_size=BODIES, max_size=BODIES), st.data())
def test_batches_never_hold_a_moving_box_twice_and_keep_the_order_of_pairs_that_share_one(
    pairs: list[tuple[int, int]], fixed_boxes: list[bool], data: st.DataObject
) -> None:
    m_a = np.array([a for a, _ in pairs], dtype=np.int64)
    m_b = np.array([b for _, b in pairs], dtype=np.int64)
    fixed = np.array([*fixed_boxes, True], dtype=np.bool_)  # body BODIES is the walls
    part = np.array(data.draw(st.lists(st.integers(0, PARTS - 1), min_size=len(pairs), max_size=len(pairs))))
    batch_of, lane_of, starts = pack(m_a, m_b, fixed, part)

    # every part's batches lie within its bounds, and every lane is used once
    assert list(starts) == sorted(starts)
    for j in range(len(pairs)):
        assert starts[part[j]] <= batch_of[j] < starts[part[j] + 1]
    lanes = set(zip(batch_of.tolist(), lane_of.tolist(), strict=True))
    assert len(lanes) == len(pairs) and all(0 <= lane < LANES for _, lane in lanes)
    for j in range(len(pairs)):
        for k in range(j + 1, len(pairs)):
            shared = {int(m_a[j]), int(m_b[j])} & {int(m_a[k]), int(m_b[k])}
            moving = [body for body in shared if not fixed[body]]
            if not moving:
                continue
            # a shared moving box: never side by side, and in the same part the earlier goes first
            assert batch_of[j] != batch_of[k]
            if part[j] == part[k]:
                assert batch_of[j] < batch_of[k]


def test_contact_runs_become_manifolds_with_the_walls_as_one_body() -> None:
    c_a = np.array([0, 0, 0, 1, 1, 2], dtype=np.int64)
    c_b = np.array([-1, -1, 1, 2, 2, -2], dtype=np.int64)
    out = [np.zeros(6, dtype=np.int64) for _ in range(4)]
    count = group_manifolds(c_a, c_b, 9, *out)
    first_a, first_b, first, points = (array[:count] for array in out)
    assert count == 4
    assert first_a.tolist() == [0, 0, 1, 2]
    assert first_b.tolist() == [9, 1, 2, 9]
    assert first.tolist() == [0, 2, 3, 5]
    assert points.tolist() == [2, 1, 2, 1]


def test_a_large_scene_splits_at_its_middle_box_into_sides_that_share_no_moving_box() -> None:
    # a row of 3000 boxes, each touching the next: 2999 manifolds, over the threshold
    count = 3000
    m_a = np.arange(count - 1, dtype=np.int64)
    m_b = m_a + 1
    pos = np.column_stack([np.arange(count) * 10.0, np.zeros(count)])
    fixed = np.zeros(count + 2, dtype=np.bool_)
    part = np.zeros(count - 1, dtype=np.int64)
    split_sides(m_a, m_b, pos, fixed, part, np.zeros(count))
    assert set(part.tolist()) == {0, 1, SEAM}
    assert (part == SEAM).sum() == 1  # only the pair across the middle joins the two sides
    left = {int(body) for j in np.flatnonzero(part == 0) for body in (m_a[j], m_b[j])}
    right = {int(body) for j in np.flatnonzero(part == 1) for body in (m_a[j], m_b[j])}
    assert not left & right


def run_pyramid(threads: int) -> str:
    # 40 layers: 820 boxes and about 2400 manifolds, enough to solve two sides at once (800 px high)
    sim = simulate(
        """
        [world]
        bounds = [0, 0, 1280, 900]
        [world.rigid]
        sleeping = false
        [[boxes]]
        name = "pyramid"
        layout = "pyramid"
        count = 40
        size = [20, 20]
        base = [640, 0]
        """
    )
    sim.physics.threads.pin(threads)  # the step would choose by the clock
    sim.step(20)
    assert sim.stores.contacts.count >= 2 * SPLIT_FROM  # two points a manifold: over the threshold
    return str(sim.metrics()["state_hash"])


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread only: nothing to compare")
def test_a_large_pyramid_gives_the_same_state_on_one_thread_as_on_two() -> None:
    assert run_pyramid(1) == run_pyramid(2)


def test_a_large_pyramid_gives_the_same_state_with_the_kernels_one_thread_twins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threaded = run_pyramid(1)
    monkeypatch.setattr(jit, "THREADED_FROM", 10**9)  # every scene small: the twins run it
    assert run_pyramid(1) == threaded


TUMBLING = """
    [world.rigid]
    sleeping = false
    [[boxes]]
    name = "blocks"
    layout = "list"
    positions = [[640, 20], [400, 60], [900, 40]]
    angles_deg = [0, 35, 60]
    size = [80, 40]
    friction = 0.6
    [[boxes]]
    name = "planks"
    layout = "list"
    positions = [[684, 80], [400, 140]]
    size = [10, 80]
    friction = 0.6
    """
"""Blocks dropped turned land on a corner and tip onto a face (a manifold's points go from one to two);
a plank standing over the edge of a block tips off it (from two to one)."""


def states(level: str, keep_plan: bool) -> list[str]:
    """The state hash after each of 150 frames of ``level`` (the text of a level file), with the
    solver's packing kept from frame to frame or made afresh each frame."""
    sim = simulate(level)
    solver = sim.schedule.get("boxes")
    hashes = []
    for _ in range(150):
        if not keep_plan:
            solver.forget_packing()
        sim.step()
        hashes.append(str(sim.metrics()["state_hash"]))
    sim.close()
    return hashes


def test_a_kept_packing_steps_the_very_same_as_a_fresh_one() -> None:
    # manifolds come and go and change their points: the packing is made again in some frames and
    # kept in others (below SPLIT_FROM nothing hangs on positions, so they must agree to the bit)
    assert states(TUMBLING, keep_plan=True) == states(TUMBLING, keep_plan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=60))
def test_the_sides_split_at_the_median_as_numpy_finds_it(values: list[int]) -> None:
    xs = np.array(values, dtype=np.float64) * 0.37  # few distinct values: many ties
    assert median(xs.copy()) == np.median(xs)
