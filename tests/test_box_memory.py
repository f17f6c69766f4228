"""The box solver's working memory: the carved views tile the kept buffers exactly, none overlapping
another, none reaching past what ``work_sizes`` and ``plan_sizes`` ask for."""

from __future__ import annotations

import numpy as np
import pytest
from support.kernels import from_python

from weft.systems.kernels import box_memory
from weft.systems.kernels.box_memory import plan_sizes, work_sizes

# built for other kernels only (no wrapper for Python): copies a test can call
carve_batches = from_python(box_memory.carve_batches)
carve_bodies = from_python(box_memory.carve_bodies)
carve_manifolds = from_python(box_memory.carve_manifolds)
carve_plan = from_python(box_memory.carve_plan)
plan_capacity = from_python(box_memory.plan_capacity)


def covered(buffer: np.ndarray, views: tuple[np.ndarray, ...]) -> np.ndarray:
    """How many views hold each element of ``buffer`` (each view marks its elements through
    numpy's view of the same memory)."""
    counts = np.zeros(len(buffer), dtype=np.int64)
    start = buffer.__array_interface__["data"][0]
    for view in views:
        assert np.shares_memory(view, buffer) or view.size == 0
        first = (view.__array_interface__["data"][0] - start) // buffer.itemsize
        counts[first : first + view.size] += 1
    return counts


@pytest.mark.parametrize(("n", "m"), [(1, 1), (7, 12), (55, 130)])
def test_the_work_views_tile_the_work_buffers(n: int, m: int) -> None:
    floats, ints = work_sizes(n, m)
    work_floats, work_ints = np.zeros(floats), np.zeros(ints, dtype=np.int64)
    assert (covered(work_floats, carve_bodies(work_floats, n)) == 1).all()
    assert (covered(work_ints, carve_manifolds(work_ints, n, m)) == 1).all()


@pytest.mark.parametrize(("m", "batches"), [(1, 1), (40, 13), (40, 40)])
def test_the_plan_views_tile_the_plan_buffers_when_full(m: int, batches: int) -> None:
    floats, ints = plan_sizes(m)
    plan_floats, plan_ints = np.zeros(floats), np.zeros(ints, dtype=np.int64)
    assert plan_capacity(plan_floats, plan_ints) == m
    views = carve_plan(plan_ints, m) + carve_batches(plan_floats, plan_ints, m, batches)
    int_views = tuple(v for v in views if v.dtype == np.int64)
    float_views = tuple(v for v in views if v.dtype == np.float64)
    ints_held, floats_held = covered(plan_ints, int_views), covered(plan_floats, float_views)
    assert ints_held.max() == 1 and floats_held.max() == 1  # no two views share an element
    if batches == m:
        assert (ints_held == 1).all() and (floats_held == 1).all()  # full: every element in a view
