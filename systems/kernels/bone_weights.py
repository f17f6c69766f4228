"""Automatic first-draft skin weights: bone heat over the mesh, from the bone each vertex sees nearest.

Each vertex takes as its own bone the nearest one it can see in a straight
line without leaving the mesh (a forearm's vertices do not see the torso
across the gap between them; a hair's edge above a shoulder does not see
the shoulder). The weights are then that choice made smooth over the mesh
by heat diffusion (``weft.systems.kernels.mesh_heat``, Baran and Popović
2007): continuous from vertex to vertex, which is what keeps a skin's
triangles from turning inside out where two bones' vertices meet (weights
that jump between neighbours shear the triangle between them as soon as
the bones part), and spreading only through the mesh, never across a gap.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER
from weft.systems.kernels.mesh_heat import bone_heat

MAX_INFLUENCES = 4
"""Slots per vertex, as in ``weft.components.skin`` (the test of the kernels' copies ties the two)."""

SMOOTHING_FRACTION = 0.3
"""The default ``smoothing``, as a fraction of the mean bone length. Measured on the rag doll (bones
13 to 72 px): 0.25 left knees and elbows folding at 130 degrees; 0.4 let the shoulders pull at the
head; 0.3 and 0.35 kept every sampled pose within the joints' limits unfolded."""

LEAST_WEIGHT = 0.02
"""Weights below this are dropped (the rest rescaled): a bone that far off only blurs."""

HEAT_CONDUCTANCE = 1.0
"""``c`` of ``h = c / (d² + smoothing²)``: Baran and Popović's value (heat spreads about as far as the
vertex is from its bone, or ``smoothing`` where it is closer)."""

VISIBILITY_CELL = 0.25
"""The mask the visibility test reads has cells this fraction of the median edge: fine enough that
a gap of one grid cell in the mesh shows as four clear cells."""

MAX_MASK_CELLS = 4_000_000
"""At most this many mask cells (32 MB of booleans): a huge mesh gets coarser cells instead."""


@numba.njit(cache=True, **INNER)
def segment_distance2(
    px: float, py: float, ax: float, ay: float, bx: float, by: float
) -> tuple[float, float]:
    """Squared distance from (px, py) to the segment a-b (a point when a = b), and the parameter of the
    nearest point along it (0 at a, 1 at b)."""
    dx = bx - ax
    dy = by - ay
    length2 = dx * dx + dy * dy
    t = 0.0
    if length2 > 0.0:
        t = min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    ex = px - (ax + t * dx)
    ey = py - (ay + t * dy)
    return ex * ex + ey * ey, t


@numba.njit(cache=True)
def rasterize_mesh(
    vertices: npt.NDArray[np.float64],
    triangles: npt.NDArray[np.int64],
    left: float,
    bottom: float,
    cell: float,
    mask: npt.NDArray[np.bool_],
) -> None:
    """Mark every cell of ``mask`` ``(rows, cols)`` (row 0 at ``bottom``) whose centre lies in a triangle
    grown by ¾ of a cell: a point on the mesh's outline is inside, whichever cell it falls in.

    Degenerate triangles cover nothing. Shapes: ``vertices`` ``(v, 2)``; ``triangles`` ``(t, 3)``.
    """
    rows, cols = mask.shape
    grow = 0.75 * cell
    for t in range(triangles.shape[0]):
        ax, ay = vertices[triangles[t, 0], 0], vertices[triangles[t, 0], 1]
        bx, by = vertices[triangles[t, 1], 0], vertices[triangles[t, 1], 1]
        cx, cy = vertices[triangles[t, 2], 0], vertices[triangles[t, 2], 1]
        area2 = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
        if area2 == 0.0:
            continue
        side = 1.0 if area2 > 0.0 else -1.0
        lab = math.hypot(bx - ax, by - ay)
        lbc = math.hypot(cx - bx, cy - by)
        lca = math.hypot(ax - cx, ay - cy)
        c0 = max(0, int((min(ax, bx, cx) - grow - left) / cell))
        c1 = min(cols - 1, int((max(ax, bx, cx) + grow - left) / cell) + 1)
        r0 = max(0, int((min(ay, by, cy) - grow - bottom) / cell))
        r1 = min(rows - 1, int((max(ay, by, cy) + grow - bottom) / cell) + 1)
        for r in range(r0, r1 + 1):
            y = bottom + (r + 0.5) * cell
            for c in range(c0, c1 + 1):
                x = left + (c + 0.5) * cell
                # signed distances to the three edges' lines, positive inside
                d_ab = side * ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / lab
                d_bc = side * ((cx - bx) * (y - by) - (cy - by) * (x - bx)) / lbc
                d_ca = side * ((ax - cx) * (y - cy) - (ay - cy) * (x - cx)) / lca
                if d_ab >= -grow and d_bc >= -grow and d_ca >= -grow:
                    mask[r, c] = True


@numba.njit(cache=True, **INNER)
def _inside(mask: npt.NDArray[np.bool_], left: float, bottom: float, cell: float, x: float, y: float) -> bool:
    """Whether (x, y) falls in a marked cell of ``mask`` (outside the mask is outside the mesh)."""
    c = math.floor((x - left) / cell)
    r = math.floor((y - bottom) / cell)
    if r < 0 or c < 0 or r >= mask.shape[0] or c >= mask.shape[1]:
        return False
    return mask[r, c]


@numba.njit(cache=True)
def nearest_visible_bone(
    vertices: npt.NDArray[np.float64],
    segments: npt.NDArray[np.float64],
    mask: npt.NDArray[np.bool_],
    left: float,
    bottom: float,
    cell: float,
    bone: npt.NDArray[np.int64],
    distance: npt.NDArray[np.float64],
) -> None:
    """For each vertex, the nearest bone whose nearest point it sees without leaving the mesh, and how
    far that point is (px).

    The way from the vertex to the bone's nearest point is sampled every
    half cell of ``mask`` (see ``rasterize_mesh``); a bone is visible when
    every sample lies on the mesh. Bones are tried in index order and only
    a strictly nearer one replaces the kept one: ties go to the lower
    index. A vertex that sees no bone takes the nearest one regardless.
    Shapes: ``vertices`` ``(v, 2)``; ``segments`` ``(b, 2, 2)``; ``bone``,
    ``distance`` ``(v,)``.
    """
    for v in range(vertices.shape[0]):
        px = vertices[v, 0]
        py = vertices[v, 1]
        best = -1
        best_d2 = math.inf
        any_bone = 0
        any_d2 = math.inf
        for k in range(segments.shape[0]):
            ax, ay = segments[k, 0, 0], segments[k, 0, 1]
            bx, by = segments[k, 1, 0], segments[k, 1, 1]
            d2, t = segment_distance2(px, py, ax, ay, bx, by)
            if d2 < any_d2:
                any_d2 = d2
                any_bone = k
            if d2 >= best_d2:
                continue
            nx = ax + t * (bx - ax)
            ny = ay + t * (by - ay)
            steps = int(math.sqrt(d2) / (0.5 * cell)) + 1
            seen = True
            for s in range(1, steps + 1):
                f = s / steps
                if not _inside(mask, left, bottom, cell, px + f * (nx - px), py + f * (ny - py)):
                    seen = False
                    break
            if seen:
                best_d2 = d2
                best = k
        if best < 0:
            best = any_bone
            best_d2 = any_d2
        bone[v] = best
        distance[v] = math.sqrt(best_d2)


def nearest_visible_bones(
    vertices: npt.NDArray[np.float64],
    triangles: npt.NDArray[np.integer],
    bone_segments: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """``(bone (v,), distance (v,))``: each vertex's nearest bone seen through the mesh (see
    ``nearest_visible_bone``), the mesh rasterised into a mask first."""
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    tris = np.ascontiguousarray(triangles, dtype=np.int64).reshape(-1, 3)
    segments = np.ascontiguousarray(bone_segments, dtype=np.float64)
    bone = np.zeros(len(vertices), dtype=np.int64)
    distance = np.zeros(len(vertices))
    if len(vertices) == 0:
        return bone, distance
    edges = vertices[tris] - vertices[np.roll(tris, 1, axis=1)]
    lengths = np.hypot(edges[..., 0], edges[..., 1]).ravel()
    lengths = lengths[lengths > 0.0]
    low, high = vertices.min(axis=0), vertices.max(axis=0)
    span = np.maximum(high - low, 1e-9)
    cell = VISIBILITY_CELL * float(np.median(lengths)) if len(lengths) else float(span.max())
    cell = max(cell, math.sqrt(float((span[0] + 2.0 * cell) * (span[1] + 2.0 * cell)) / MAX_MASK_CELLS))
    left, bottom = low - cell  # a cell of margin round the mesh, for the grown outline
    cols, rows = (np.ceil((high - low) / cell).astype(np.int64) + 3).tolist()
    mask = np.zeros((rows, cols), dtype=np.bool_)
    rasterize_mesh(vertices, tris, float(left), float(bottom), cell, mask)
    nearest_visible_bone(vertices, segments, mask, float(left), float(bottom), cell, bone, distance)
    return bone, distance


def automatic_weights(
    vertices: npt.NDArray[np.float64],
    triangles: npt.NDArray[np.integer],
    bone_segments: npt.NDArray[np.float64],
    max_bones: int = MAX_INFLUENCES,
    smoothing: float | None = None,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """First-draft weights: ``(indices (v, 4) int32, weights (v, 4) float64)``, each row summing to 1.

    ``bone_segments`` ``(b, 2, 2)`` are the bones' heads and tails (e.g.
    ``Bones.bind_segments``). Bone heat: each vertex draws heat from its
    nearest visible bone (``nearest_visible_bones``) with conductance
    ``h = HEAT_CONDUCTANCE / (d² + smoothing²)``, ``d`` its distance to that
    bone; heat flows along the mesh (``mesh_heat.bone_heat``). ``smoothing``
    (px) sets how far the blend between two bones reaches where the vertices
    lie on their bones (a joint's neighbourhood); the default is
    ``SMOOTHING_FRACTION`` of the mean bone length.

    Each vertex keeps its ``max_bones`` heaviest bones, continuously: every
    weight is lowered by the next one down (or by ``LEAST_WEIGHT``, if that is
    more, but never by more than half the heaviest), and what stays above 0
    is rescaled. Dropping the fifth bone outright would make a jump where the
    fourth and fifth change places. Slots are in falling weight (ties: lower
    bone index); unused slots are bone 0 with weight 0. Deterministic.
    """
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    segments = np.ascontiguousarray(bone_segments, dtype=np.float64)
    if segments.ndim != 3 or segments.shape[1:] != (2, 2) or len(segments) == 0:
        raise ValueError(f"bone segments must have shape (bones, 2, 2), got {segments.shape}")
    if not 1 <= max_bones <= MAX_INFLUENCES:
        raise ValueError(f"max_bones must be between 1 and {MAX_INFLUENCES}, got {max_bones}")
    if smoothing is None:
        mean = float(np.hypot(*(segments[:, 1] - segments[:, 0]).T).mean())
        smoothing = SMOOTHING_FRACTION * mean if mean > 0.0 else 1.0
    if not (smoothing > 0.0 and math.isfinite(smoothing)):
        raise ValueError(f"smoothing must be a positive length in px, got {smoothing}")
    nearest, distance = nearest_visible_bones(vertices, triangles, segments)
    conductance = HEAT_CONDUCTANCE / (distance * distance + smoothing * smoothing)
    heat = np.clip(bone_heat(vertices, triangles, nearest, conductance, len(segments)), 0.0, None)
    return strongest_influences(heat, nearest, max_bones)


def strongest_influences(
    heat: npt.NDArray[np.float64], nearest: npt.NDArray[np.int64], max_bones: int = MAX_INFLUENCES
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """``heat`` ``(v, b)`` cut to each vertex's ``max_bones`` heaviest bones, continuously (see
    ``automatic_weights``), packed into four slots. A vertex with no heat at all (rounding) follows
    ``nearest`` alone."""
    v, b = heat.shape
    total = heat.sum(axis=1)
    cold = total <= 0.0
    share = heat / np.where(cold, 1.0, total)[:, None]
    share[cold] = 0.0
    share[cold, nearest[cold]] = 1.0
    ranked = -np.sort(-share, axis=1)
    next_down = ranked[:, max_bones] if b > max_bones else np.zeros(v)
    floor = np.minimum(np.maximum(next_down, LEAST_WEIGHT), 0.5 * ranked[:, 0])
    kept = np.maximum(share - floor[:, None], 0.0)
    order = np.argsort(-kept, axis=1, kind="stable")[:, :max_bones]
    top = np.take_along_axis(kept, order, axis=1)
    indices = np.zeros((v, MAX_INFLUENCES), dtype=np.int32)
    weights = np.zeros((v, MAX_INFLUENCES))
    indices[:, : order.shape[1]] = order
    # (only where more than max_bones bones are within half the heaviest is anything cut off here)
    weights[:, : order.shape[1]] = top / top.sum(axis=1, keepdims=True)
    indices[weights == 0.0] = 0
    return indices, weights
