"""Making a ``SkinnedMesh``: vertices, triangles and uvs checked, each vertex's bone weights checked
and packed into four slots, the outline's normals found.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from weft.components.skin import MAX_INFLUENCES, SkinnedMesh
from weft.systems.skeleton_build import whole_numbers

WEIGHT_TOLERANCE = 1e-6
"""How far a vertex's weights may sum from 1: generous for weights typed with six decimals in a
level file, tight enough that the skin cannot visibly shrink or swell (1e-6 of 1000 px is 0.001 px)."""


def make_skinned_mesh(
    bind_positions: npt.ArrayLike,
    triangles: npt.ArrayLike,
    uvs: npt.ArrayLike,
    bone_indices: npt.ArrayLike,
    weights: npt.ArrayLike,
    bones: int,
    normalise: bool = False,
    bind_normals: npt.ArrayLike | None = None,
) -> SkinnedMesh:
    """A skinned mesh from its vertices ``(v, 2)``, triangles ``(t, 3)``, uvs ``(v, 2)`` and influences.

    ``bone_indices`` and ``weights`` are ``(v, k)`` for any ``k``: the
    nonzero weights (at most four per vertex) are packed into four slots,
    in the order given. Weights must sum to 1; with ``normalise`` they are
    rescaled instead and the mesh's ``normalised`` lists the vertices that
    changed. ``bind_normals`` default to the outline's (``outline_normals``).
    Raises ``ValueError`` with a sentence naming the vertices at fault.
    """
    positions = np.array(bind_positions, dtype=np.float64)
    if positions.ndim != 2 or positions.shape[1] != 2 or len(positions) == 0:
        raise ValueError(f"mesh vertices must have shape (vertices, 2), got {positions.shape}")
    if not np.all(np.isfinite(positions)):
        raise ValueError("mesh vertices must be finite numbers")
    v = len(positions)
    tris = whole_numbers(triangles, "triangles")
    tris = tris.reshape(0, 3) if tris.size == 0 else tris
    if tris.ndim != 2 or tris.shape[1] != 3:
        raise ValueError(f"triangles must have shape (triangles, 3), got {tris.shape}")
    bad = np.flatnonzero(np.any((tris < 0) | (tris >= v), axis=1))
    if len(bad):
        raise ValueError(
            f"triangle {int(bad[0])} refers to vertex {tris[bad[0]].tolist()}, but the mesh has {v} vertices"
        )
    uvs = np.array(uvs, dtype=np.float64)
    if uvs.shape != (v, 2):
        raise ValueError(f"expected one uv pair per vertex, shape ({v}, 2), got {uvs.shape}")
    indices, packed, changed = pack_influences(bone_indices, weights, bones, normalise)
    if bind_normals is None:
        normals = outline_normals(positions, tris)
    else:
        normals = np.array(bind_normals, dtype=np.float64)
        if normals.shape != (v, 2):
            raise ValueError(f"expected one normal per vertex, shape ({v}, 2), got {normals.shape}")
    return SkinnedMesh(
        bind_positions=positions,
        triangles=tris.astype(np.int32),
        uvs=uvs,
        bone_indices=indices,
        weights=packed,
        bind_normals=normals,
        positions=positions.copy(),
        normals=normals.copy(),
        normalised=changed,
    )


def pack_influences(
    bone_indices: npt.ArrayLike, weights: npt.ArrayLike, bones: int, normalise: bool = False
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64], npt.NDArray[np.int64]]:
    """Check per-vertex bone indices and weights ``(v, k)``; return them packed to ``(v, 4)``.

    Returns the indices, the weights and the vertices whose weights were
    rescaled (only with ``normalise``). See ``make_skinned_mesh``.
    """
    indices = whole_numbers(bone_indices, "bone indices")
    weights = np.array(weights, dtype=np.float64)
    if indices.ndim != 2 or indices.shape != weights.shape:
        raise ValueError(
            f"bone indices and weights must both have shape (vertices, bones per vertex), "
            f"got {indices.shape} and {weights.shape}"
        )
    if not np.all(np.isfinite(weights)):
        raise ValueError(f"skin weights must be finite numbers: {_vertices(_rows(~np.isfinite(weights)))}")
    negative = _rows(weights < 0.0)
    if len(negative):
        raise ValueError(f"skin weights must not be negative: {_vertices(negative)}")
    outside = _rows((indices < 0) | (indices >= bones))
    if len(outside):
        raise ValueError(
            f"bone indices must be between 0 and {bones - 1} (there are {bones} bones): "
            f"{_vertices(outside)}; use bone 0 with weight 0 for an unused slot"
        )
    used = weights > 0.0
    crowded = np.flatnonzero(used.sum(axis=1) > MAX_INFLUENCES)
    if len(crowded):
        raise ValueError(
            f"a vertex may follow at most {MAX_INFLUENCES} bones (nonzero weights); "
            f"more at {_vertices(crowded)}: drop the smallest weights"
        )
    total = weights.sum(axis=1)
    empty = np.flatnonzero(total == 0.0)
    if len(empty):
        raise ValueError(f"every vertex needs a weight on at least one bone; none at {_vertices(empty)}")
    off = np.flatnonzero(np.abs(total - 1.0) > WEIGHT_TOLERANCE)
    if len(off) and not normalise:
        sums = ", ".join(f"vertex {k} sums to {total[k]:.6g}" for k in off[:3])
        more = f" ({len(off) - 3} more)" if len(off) > 3 else ""
        raise ValueError(
            f"skin weights must sum to 1 for every vertex (within {WEIGHT_TOLERANCE:g}): {sums}{more}; "
            "fix them, or ask for normalise to have them rescaled"
        )
    if normalise:
        weights = weights / total[:, None]
    # stable: each vertex keeps its bones in the order given, the empty slots go last
    order = np.argsort(~used, axis=1, kind="stable")[:, :MAX_INFLUENCES]
    packed_indices = np.take_along_axis(indices, order, axis=1)
    packed_weights = np.take_along_axis(np.where(used, weights, 0.0), order, axis=1)
    packed_indices[packed_weights == 0.0] = 0
    pad = MAX_INFLUENCES - packed_indices.shape[1]
    if pad > 0:
        packed_indices = np.pad(packed_indices, ((0, 0), (0, pad)))
        packed_weights = np.pad(packed_weights, ((0, 0), (0, pad)))
    changed = off if normalise else np.zeros(0, dtype=np.int64)
    return packed_indices.astype(np.int32), packed_weights, changed.astype(np.int64)


def outline_normals(
    positions: npt.NDArray[np.float64], triangles: npt.NDArray[np.integer]
) -> npt.NDArray[np.float64]:
    """``(v, 2)`` outward unit normals at outline vertices (zero inside), from the mesh's open edges.

    An outline edge belongs to one triangle only; its outward side is the
    right of the edge walked counter-clockwise round that triangle. A
    vertex takes the mean of its two outline edges' unit normals,
    renormalised: the bisector of the corner.
    """
    normals = np.zeros_like(positions)
    if len(triangles) == 0:
        return normals
    tris = np.array(triangles, dtype=np.int64)
    p0, p1, p2 = positions[tris[:, 0]], positions[tris[:, 1]], positions[tris[:, 2]]
    area2 = (p1[:, 0] - p0[:, 0]) * (p2[:, 1] - p0[:, 1]) - (p2[:, 0] - p0[:, 0]) * (p1[:, 1] - p0[:, 1])
    tris[area2 < 0] = tris[area2 < 0][:, ::-1]  # every triangle counter-clockwise
    edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    _, first, count = np.unique(np.sort(edges, axis=1), axis=0, return_index=True, return_counts=True)
    outline = edges[np.sort(first[count == 1])]
    along = positions[outline[:, 1]] - positions[outline[:, 0]]
    length = np.hypot(along[:, 0], along[:, 1])
    keep = length > 0.0
    outline, along, length = outline[keep], along[keep], length[keep]
    edge_normals = np.stack([along[:, 1], -along[:, 0]], axis=1) / length[:, None]
    np.add.at(normals, outline[:, 0], edge_normals)
    np.add.at(normals, outline[:, 1], edge_normals)
    size = np.hypot(normals[:, 0], normals[:, 1])
    inside = size > 1e-12
    normals[inside] /= size[inside, None]
    normals[~inside] = 0.0
    return normals


def _rows(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """Rows (vertices) of a ``(v, k)`` mask with any entry set."""
    return np.flatnonzero(np.any(mask, axis=1))


def _vertices(rows: npt.NDArray[np.int64]) -> str:
    """``vertex 3`` / ``vertices 3, 7, 12 and 5 more``: enough to find them, short enough to read."""
    shown = ", ".join(str(int(k)) for k in rows[:5])
    if len(rows) == 1:
        return f"vertex {shown}"
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return f"vertices {shown}{more}"
