"""Placing pinned and grabbed particles on their (possibly moving) anchors."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

PinArrays = tuple[
    npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]
]
"""The pins' particle indices ``(P,)``, starts ``(P, 2)``, anchors ``(P, 2)`` and speeds ``(P,)``."""
Pinning = tuple[float, float, float, float, float, bool, float, float]
"""``place_pins``' scalars: the frame's length, the bounds (left, bottom, right, top), whether this
is the frame's first substep, and the substep's start and end as shares of the frame."""


@numba.njit(cache=True)
def place_pins(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    radius: npt.NDArray[np.float64],
    index: npt.NDArray[np.int64],
    start: npt.NDArray[np.float64],
    anchor: npt.NDArray[np.float64],
    speed: npt.NDArray[np.float64],
    frame_dt: float,
    left: float,
    bottom: float,
    right: float,
    top: float,
    first_substep: bool,
    t_before: float,
    t_after: float,
) -> None:
    """Move each pinned particle along the line from ``start`` to this frame's goal.

    On the first substep of a frame, ``start`` becomes where the particle
    is. Both ``start`` and the goal, the anchor, are brought inside the
    level's rectangle (inset by the particle's radius): nothing is held
    outside the world, so nothing let go there is thrown back in. The goal is
    then at most ``speed * frame_dt`` px (the
    pin's speed, px/s, over the frame) from ``start``. The particle goes to
    ``start + (goal - start) * t_after`` and ``prev`` to the same line at
    ``t_before``, so a grabbed point moves in even steps across the
    substeps and carries its velocity, at most the pin's speed, when let go.
    A particle pushed off that line since the last substep keeps the
    offset for the rest of the frame.
    Shapes: ``pos``, ``prev`` ``(N, 2)``; ``radius`` ``(N,)``; ``index``,
    ``speed`` ``(P,)``; ``start``, ``anchor`` ``(P, 2)``.
    """
    for p in range(index.shape[0]):
        k = index[p]
        r = radius[k]
        if first_substep:
            start[p, 0] = min(max(pos[k, 0], left + r), right - r)
            start[p, 1] = min(max(pos[k, 1], bottom + r), top - r)
        goal_x = min(max(anchor[p, 0], left + r), right - r)
        goal_y = min(max(anchor[p, 1], bottom + r), top - r)
        dx = goal_x - start[p, 0]
        dy = goal_y - start[p, 1]
        distance = math.sqrt(dx * dx + dy * dy)
        reach = speed[p] * frame_dt
        if distance > reach:
            dx *= reach / distance
            dy *= reach / distance
        # how far the particle was pushed off its line since the last substep (only a box braced
        # against it pushes a pinned particle: box_braces); it goes on from there, so a hand pressed
        # into a crate enters it a step a substep, never past its middle in one
        off_x = 0.0 if first_substep else pos[k, 0] - (start[p, 0] + dx * t_before)
        off_y = 0.0 if first_substep else pos[k, 1] - (start[p, 1] + dy * t_before)
        prev[k, 0] = start[p, 0] + dx * t_before + off_x
        prev[k, 1] = start[p, 1] + dy * t_before + off_y
        pos[k, 0] = start[p, 0] + dx * t_after + off_x
        pos[k, 1] = start[p, 1] + dy * t_after + off_y
