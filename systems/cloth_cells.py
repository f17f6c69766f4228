"""The cloth a sheet is now: its cells whose outline holds, as triangles to draw and to query."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from weft.systems.kernels.cells import weave_cells


def woven_triangles(
    pos: npt.NDArray[np.float64],
    cells: npt.NDArray[np.int64],
    cell_threads: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The triangles ``(2k, 3)`` (particle indices, two per cell, in pairs) a sheet is drawn with
    now, and twice each drawn cell's area ``(k,)``: the cells whose four sides are alive.

    A cell is cloth only while its outline holds. A triangle that needed
    only the two threads along its sides (the cut edge's half cells) hung on
    a free hinge: nothing holds the angle between its threads, so it folded
    shut and over and showed as a dark shard. A cell is split along the
    diagonal that shows one face where one does (``kernels.cells.weave_cells``),
    so a fold shows one face, not a sawtooth of front and back triangles.
    """
    triangles = np.empty((2 * len(cells), 3), dtype=np.int64)
    area = np.empty(len(cells))
    drawn = weave_cells(pos, cells, cell_threads, alive, triangles, area)
    return triangles[: 2 * drawn], area[:drawn]
