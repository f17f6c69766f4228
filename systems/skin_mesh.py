"""A character's skin: the mesh (a grid cut by the texture, or given), its weights and its probes.

Automatic weights are bone heat over the mesh (see ``make_skin``): smooth
from vertex to vertex, and spread only where the mesh is whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from weft.components.skin import SkinnedMesh
from weft.systems.kernels.bone_weights import automatic_weights, nearest_visible_bones
from weft.systems.skin_build import make_skinned_mesh

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

OPAQUE = 0.1
"""Alpha above which a texture pixel is part of the skin: a grid cell with none is left out."""

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


def make_skin(
    mesh: MeshSpec,
    segments: FloatArray,
    rank: dict[int, int],
    heads: IntArray,
    tails: IntArray,
    parent: IntArray,
) -> SkinnedMesh:
    """The ``SkinnedMesh``: the grid or explicit mesh, with given or automatic weights, its triangles in
    drawing order (``layered``; ``parent`` ``(b,)`` is the bones' hierarchy, parents first).

    A grid first loses every triangle joining vertices whose own bones (the
    nearest each sees through the mesh) do not meet at a joint: the cells
    that bridge the gap between a hand and a thigh, or an arm and the torso,
    would otherwise sew them together. Automatic weights (bone heat, see
    ``weft.systems.kernels.bone_weights``) are then made on what is left, so
    heat never crosses such a gap.
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
        if mesh.vertices is None:
            own, _ = nearest_visible_bones(vertices, triangles, segments)
            triangles = triangles[_joined(own[triangles], _touching(heads, tails))]
            vertices, triangles, uvs = _compact(vertices, triangles, uvs)
        indices, weights = automatic_weights(vertices, triangles, segments, smoothing=mesh.smoothing)
    skin = make_skinned_mesh(
        vertices, triangles, uvs, indices, weights, len(segments), normalise=mesh.normalise
    )
    skin.triangles = skin.triangles[layered(skin.triangles, skin.bone_indices, skin.weights, parent)]
    return skin


def layered(
    triangles: npt.NDArray[np.int32],
    indices: npt.NDArray[np.int32],
    weights: FloatArray,
    parent: IntArray,
) -> IntArray:
    """The order to draw ``triangles`` in: by the depth in the hierarchy of the bone they follow most
    (the heaviest over their three vertices), roots first, then by that bone's index, then as listed.

    The mesh is drawn in one call without a depth test, so where two parts
    of it overlap (an arm across the chest, a leg across the other) the one
    drawn later covers the other. In the order the grid lists them, the two
    parts' triangles alternate row by row and the overlap is a shredded mix
    of both. Deeper bones last: a limb lies on the body it hangs from, a
    forearm on its upper arm.
    """
    depth = np.zeros(len(parent), dtype=np.int64)
    for k, up in enumerate(parent):  # parents first, so a parent's depth is known
        depth[k] = depth[up] + 1 if up >= 0 else 0
    share = np.zeros((len(triangles), len(parent)))
    corners = np.repeat(np.arange(len(triangles)), 3 * indices.shape[1])
    np.add.at(share, (corners, indices[triangles].ravel()), weights[triangles].ravel())
    main = np.argmax(share, axis=1)  # ties: the lower bone index
    return np.lexsort((np.arange(len(triangles)), main, depth[main]))


def _touching(heads: IntArray, tails: IntArray) -> npt.NDArray[np.bool_]:
    """``(b, b)``: whether two bones are one or share a joint."""
    ends = np.stack([heads, tails], axis=1)
    return (ends[:, None, :, None] == ends[None, :, None, :]).any(axis=(2, 3))


def _joined(bones: IntArray, touch: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """``(t,)``: whether every two of a triangle's three main bones ``(t, 3)`` touch."""
    return touch[bones[:, 0], bones[:, 1]] & touch[bones[:, 1], bones[:, 2]] & touch[bones[:, 0], bones[:, 2]]


def _compact(
    vertices: FloatArray, triangles: IntArray, uvs: FloatArray
) -> tuple[FloatArray, IntArray, FloatArray]:
    """The mesh without the vertices no triangle uses any more."""
    used, compact = np.unique(triangles, return_inverse=True)
    return vertices[used], compact.reshape(-1, 3), uvs[used]


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
