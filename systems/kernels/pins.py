"""Placing pinned and grabbed particles on their (possibly moving) anchors."""

from __future__ import annotations

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
    t_before: float,
    t_after: float,
) -> None:
    """Put each pinned particle at ``start + (anchor - start) * t_after``.

    ``prev`` goes to the same line at ``t_before``, so a grabbed point moves
    in even steps across the substeps of a frame and carries the cursor's
    velocity when it is let go. Shapes: ``pos``, ``prev`` ``(N, 2)``;
    ``index`` ``(P,)``; ``start``, ``anchor`` ``(P, 2)``.
    """
    for p in range(index.shape[0]):
        k = index[p]
        for axis in range(2):
            delta = anchor[p, axis] - start[p, axis]
            prev[k, axis] = start[p, axis] + delta * t_before
            pos[k, axis] = start[p, axis] + delta * t_after
