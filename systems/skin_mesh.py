"""A character's skin: the mesh (a grid cut by the texture, or given), its weights and its probes.

Automatic weights follow the distance to each bone, leave out bones a
vertex cannot see through the picture, and keep only bones that meet the
vertex's main bone at a joint (see ``make_skin``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from weft.components.skin import SkinnedMesh
from weft.systems.kernels.bone_weights import automatic_weights
from weft.systems.skin_build import make_skinned_mesh

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

OPAQUE = 0.1
"""Alpha above which a texture pixel is part of the skin (for cutting the grid and for visibility)."""

UNCHECKED_TEXELS = 8.0
"""Texels of a vertex's way to a bone that visibility does not check (a grid vertex may lie up to a
cell outside the drawn shape; 8 texels is a cell of the shipped grids, or two)."""

VISIBILITY_BLOCK = 1024
"""Vertices whose visibility is worked out at once (48 samples × bones each)."""

LEAST_WEIGHT = 0.02
"""Automatic weights below this are dropped (the rest rescaled): a bone that far off only blurs."""

PROBES_PER_JOINT = 4
"""Vertices the debug view marks around each probed joint."""


@dataclass(frozen=True)
class MeshSpec:
    """The skin's mesh: a grid over ``rect`` cut by the texture's alpha, or explicit vertices.

    ``alpha`` is the texture's alpha channel ``(rows, cols)`` in 0-1, first
    row at the top of the image, or None for a plain rectangle.
    """

    rect: tuple[float, float, float, float]
    cells: tuple[int, int]
    alpha: FloatArray | None = None
    vertices: FloatArray | None = None
    triangles: IntArray | None = None
    uvs: FloatArray | None = None
    bones: list[list[int]] | None = None
    weights: list[list[float]] | None = None
    normalise: bool = False
    smoothing: float | None = None


def grid_mesh(spec: MeshSpec) -> tuple[FloatArray, IntArray, FloatArray]:
    """Vertices, triangles and uvs of a grid over ``spec.rect``, without the cells the texture leaves clear.

    A cell stays if any texture pixel under it is opaque. UVs run 0-1 from
    the rect's bottom-left (v up). Unused vertices are dropped.
    """
    left, bottom, right, top = spec.rect
    cols, rows = spec.cells
    xs = np.linspace(left, right, cols + 1)
    ys = np.linspace(bottom, top, rows + 1)
    grid_x, grid_y = np.meshgrid(xs, ys)  # (rows + 1, cols + 1), row 0 at the bottom
    vertices = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    uvs = np.column_stack(
        [(vertices[:, 0] - left) / (right - left), (vertices[:, 1] - bottom) / (top - bottom)]
    )
    keep = np.ones((rows, cols), dtype=bool)
    if spec.alpha is not None:
        keep = _opaque_cells(spec.alpha, rows, cols)
    r, c = np.nonzero(keep)
    corner = r * (cols + 1) + c
    a, b, d, e = corner, corner + 1, corner + cols + 1, corner + cols + 2
    triangles = np.concatenate([np.column_stack([a, b, e]), np.column_stack([a, e, d])])
    used, compact = np.unique(triangles, return_inverse=True)
    return vertices[used], compact.reshape(-1, 3).astype(np.int64), uvs[used]


def _opaque_cells(alpha: FloatArray, rows: int, cols: int) -> npt.NDArray[np.bool_]:
    """``(rows, cols)``, row 0 at the bottom: whether any image pixel falling in the cell is opaque.

    Each pixel falls in one cell, so a grid finer than the image leaves cells out.
    """
    height, width = alpha.shape
    r, c = np.nonzero(alpha[::-1] > OPAQUE)  # row 0 at the bottom, as the mesh
    keep = np.zeros((rows, cols), dtype=bool)
    keep[(r * rows) // height, (c * cols) // width] = True
    return keep


def hidden_bones(
    vertices: FloatArray, segments: FloatArray, alpha: FloatArray, rect: tuple[float, float, float, float]
) -> npt.NDArray[np.bool_]:
    """``(v, b)``: whether the way from a vertex to the nearest point of a bone crosses clear texture.

    A forearm's vertices do not see the torso across the gap between
    them, so the torso gets no say in how they move; a shoulder's see
    both. The first ``UNCHECKED_TEXELS`` of the way are not checked: a grid
    vertex may stand just outside the drawn shape. Vertices are taken a
    block at a time, so memory stays bounded for fine grids.
    """
    hidden = np.zeros((len(vertices), len(segments)), dtype=bool)
    for start in range(0, len(vertices), VISIBILITY_BLOCK):
        block = slice(start, start + VISIBILITY_BLOCK)
        hidden[block] = _hidden_block(vertices[block], segments, alpha, rect)
    return hidden


def _hidden_block(
    vertices: FloatArray, segments: FloatArray, alpha: FloatArray, rect: tuple[float, float, float, float]
) -> npt.NDArray[np.bool_]:
    """``hidden_bones`` for one block of vertices: 48 samples along each way, read from the alpha."""
    left, bottom, right, top = rect
    height, width = alpha.shape
    heads, tails = segments[:, 0], segments[:, 1]
    along = tails - heads
    length2 = np.maximum(np.einsum("bi,bi->b", along, along), 1e-12)
    t = np.clip(np.einsum("vbi,bi->vb", vertices[:, None, :] - heads[None], along) / length2, 0.0, 1.0)
    nearest = heads[None] + t[..., None] * along[None]  # (v, b, 2)
    samples = np.linspace(0.0, 1.0, 48)[None, None, :, None]
    points = vertices[:, None, None, :] + samples * (nearest - vertices[:, None, :])[:, :, None, :]
    u = (points[..., 0] - left) / (right - left)
    v = (top - points[..., 1]) / (top - bottom)
    inside = (u >= 0.0) & (u <= 1.0) & (v >= 0.0) & (v <= 1.0)  # the rect's own edges count as inside
    col = np.clip((u * width).astype(np.int64), 0, width - 1)
    row = np.clip((v * height).astype(np.int64), 0, height - 1)
    clear = ~inside | (alpha[row, col] <= OPAQUE)
    unchecked = max((right - left) / width, (top - bottom) / height) * UNCHECKED_TEXELS
    way = np.hypot(*(nearest - vertices[:, None, :]).transpose(2, 0, 1))
    near_vertex = samples[..., 0] * way[..., None] < unchecked
    return (clear & ~near_vertex).any(axis=2)


def make_skin(
    mesh: MeshSpec, segments: FloatArray, rank: dict[int, int], heads: IntArray, tails: IntArray
) -> SkinnedMesh:
    """The ``SkinnedMesh``: the grid or explicit mesh, with given or automatic weights.

    Automatic weights keep, for each vertex, only its main bone and bones
    that meet it at a joint, and nothing below ``LEAST_WEIGHT`` (so a
    vertex well inside a limb follows its bone alone): a hand drawn next to
    a thigh follows the forearm, not the leg. A grid also loses every
    triangle joining vertices whose main bones do not meet: the cells that
    bridge the gap between a hand and a thigh, or an arm and the torso,
    would otherwise sew them together.
    """
    if mesh.vertices is None:
        vertices, triangles, uvs = grid_mesh(mesh)
    else:
        vertices, triangles, uvs = mesh.vertices, mesh.triangles, mesh.uvs
    if mesh.bones:
        width = max(len(names) for names in mesh.bones)
        indices = np.zeros((len(vertices), width), dtype=np.int64)
        weights = np.zeros((len(vertices), width))
        for v, (names, values) in enumerate(zip(mesh.bones, mesh.weights or [], strict=True)):
            indices[v, : len(names)] = [rank[k] for k in names]
            weights[v, : len(values)] = values
    else:
        hidden = None
        if mesh.alpha is not None and mesh.vertices is None:
            hidden = hidden_bones(vertices, segments, mesh.alpha, mesh.rect)
        indices, weights = automatic_weights(vertices, segments, smoothing=mesh.smoothing, hidden=hidden)
        touch = _touching(heads, tails)
        main = indices[np.arange(len(indices)), np.argmax(weights, axis=1)]
        strangers = ~touch[main[:, None], indices]  # bones that do not meet the main one at a joint
        weights = np.where((weights < LEAST_WEIGHT) | strangers, 0.0, weights)
        weights /= weights.sum(axis=1, keepdims=True)
        if mesh.vertices is None:
            triangles = triangles[_joined(main[triangles], touch)]
            vertices, triangles, uvs, indices, weights = _compact(vertices, triangles, uvs, indices, weights)
    return make_skinned_mesh(
        vertices, triangles, uvs, indices, weights, len(segments), normalise=mesh.normalise
    )


def _touching(heads: IntArray, tails: IntArray) -> npt.NDArray[np.bool_]:
    """``(b, b)``: whether two bones are one or share a joint."""
    ends = np.stack([heads, tails], axis=1)
    return (ends[:, None, :, None] == ends[None, :, None, :]).any(axis=(2, 3))


def _joined(bones: IntArray, touch: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """``(t,)``: whether every two of a triangle's three main bones ``(t, 3)`` touch."""
    return touch[bones[:, 0], bones[:, 1]] & touch[bones[:, 1], bones[:, 2]] & touch[bones[:, 0], bones[:, 2]]


def _compact(
    vertices: FloatArray,
    triangles: IntArray,
    uvs: FloatArray,
    indices: npt.NDArray[np.int32],
    weights: FloatArray,
) -> tuple[FloatArray, IntArray, FloatArray, npt.NDArray[np.int32], FloatArray]:
    """The mesh without the vertices no triangle uses any more."""
    used, compact = np.unique(triangles, return_inverse=True)
    return vertices[used], compact.reshape(-1, 3), uvs[used], indices[used], weights[used]


def probe_vertices(skin: SkinnedMesh, joints: FloatArray, probes: list[int]) -> IntArray:
    """For each probed joint, the ``PROBES_PER_JOINT`` outline vertices nearest to it that blend bones.

    On the outline, the two rigid positions of a vertex part furthest as
    the joint bends, so the debug figure reads; vertices following one
    bone (nothing to see) come last.
    """
    outline = np.hypot(*skin.bind_normals.T) > 0.0
    blended = skin.weights.max(axis=1) < 0.95
    chosen: list[int] = []
    for joint in probes:
        distance = np.hypot(*(skin.bind_positions - joints[joint]).T)
        order = np.lexsort((distance, ~blended, ~outline))
        chosen += order[:PROBES_PER_JOINT].tolist()
    return np.array(sorted(set(chosen)), dtype=np.int64)
