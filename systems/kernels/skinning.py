"""Linear blend skinning: every vertex moved by the weighted blend of its bones' bind-to-pose matrices.

For a vertex at ``p`` in the bind pose with bones ``k`` and weights
``w_k`` (summing to 1), the skinned position is ``Σ w_k · S_k · p`` with
``S_k = pose_k ∘ bind_k⁻¹`` (Magnenat-Thalmann et al. 1988; the name
"linear blend skinning" is from Lewis et al. 2000). The sum can be taken
over matrices or over positions: ``skin_vertices_and_normals`` blends the matrices and
transforms once, ``skin_vertices_naive`` keeps the textbook form as the
reference the tests compare it with.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.bones import compose_frame


@numba.njit(cache=True)
def skin_matrices(
    current: npt.NDArray[np.float64], inverse_bind: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None:
    """Per bone, the map from bind pose to current pose: ``out[k] = current[k] ∘ inverse_bind[k]``.

    Shapes ``(n, 2, 3)``. A bone at its bind pose gives the identity (to rounding).
    """
    for k in range(current.shape[0]):
        compose_frame(current[k], inverse_bind[k], out[k])


@numba.njit(cache=True)
def skin_vertices_and_normals(
    bind_positions: npt.NDArray[np.float64],
    bind_normals: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    matrices: npt.NDArray[np.float64],
    positions: npt.NDArray[np.float64],
    normals: npt.NDArray[np.float64],
) -> None:
    """Skinned positions and outline normals, each vertex's matrices blended once for both.

    ``positions[v] = (Σ_s weights[v, s] · matrices[indices[v, s]]) · bind_positions[v]``: one
    pass over the vertex's four slots, the blend held in six locals and no temporary arrays.
    Unused slots (weight 0) are blended too; a branch per slot would cost more than it saves.

    ``normals[v]`` is the bind normal times the blend's linear part, renormalised: exact whenever
    the bones' matrices are rotations (particle-driven bones, keyframes without scale), as a
    weighted sum of 2D rotations is a rotation times a scale. Under non-uniform scale or shear
    the exact map would be the inverse transpose; outline shading does not need that. A normal
    that vanishes (an interior vertex's zero normal, or a blend of opposite rotations) is zero.
    Shapes: ``bind_*``, ``positions``, ``normals`` ``(v, 2)``; ``indices``, ``weights`` ``(v, 4)``;
    ``matrices`` ``(n, 2, 3)`` from ``skin_matrices``.
    """
    for v in range(bind_positions.shape[0]):
        m00 = m01 = m02 = m10 = m11 = m12 = 0.0
        for s in range(indices.shape[1]):
            w = weights[v, s]
            k = indices[v, s]
            m00 += w * matrices[k, 0, 0]
            m01 += w * matrices[k, 0, 1]
            m02 += w * matrices[k, 0, 2]
            m10 += w * matrices[k, 1, 0]
            m11 += w * matrices[k, 1, 1]
            m12 += w * matrices[k, 1, 2]
        x = bind_positions[v, 0]
        y = bind_positions[v, 1]
        positions[v, 0] = m00 * x + m01 * y + m02
        positions[v, 1] = m10 * x + m11 * y + m12
        x = bind_normals[v, 0]
        y = bind_normals[v, 1]
        nx = m00 * x + m01 * y
        ny = m10 * x + m11 * y
        length = math.sqrt(nx * nx + ny * ny)
        if length > 1e-12:
            normals[v, 0] = nx / length
            normals[v, 1] = ny / length
        else:
            normals[v, 0] = 0.0
            normals[v, 1] = 0.0


def rigid_positions(
    bind_positions: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int32],
    matrices: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """``(v, 4, 2)``: where each vertex would be if rigidly attached to each of its bones.

    The textbook picture of blending (and the elbow debug view's dots):
    ``S_k · p`` for every slot. Plain numpy.
    """
    linear = matrices[indices][..., :2]  # (v, 4, 2, 2)
    offset = matrices[indices][..., 2]  # (v, 4, 2)
    return np.einsum("vsij,vj->vsi", linear, bind_positions) + offset


def skin_vertices_naive(
    bind_positions: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    matrices: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None:
    """The reference for the positions of ``skin_vertices_and_normals``: the rigid positions per bone,
    then their weighted average.

    Plain numpy, and the sum taken the other way round (over positions, not
    matrices), so that agreement between the two means something.
    """
    out[:] = np.einsum("vs,vsi->vi", weights, rigid_positions(bind_positions, indices, matrices))
