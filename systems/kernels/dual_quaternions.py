"""Dual-quaternion skinning in the plane: blend the bones' rigid motions, not their matrices.

Linear blend skinning averages matrices, and an average of two rotations is
a rotation times a shrink: a joint bent by θ keeps ``cos(θ/2)`` of its width
between two bones weighted half and half (0.26 at 150 degrees, nothing at
180). Kavan, Collins, Žára and O'Sullivan ("Geometric skinning with
approximate dual quaternion blending", 2008) blend unit dual quaternions
instead and normalise: the blend is always a rigid motion, so the joint
keeps its width at any angle.

In the plane a rigid motion ``p ↦ R(α)p + t`` is the dual quaternion with
real part ``r = (cos α/2, sin α/2)`` (a rotation about z) and dual part
``d = ½ R(-α/2) t`` (``q = r + ε·½ t r``, of which only the i and j parts
survive). A vertex's motion is

    r̂ = Σ w_k r_k,  d̂ = Σ w_k d_k,  then r̂, d̂ divided by |r̂|,
    α = 2·atan2(r̂₁, r̂₀) (cos α = r̂₀² - r̂₁², sin α = 2 r̂₀ r̂₁),  t = 2 R(α/2) d̂,

and in 2D the real and dual parts are always orthogonal, so dividing by
``|r̂|`` is the whole normalisation. ``r`` and ``-r`` are the same rotation;
Kavan et al. pick, per vertex, the sign nearer the heaviest bone's. Here
each bone's angle is instead unwrapped down the hierarchy (a child's is its
parent's plus the turn between them, in (-π, π]): one sign for every vertex,
so two neighbouring vertices can never pick differently and jump apart, as a
per-vertex choice does when a shoulder turned -150 degrees meets a head
turned +40 (190 degrees apart round the short way, 170 the way the bones
really turned).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.joint_limits import wrap_angle

TINY_ROTOR = 1e-9
"""|r̂| below this means the blended rotations cancel (bones turned a whole turn apart by the
hierarchy): that vertex follows its heaviest bone alone rather than divide by nothing."""


@numba.njit(cache=True)
def bone_dual_quaternions(
    parent: npt.NDArray[np.int64],
    matrices: npt.NDArray[np.float64],
    angles: npt.NDArray[np.float64],
    rotors: npt.NDArray[np.float64],
) -> None:
    """Each bone's skinning motion as a planar dual quaternion ``(r₀, r₁, d₀, d₁)`` into ``rotors``.

    ``angles[k]`` is the matrix's rotation (``atan2(m₁₀ - m₀₁, m₀₀ + m₁₁)``:
    exact for the rigid matrices particle-driven and keyframed bones make,
    the nearest rotation otherwise, whose scale and shear this method drops),
    unwrapped so that it differs from the parent's by at most π. Bones are
    listed parents first. Shapes: ``parent`` ``(n,)``; ``matrices`` ``(n, 2, 3)``
    from ``skinning.skin_matrices``; ``angles`` ``(n,)``; ``rotors`` ``(n, 4)``.
    """
    for k in range(parent.shape[0]):
        alpha = math.atan2(matrices[k, 1, 0] - matrices[k, 0, 1], matrices[k, 0, 0] + matrices[k, 1, 1])
        p = parent[k]
        if p >= 0:
            alpha = angles[p] + wrap_angle(alpha - angles[p])
        angles[k] = alpha
        c = math.cos(0.5 * alpha)
        s = math.sin(0.5 * alpha)
        tx = matrices[k, 0, 2]
        ty = matrices[k, 1, 2]
        rotors[k, 0] = c
        rotors[k, 1] = s
        rotors[k, 2] = 0.5 * (c * tx + s * ty)
        rotors[k, 3] = 0.5 * (c * ty - s * tx)


@numba.njit(cache=True)
def skin_vertices_dual_quaternion(
    bind_positions: npt.NDArray[np.float64],
    bind_normals: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    rotors: npt.NDArray[np.float64],
    positions: npt.NDArray[np.float64],
    normals: npt.NDArray[np.float64],
) -> None:
    """Skinned positions and outline normals by dual-quaternion blending (see the module's docstring).

    Each vertex blends its four slots' ``rotors`` (``bone_dual_quaternions``)
    by its weights, normalises, and moves its bind position by the rigid
    motion that gives; its normal turns by the same rotation (exact: the
    motion is rigid). Unused slots have weight 0 and add nothing.
    Shapes: ``bind_*``, ``positions``, ``normals`` ``(v, 2)``; ``indices``,
    ``weights`` ``(v, 4)``; ``rotors`` ``(n, 4)``.
    """
    for v in range(bind_positions.shape[0]):
        r0 = r1 = d0 = d1 = 0.0
        heaviest = 0
        for s in range(indices.shape[1]):
            w = weights[v, s]
            k = indices[v, s]
            r0 += w * rotors[k, 0]
            r1 += w * rotors[k, 1]
            d0 += w * rotors[k, 2]
            d1 += w * rotors[k, 3]
            if w > weights[v, heaviest]:
                heaviest = s
        size = math.sqrt(r0 * r0 + r1 * r1)
        if size < TINY_ROTOR:
            k = indices[v, heaviest]
            r0, r1, d0, d1 = rotors[k, 0], rotors[k, 1], rotors[k, 2], rotors[k, 3]
            size = 1.0
        r0 /= size
        r1 /= size
        d0 /= size
        d1 /= size
        cos_a = r0 * r0 - r1 * r1
        sin_a = 2.0 * r0 * r1
        x = bind_positions[v, 0]
        y = bind_positions[v, 1]
        positions[v, 0] = cos_a * x - sin_a * y + 2.0 * (r0 * d0 - r1 * d1)
        positions[v, 1] = sin_a * x + cos_a * y + 2.0 * (r1 * d0 + r0 * d1)
        x = bind_normals[v, 0]
        y = bind_normals[v, 1]
        normals[v, 0] = cos_a * x - sin_a * y
        normals[v, 1] = sin_a * x + cos_a * y


def blend_rigid_motions(
    points: npt.NDArray[np.float64], rotors: npt.NDArray[np.float64], weights: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """``(p, 2)``: each point ``(p, 2)`` moved by the normalised blend of its rotors ``(p, k, 4)`` with
    weights ``(p, k)``. Plain numpy, with the motion rebuilt as a rotation angle and a translation
    rather than from the rotor's squares: the reference the kernel is tested against, and the
    debug view's arcs (a probe's positions as its weight slides from one bone to the other)."""
    blend = np.einsum("pk,pki->pi", weights, rotors)
    blend /= np.hypot(blend[:, 0], blend[:, 1])[:, None]
    half = np.arctan2(blend[:, 1], blend[:, 0])
    turn = np.stack([np.cos(half), -np.sin(half), np.sin(half), np.cos(half)], axis=1).reshape(-1, 2, 2)
    t = 2.0 * np.einsum("pij,pj->pi", turn, blend[:, 2:])
    rotation = turn @ turn
    return np.einsum("pij,pj->pi", rotation, points) + t


def skin_vertices_dual_quaternion_naive(
    bind_positions: npt.NDArray[np.float64],
    indices: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
    rotors: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None:
    """The reference for the positions of ``skin_vertices_dual_quaternion`` (see ``blend_rigid_motions``)."""
    out[:] = blend_rigid_motions(bind_positions, rotors[indices], weights)
