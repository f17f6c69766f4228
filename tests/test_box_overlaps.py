"""Counting the box pairs a level starts overlapping: the grid finds every pair brute force finds,
the exact test tells overlapping from touching and from corners that only look close."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from weft.game.level.box_check import box_overlaps
from weft.game.level.schema import Level
from weft.systems.box_build import pyramid_centers, stack_centers
from weft.systems.kernels.box_overlaps import TOUCH, count_box_overlaps

LEVELS = Path(__file__).resolve().parent.parent / "levels"


def corners(center: np.ndarray, angle: float, half: np.ndarray) -> np.ndarray:
    """The box's four corners counter-clockwise, ``(4, 2)``."""
    c, s = math.cos(angle), math.sin(angle)
    local = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half
    return center + local @ np.array([[c, s], [-s, c]])


def clipped_area(a: np.ndarray, b: np.ndarray) -> float:
    """Area of convex polygon ``a`` clipped by convex polygon ``b`` (Sutherland-Hodgman): an oracle
    that shares nothing with the separating axis test."""
    out = list(a)
    for k in range(len(b)):
        p, q = b[k], b[(k + 1) % len(b)]
        edge = q - p

        def inside(x: np.ndarray, p: np.ndarray = p, edge: np.ndarray = edge) -> float:
            return edge[0] * (x[1] - p[1]) - edge[1] * (x[0] - p[0])

        points, out = out, []
        for m in range(len(points)):
            cur, nxt = points[m], points[(m + 1) % len(points)]
            fc, fn = inside(cur), inside(nxt)
            if fc >= 0:
                out.append(cur)
            if (fc >= 0) != (fn >= 0):
                out.append(cur + (nxt - cur) * (fc / (fc - fn)))
        if not out:
            return 0.0
    xs = np.array([x for x, _ in out])
    ys = np.array([y for _, y in out])
    return 0.5 * abs(float(np.dot(xs, np.roll(ys, -1)) - np.dot(ys, np.roll(xs, -1))))


def depths(
    center: np.ndarray, angle: np.ndarray, half: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every pair ``i < j``: ``i``, ``j`` and the least overlap over the four edge normals
    (negative: a gap), from the corners' projections by brute force."""
    i, j = np.triu_indices(len(center), 1)
    box_corners = np.array([corners(c, a, h) for c, a, h in zip(center, angle, half, strict=True)])
    least = np.full(len(i), np.inf)
    for turn in (angle[i], angle[i] + math.pi / 2, angle[j], angle[j] + math.pi / 2):
        u = np.stack([np.cos(turn), np.sin(turn)], axis=1)  # (pairs, 2)
        ra = np.abs(np.einsum("pkd,pd->pk", box_corners[i] - center[i, None], u)).max(axis=1)
        rb = np.abs(np.einsum("pkd,pd->pk", box_corners[j] - center[j, None], u)).max(axis=1)
        apart = np.abs(np.einsum("pd,pd->p", center[j] - center[i], u))
        least = np.minimum(least, ra + rb - apart)
    return i, j, least


def counted(center: np.ndarray, angle: np.ndarray, half: np.ndarray, fixed: np.ndarray | None = None) -> int:
    later = np.zeros(len(center), dtype=np.int64)
    fixed = np.zeros(len(center), dtype=np.bool_) if fixed is None else fixed
    total = count_box_overlaps(center, angle, half, fixed, later)
    assert later.sum() == total
    return int(total)


@pytest.mark.parametrize("seed", range(6))
def test_the_grid_counts_every_pair_brute_force_finds(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    center = rng.uniform(0.0, 600.0, (n, 2))
    angle = rng.uniform(-math.pi, math.pi, n)
    half = rng.uniform(2.0, 25.0, (n, 2))
    half[::50] *= 3.0  # a few large boxes make the cells wide
    i, j, overlap = depths(center, angle, half)
    found = int((overlap > TOUCH).sum())
    # away from the touching line, the clipped polygons agree with the projections (a sample)
    clear = np.flatnonzero(np.abs(overlap) > 0.05)[::20]
    for p in clear:
        a, b = i[p], j[p]
        area = clipped_area(corners(center[a], angle[a], half[a]), corners(center[b], angle[b], half[b]))
        assert (area > 1e-9) == (overlap[p] > 0), (a, b, area, overlap[p])
    assert found > 100
    assert counted(center, angle, half) == found


def test_boxes_laid_edge_to_edge_touch_and_do_not_count() -> None:
    pyramid = pyramid_centers(100, (40.0, 40.0), (2200.0, 0.0), 0.0)
    stack = stack_centers(40, (13.7, 9.1), (600.0, 0.0), 0.0, [])
    for center, size in ((pyramid, 40.0), (stack, [13.7, 9.1])):
        half = np.broadcast_to(0.5 * np.asarray(size, dtype=np.float64), center.shape).copy()
        assert counted(center, np.zeros(len(center)), half) == 0


def test_a_corner_near_a_turned_box_is_not_an_overlap_but_a_copy_is() -> None:
    # a square turned 45 degrees beside another: their bounding boxes overlap, the squares do not
    center = np.array([[0.0, 0.0], [20.0 + 10.0 * math.sqrt(2.0) - 1.0, 19.0]])
    angle = np.array([0.0, math.pi / 4])
    half = np.full((2, 2), 10.0)
    assert counted(center, angle, half) == 0
    assert counted(np.array([[0.0, 0.0], [0.0, 0.0]]), angle, half) == 1
    # two fixed boxes never act on each other: a platform of overlapping tiles costs nothing
    assert counted(np.zeros((2, 2)), angle, half, np.ones(2, dtype=np.bool_)) == 0
    assert counted(np.zeros((2, 2)), angle, half, np.array([True, False])) == 1


def test_copies_of_a_pyramid_at_one_place_overlap_as_the_square_of_the_copies() -> None:
    table = {"layout": "pyramid", "count": 10, "size": [40, 40], "base": [640, 0]}
    level = Level.model_validate({"boxes": [{**table, "name": f"p{k}"} for k in range(9)]})
    total, closed = box_overlaps(level)
    assert total == 55 * 9 * 8 // 2 == 1980
    assert closed == [55 * k for k in range(9)]  # copy k overlaps each of the k before it


def test_a_level_with_too_few_boxes_to_pass_the_budget_never_compiles_the_count(tmp_path) -> None:
    # 63 boxes make at most 1953 pairs, within BOX_OVERLAPS: validation skips the count, so a first
    # start does not compile its kernel (a fresh numba cache, in a process of its own)
    script = (
        "from pathlib import Path\n"
        "from weft.game.level.load import load_level\n"
        "from weft.systems.kernels.box_overlaps import count_box_overlaps\n"
        f"load_level(Path({str(LEVELS / 'pyramid.toml')!r}))\n"
        "print(len(count_box_overlaps.signatures))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.split()[-1] == "0"
