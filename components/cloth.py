"""A cloth sheet: a grid of particles held by threads, drawn as a textured mesh."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt


@dataclass
class PinLayout:
    """Which points of the top row are pinned.

    ``kind`` is ``"every"`` (every ``every``-th point, both corners included),
    ``"ends"`` (the two top corners), ``"top"`` (the whole top row),
    ``"list"`` (the ``(col, row)`` pairs in ``points``, row 0 at the top) or ``"none"``.
    A list may give ``anchors``, one ``(x, y)`` per point, px: the points are
    held there instead of where the sheet was built (pins closer together
    than the sheet is wide make a slack hammock).
    """

    kind: str = "every"
    every: int = 4
    points: tuple[tuple[int, int], ...] = ()
    anchors: tuple[tuple[float, float], ...] = ()


@dataclass
class ClothLook:
    """How a sheet is drawn: a procedural pattern (one repeat every ``pattern_size`` px
    of the sheet at rest) or an image file stretched over the sheet, with the pattern's colours."""

    pattern: str = "gingham"
    pattern_size: float = 52.0
    texture: str | None = None
    """The image's absolute path, or None for the pattern."""
    folder: str | None = None
    """The level's folder, which ``texture`` must still lie in when it is drawn (None: no such rule)."""
    colors: tuple[tuple[int, int, int, int], ...] = ((200, 85, 61, 255), (242, 233, 220, 255))


@dataclass
class Sheet:
    """One sheet of ``cols x rows`` points; point ``(c, r)`` is ``particles[grid[r, c]]``.

    Threads are stored structural first (row by row: the row's horizontals,
    then the verticals down to the next row), then shear, then bend, so
    ``structural`` is a prefix of ``threads``.
    A cell of the grid is cloth while its four sides are alive, so the
    texture tears with the threads (``systems.cloth.woven_triangles``).

    Attributes:
        grid: ``(rows, cols)`` int64 index within ``particles`` of each point. A row's points
            are stored together, its even columns first, then its odd ones, so that each
            kind of a row's threads joins runs of consecutive points (``systems.cloth``).
        cells: ``(C, 4)`` int64 particle indices (global) of each cell's corners, top-left,
            top-right, bottom-left, bottom-right.
        cell_threads: ``(C, 4)`` int64 thread indices (global) of each cell's sides, top,
            bottom, left, right.
        uv: ``(N, 2)`` float64 texture coordinates in [0, 1], v up, in ``particles``' order.
        rest_pos: ``(N, 2)`` float64 positions as built, the anchors of pins, in ``particles``' order.
    """

    name: str
    cols: int
    rows: int
    spacing: float
    particles: range
    grid: npt.NDArray[np.int64]
    threads: range
    structural: range
    cells: npt.NDArray[np.int64]
    cell_threads: npt.NDArray[np.int64]
    uv: npt.NDArray[np.float64]
    rest_pos: npt.NDArray[np.float64]
    pins: PinLayout = field(default_factory=PinLayout)
    look: ClothLook = field(default_factory=ClothLook)
