"""Box pairs by brute force: what the broadphase must find, tested against every pair."""

from __future__ import annotations

import numpy as np

from weft.systems.kernels.box_grid import extent


def overlapping(
    pos: np.ndarray, angle: np.ndarray, half: np.ndarray, margin: np.ndarray
) -> set[tuple[int, int]]:
    """Every pair ``a < b`` whose bounding boxes, grown by both margins, overlap."""
    reach = np.array(
        [extent(np.cos(angle[i]), np.sin(angle[i]), half[i, 0], half[i, 1]) for i in range(len(pos))]
    )
    apart = np.abs(pos[None, :, :] - pos[:, None, :])
    limit = reach[None, :, :] + reach[:, None, :] + (margin[None, :] + margin[:, None])[:, :, None]
    a, b = np.nonzero(np.triu((apart <= limit).all(axis=2), 1))
    return set(zip(a.tolist(), b.tolist(), strict=True))


def near_paths(
    pos: np.ndarray, prev: np.ndarray, radius: np.ndarray, margin: float, box_pos: np.ndarray,
    box_angle: np.ndarray, box_half: np.ndarray,
) -> set[tuple[int, int]]:  # fmt: skip
    """Every (particle, box) whose bounds meet: the box's, and the particle's path grown by its
    radius and ``margin``."""
    found = set()
    low, high = np.minimum(pos, prev), np.maximum(pos, prev)
    for j in range(len(box_pos)):
        ex, ey = extent(np.cos(box_angle[j]), np.sin(box_angle[j]), box_half[j, 0], box_half[j, 1])
        reach = radius + margin
        near = (
            (low[:, 0] - box_pos[j, 0] <= ex + reach)
            & (box_pos[j, 0] - high[:, 0] <= ex + reach)
            & (low[:, 1] - box_pos[j, 1] <= ey + reach)
            & (box_pos[j, 1] - high[:, 1] <= ey + reach)
        )
        found |= {(int(k), j) for k in np.flatnonzero(near)}
    return found
