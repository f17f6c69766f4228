"""Placing pinned and grabbed particles on their (possibly moving) anchors."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt


@numba.njit(cache=True)
def place_pins(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    index: npt.NDArray[np.int64],
    start: npt.NDArray[np.float64],
    anchor: npt.NDArray[np.float64],
    glide: npt.NDArray[np.bool_],
    glide_reach: float,
    first_substep: bool,
    t_before: float,
    t_after: float,
) -> None:
    """Move each pinned particle along the line from ``start`` to this frame's goal.

    On the first substep of a frame, ``start`` becomes where the particle
    is. The goal is the anchor, or for a gliding pin at most
    ``glide_reach`` px towards it. The particle goes to
    ``start + (goal - start) * t_after`` and ``prev`` to the same line at
    ``t_before``, so a grabbed point moves in even steps across the
    substeps and carries the cursor's velocity when it is let go.
    Shapes: ``pos``, ``prev`` ``(N, 2)``; ``index``, ``glide`` ``(P,)``;
    ``start``, ``anchor`` ``(P, 2)``.
    """
    for p in range(index.shape[0]):
        k = index[p]
        if first_substep:
            start[p, 0] = pos[k, 0]
            start[p, 1] = pos[k, 1]
        dx = anchor[p, 0] - start[p, 0]
        dy = anchor[p, 1] - start[p, 1]
        if glide[p]:
            distance = math.sqrt(dx * dx + dy * dy)
            if distance > glide_reach:
                dx *= glide_reach / distance
                dy *= glide_reach / distance
        prev[k, 0] = start[p, 0] + dx * t_before
        prev[k, 1] = start[p, 1] + dy * t_before
        pos[k, 0] = start[p, 0] + dx * t_after
        pos[k, 1] = start[p, 1] + dy * t_after
