"""The skin scene: skinning a 10 000-vertex mesh on a 20-bone skeleton.

A strip of 20 bones, each turned a little from its parent, carries a
100 × 100 grid of vertices with automatic weights (up to four bones per
vertex). A frame of skinning is what the ``skin`` system does once a frame
for a character: the bones' skin matrices, then every vertex and its
outline normal. The figure is dual-quaternion skinning (the default);
linear blend skinning and its numpy reference ``skin_vertices_naive`` (per
bone, then the weighted average) are timed beside it. pymunk has no
skinning, so there is no pymunk column.
"""

from __future__ import annotations

import math

import numpy as np

from weft.bench.measure import SceneResult, time_frames
from weft.components.skeleton import Bones
from weft.components.skin import SkinnedMesh
from weft.components.skinned import Skinning
from weft.systems.kernels.bone_weights import automatic_weights
from weft.systems.kernels.bones import local_from_angles, pose_from_local
from weft.systems.kernels.skinning import skin_vertices_naive
from weft.systems.skeleton_build import skeleton_from_segments
from weft.systems.skeletons import skin
from weft.systems.skin_build import make_skinned_mesh

BONES = 20
SIDE = 100
"""Vertices across and along the strip: SIDE² in all."""
BONE_LENGTH = 40.0
WIDTH = 120.0
"""px across the strip."""


def build() -> tuple[Bones, SkinnedMesh]:
    """The skeleton (a chain along x) and its mesh (a grid over the strip, automatic weights)."""
    heads = np.column_stack([np.arange(BONES) * BONE_LENGTH, np.zeros(BONES)])
    tails = heads + np.array([BONE_LENGTH, 0.0])
    skeleton = skeleton_from_segments(np.arange(BONES) - 1, heads, tails)
    xs = np.linspace(0.0, BONES * BONE_LENGTH, SIDE)
    ys = np.linspace(-WIDTH / 2, WIDTH / 2, SIDE)
    grid_x, grid_y = np.meshgrid(xs, ys)
    vertices = np.column_stack([grid_x.ravel(), grid_y.ravel()])
    corner = (np.arange(SIDE - 1)[:, None] * SIDE + np.arange(SIDE - 1)[None, :]).ravel()
    triangles = np.concatenate(
        [
            np.column_stack([corner, corner + 1, corner + SIDE + 1]),
            np.column_stack([corner, corner + SIDE + 1, corner + SIDE]),
        ]
    )
    uvs = (vertices - vertices.min(axis=0)) / np.ptp(vertices, axis=0)
    indices, weights = automatic_weights(vertices, triangles, skeleton.bind_segments)
    return skeleton, make_skinned_mesh(vertices, triangles, uvs, indices, weights, BONES)


def run(frames: int) -> SceneResult:
    """Median ms of a frame of skinning (matrices, vertices, normals) by each method, and of the naive
    reference of the linear blend."""
    skeleton, mesh = build()
    angles = np.full(BONES, math.radians(4.0))  # a gentle curl, every bone turned from its parent
    local_from_angles(skeleton.bind_local, angles, skeleton.local)
    pose_from_local(skeleton.parent, skeleton.local, skeleton.pose)

    def frame() -> None:
        skin(skeleton, mesh, Skinning.DUAL_QUATERNION)

    def linear() -> None:
        skin(skeleton, mesh, Skinning.LINEAR)

    reference = np.empty_like(mesh.positions)

    def naive() -> None:
        skin_vertices_naive(
            mesh.bind_positions, mesh.bone_indices, mesh.weights, skeleton.skinning, reference
        )

    ours = time_frames(frame, max(frames, 100))
    linear_ms = time_frames(linear, max(frames, 100)).median
    naive_ms = time_frames(naive, max(frames // 4, 10), warmup=2).median
    linear()
    naive()
    agree = float(np.abs(reference - mesh.positions).max())
    params = {
        "vertices": len(mesh.bind_positions),
        "bones": BONES,
        "linear_ms": round(linear_ms, 4),
        "naive_ms": round(naive_ms, 4),
        "naive_vs_blended_px": agree,
        "timing": "median of matrices + vertices + normals per frame (numba): dual quaternions, the linear "
        "blend, and the numpy reference of the linear blend",
    }
    return SceneResult("skin", params, ours.median, None, p95_ms=ours.p95)
