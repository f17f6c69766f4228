"""How bright each point of a sheet is drawn: its fold, from how near its neighbours came.

The simulation is flat, so a fold shows as a point whose neighbours on
either side are closer than twice the spacing. Folded out of the screen by
an angle θ, they would be ``2 · spacing · cos θ`` apart, so that ratio is
``cos θ``: a light at the viewer (Lambert) makes the point ``cos θ``
bright (``systems/draw/cloth_mesh``). As numpy over the grid this took
0.17 ms of the default sheet's drawing a frame, in a dozen temporary
arrays; one pass here takes a few µs.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt


@numba.njit(cache=True)
def fold_shades(
    points: npt.NDArray[np.float64],
    grid: npt.NDArray[np.int64],
    spacing: float,
    across_alive: npt.NDArray[np.bool_],
    down_alive: npt.NDArray[np.bool_],
    strength: float,
    darkest: float,
    shade: npt.NDArray[np.float32],
) -> None:
    """Write each point's brightness into ``shade`` (as long as ``points``).

    ``cos θ = min(|p[c+1] - p[c-1]| / (2 · spacing), 1)`` across (a stretched
    thread is flat, not folded) and the same down; the brightness is their
    product floored at ``darkest``, blended with 1 by ``strength``:
    ``1 + strength · (max(cos_across · cos_down, darkest) - 1)``. A point on
    the border, or beside a torn thread (``across_alive`` ``(rows, cols - 1)``,
    ``down_alive`` ``(rows - 1, cols)``), counts as flat that way.
    Point ``(r, c)`` is ``points[grid[r, c]]`` (``Sheet.grid``), its shade ``shade[grid[r, c]]``.
    """
    rows, cols = grid.shape
    span = 2.0 * spacing
    for r in range(rows):
        for c in range(cols):
            cos_across = 1.0
            if 0 < c < cols - 1 and across_alive[r, c - 1] and across_alive[r, c]:
                left, right = grid[r, c - 1], grid[r, c + 1]
                dx = points[right, 0] - points[left, 0]
                dy = points[right, 1] - points[left, 1]
                cos_across = min(math.sqrt(dx * dx + dy * dy) / span, 1.0)
            cos_down = 1.0
            if 0 < r < rows - 1 and down_alive[r - 1, c] and down_alive[r, c]:
                above, below = grid[r - 1, c], grid[r + 1, c]
                dx = points[below, 0] - points[above, 0]
                dy = points[below, 1] - points[above, 1]
                cos_down = min(math.sqrt(dx * dx + dy * dy) / span, 1.0)
            lit = max(cos_across * cos_down, darkest)
            shade[grid[r, c]] = np.float32(1.0 + strength * (lit - 1.0))
