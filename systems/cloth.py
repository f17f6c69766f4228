"""Building a cloth sheet into the stores, and laying out its pins."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from weft.components import ClothLook, PinLayout, Sheet, Stores, ThreadKind
from weft.systems.pins import pin, unpin_owned_by


def build_cloth(
    stores: Stores,
    owner: int,
    *,
    name: str,
    origin: tuple[float, float],
    cols: int,
    rows: int,
    spacing: float,
    mass: float,
    thickness: float,
    tear_ratio: float,
    compliance: float,
    shear: bool,
    bend: bool,
    pins: PinLayout | None = None,
    look: ClothLook | None = None,
) -> Sheet:
    """Add a ``cols x rows`` sheet hanging down from ``origin`` (its top-left point) and pin it.

    Returns the ``Sheet`` component to put on entity ``owner``. ``tear_ratio``
    ``inf`` makes an untearable sheet; shear and bend threads never tear on
    their own but die with the structural threads they lean on.
    """
    slots = _row_slots(cols)
    grid_local = np.arange(rows)[:, None] * cols + slots
    c, r = np.meshgrid(np.arange(cols), np.arange(rows))
    stored = grid_local.ravel()
    rest_pos = np.empty((rows * cols, 2), dtype=np.float64)
    rest_pos[stored] = np.column_stack([origin[0] + c.ravel() * spacing, origin[1] - r.ravel() * spacing])
    uv = np.empty((rows * cols, 2), dtype=np.float64)
    uv[stored] = np.column_stack([c.ravel() / max(cols - 1, 1), 1.0 - r.ravel() / max(rows - 1, 1)])
    particles = stores.particles.add(rest_pos, 1.0 / mass, thickness / 2.0, owner)
    grid = particles.start + grid_local
    slot_order = np.argsort(slots)  # the columns as a row stores them: even, then odd

    distances = stores.distances
    start = distances.count
    # Structural threads row by row: the row's even horizontals, its odd
    # horizontals, then the verticals down to the next row (in the order the
    # row stores its points). Row by row, one Gauss-Seidel pass carries the
    # pins' hold from the top to the bottom of the sheet; within each of the
    # three, no two threads share a point, and thread k joins the k-th points
    # of two runs of consecutive points: a vector loop (``kernels.distance_rows``).
    horizontal = np.empty((rows, cols - 1), dtype=np.int64)
    vertical = np.empty((rows - 1, cols), dtype=np.int64)
    ends_i, ends_j = [], []
    next_id = start
    for row in range(rows):
        for parity in (0, 1):
            left = np.arange(parity, cols - 1, 2)
            horizontal[row, left] = np.arange(next_id, next_id + len(left))
            next_id += len(left)
            ends_i.append(grid[row, left])
            ends_j.append(grid[row, left + 1])
        if row < rows - 1:
            vertical[row, slot_order] = np.arange(next_id, next_id + cols)
            next_id += cols
            ends_i.append(grid[row, slot_order])
            ends_j.append(grid[row + 1, slot_order])
    i = np.concatenate(ends_i)
    j = np.concatenate(ends_j)
    structural = distances.add(
        i,
        j,
        np.full(len(i), spacing),
        owner=owner,
        kind=ThreadKind.STRUCTURAL,
        compliance=compliance,
        tear_ratio=tear_ratio,
    )

    if shear:
        # both diagonals of each cell lean on the cell's four sides; a row's diagonals of one
        # direction share no point, so they go in the order their top ends are stored
        across = np.argsort(slots[:-1])
        sides = np.stack([horizontal[:-1], horizontal[1:], vertical[:, :-1], vertical[:, 1:]], axis=-1)[
            :, across
        ].reshape(-1, 4)
        i = np.concatenate([grid[:-1, :-1][:, across].ravel(), grid[:-1, 1:][:, across].ravel()])
        j = np.concatenate([grid[1:, 1:][:, across].ravel(), grid[1:, :-1][:, across].ravel()])
        distances.add(
            i,
            j,
            np.full(len(i), spacing * math.sqrt(2.0)),
            owner=owner,
            kind=ThreadKind.SHEAR,
            compliance=compliance,
            parents=np.concatenate([sides, sides]),
        )
    if bend:
        # skip-one neighbours lean on the two threads they bridge
        i = np.concatenate([grid[:, :-2].ravel(), grid[:-2, :].ravel()])
        j = np.concatenate([grid[:, 2:].ravel(), grid[2:, :].ravel()])
        parents = np.concatenate(
            [
                np.stack([horizontal[:, :-1], horizontal[:, 1:]], axis=-1).reshape(-1, 2),
                np.stack([vertical[:-1], vertical[1:]], axis=-1).reshape(-1, 2),
            ]
        )
        distances.add(
            i,
            j,
            np.full(len(i), 2.0 * spacing),
            owner=owner,
            kind=ThreadKind.BEND,
            compliance=compliance,
            parents=parents,
        )

    cells, cell_threads = _cells(grid, horizontal, vertical)
    cloth = Sheet(
        name=name,
        cols=cols,
        rows=rows,
        spacing=spacing,
        particles=particles,
        grid=grid_local,
        threads=range(start, distances.count),
        structural=structural,
        cells=cells,
        cell_threads=cell_threads,
        uv=uv,
        rest_pos=rest_pos,
        pins=pins or PinLayout(),
        look=look or ClothLook(),
    )
    layout_pins(stores, owner, cloth)
    return cloth


def _row_slots(cols: int) -> npt.NDArray[np.int64]:
    """Where each column's point is stored within its row: the even columns first, then the odd.

    So each of a row's three kinds of structural threads (even horizontals, odd
    horizontals, verticals) joins two runs of consecutive points, and one pass
    relaxes the row as vector loops (``kernels.distance_rows``, shape ``COLUMNS``).
    """
    col = np.arange(cols)
    return np.where(col % 2 == 0, col // 2, (cols + 1) // 2 + col // 2)


def _cells(
    grid: npt.NDArray[np.int64],
    horizontal: npt.NDArray[np.int64],
    vertical: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each cell's corners ``a b c d`` (top-left, top-right, bottom-left, bottom-right) and its four
    sides (top a-b, bottom c-d, left a-c, right b-d)."""
    corners = np.stack(
        [grid[:-1, :-1].ravel(), grid[:-1, 1:].ravel(), grid[1:, :-1].ravel(), grid[1:, 1:].ravel()], axis=1
    )
    sides = np.stack(
        [horizontal[:-1].ravel(), horizontal[1:].ravel(), vertical[:, :-1].ravel(), vertical[:, 1:].ravel()],
        axis=1,
    )
    return corners, sides


def points_in_rows(cloth: Sheet) -> npt.NDArray[np.int64]:
    """The sheet's particle indices row by row from its top-left point (the order a level names them
    in, not the order they are stored in: ``Sheet.grid``)."""
    return cloth.particles.start + cloth.grid.ravel()


def pinned_points(layout: PinLayout, cols: int, rows: int) -> list[tuple[int, int]]:
    """The ``(col, row)`` points a layout pins (row 0 is the top row)."""
    if layout.kind == "none":
        return []
    if layout.kind == "ends":
        return [(0, 0), (cols - 1, 0)]
    if layout.kind == "top":
        return [(col, 0) for col in range(cols)]
    if layout.kind == "every":
        cols_pinned = set(range(0, cols, layout.every)) | {cols - 1}
        return [(col, 0) for col in sorted(cols_pinned)]
    if layout.kind == "list":
        return list(dict.fromkeys((col, row) for col, row in layout.points))
    raise ValueError(f"unknown pin layout {layout.kind!r}: expected every, ends, top, list or none")


def layout_pins(stores: Stores, owner: int, cloth: Sheet) -> None:
    """Replace the sheet's pins by those of ``cloth.pins``: at their anchors, else where it was built."""
    unpin_owned_by(stores, owner)
    anchors = (
        dict(zip(cloth.pins.points, cloth.pins.anchors, strict=False)) if cloth.pins.kind == "list" else {}
    )
    for col, row in pinned_points(cloth.pins, cloth.cols, cloth.rows):
        local = cloth.grid[row, col]
        x, y = anchors.get((col, row), cloth.rest_pos[local])
        pin(stores, cloth.particles[local], (float(x), float(y)), owner)
