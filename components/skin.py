"""Skinned meshes: a textured triangle mesh whose vertices follow up to four bones each.

The mesh is made in the skeleton's bind pose; ``weft.systems.kernels.skinning``
moves it with the bones every frame.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

MAX_INFLUENCES = 4
"""Bones per vertex: four, the usual GPU skinning layout (one vec4 of indices, one of weights)."""


@dataclass
class SkinnedMesh:
    """A textured triangle mesh bound to the skeleton on the same entity.

    Each vertex follows up to four bones (unused slots: bone 0 with weight
    0); its weights sum to 1. ``bind_normals`` are the outward unit normals
    of vertices on the mesh's outline (zero inside), for outline shading.

    Attributes (``v`` vertices, ``t`` triangles):
        bind_positions: ``(v, 2)`` float64, model space, bind pose.
        triangles: ``(t, 3)`` int32, either winding.
        uvs: ``(v, 2)`` float64, texture coordinates.
        bone_indices: ``(v, 4)`` int32.
        weights: ``(v, 4)`` float64.
        bind_normals: ``(v, 2)`` float64.
        positions: ``(v, 2)`` float64, the skinned positions (output).
        normals: ``(v, 2)`` float64, the skinned outline normals (output).
        normalised: vertices whose weights were rescaled when the mesh was made (for a warning).
    """

    bind_positions: npt.NDArray[np.float64]
    triangles: npt.NDArray[np.int32]
    uvs: npt.NDArray[np.float64]
    bone_indices: npt.NDArray[np.int32]
    weights: npt.NDArray[np.float64]
    bind_normals: npt.NDArray[np.float64]
    positions: npt.NDArray[np.float64]
    normals: npt.NDArray[np.float64]
    normalised: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
