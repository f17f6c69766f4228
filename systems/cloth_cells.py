"""The cloth a sheet is now: its cells whose outline holds, as triangles to draw and to query."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def _signed_areas(
    pos: npt.NDArray[np.float64], p: npt.NDArray[np.int64], q: npt.NDArray[np.int64], r: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """Twice the signed area of each triangle ``(p, q, r)``: positive counter-clockwise."""
    u = pos[q] - pos[p]
    v = pos[r] - pos[p]
    return u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]


def woven_triangles(
    pos: npt.NDArray[np.float64],
    cells: npt.NDArray[np.int64],
    cell_threads: npt.NDArray[np.int64],
    alive: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int64]:
    """The triangles ``(2k, 3)`` (particle indices) a sheet is drawn with now: two per cell whose four
    sides are alive.

    A cell is cloth only while its outline holds. A triangle that needed
    only the two threads along its sides (the cut edge's half cells) hung on
    a free hinge: nothing holds the angle between its threads, so it folded
    shut and over and showed as a dark shard. A cell is split along the
    diagonal a-d unless that gives halves facing opposite ways where b-c
    does not (the cell folded into a dart): then along b-c, so a fold shows
    one face, not a sawtooth of front and back triangles.
    """
    whole = cells[alive[cell_threads].all(axis=1)]
    a, b, c, d = whole.T
    # a-d splits into (a, b, d) and (a, d, c); b-c into (a, b, c) and (b, d, c)
    mixed = np.signbit(_signed_areas(pos, a, b, d)) != np.signbit(_signed_areas(pos, a, d, c))
    other_agrees = np.signbit(_signed_areas(pos, a, b, c)) == np.signbit(_signed_areas(pos, b, d, c))
    turn = mixed & other_agrees
    first = np.where(turn[:, None], np.stack([a, b, c], axis=1), np.stack([a, b, d], axis=1))
    second = np.where(turn[:, None], np.stack([b, d, c], axis=1), np.stack([a, d, c], axis=1))
    return np.concatenate([first, second])
