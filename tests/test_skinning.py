"""Skinning: the blended kernel against the textbook form, rigid and blended vertices, weights, joints."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.kernels import from_python

from weft.systems.kernels import bones, joint_limits
from weft.systems.kernels.bone_weights import automatic_weights, nearest_visible_bones, strongest_influences
from weft.systems.kernels.bones import local_from_angles, pose_from_local
from weft.systems.kernels.distance import relax_rigid_distances
from weft.systems.kernels.dual_quaternions import (
    bone_dual_quaternions,
    skin_vertices_dual_quaternion,
    skin_vertices_dual_quaternion_naive,
)
from weft.systems.kernels.joint_limits import joint_angles
from weft.systems.kernels.mesh_heat import cotangent_laplacian, solve_screened
from weft.systems.kernels.skinning import (
    rigid_positions,
    skin_matrices,
    skin_vertices_and_normals,
    skin_vertices_naive,
)
from weft.systems.skeleton_build import invert_frames, make_skeleton, skeleton_from_segments
from weft.systems.skin_build import make_skinned_mesh, outline_normals

# built for other kernels only (no wrapper for Python): copies a test can call
bone_frames_from_particles = from_python(bones.bone_frames_from_particles)
limit_joint_angles = from_python(joint_limits.limit_joint_angles)

SEEDS = st.integers(0, 2**31)


def skin_vertices(
    bind: np.ndarray, indices: np.ndarray, weights: np.ndarray, matrices: np.ndarray, out: np.ndarray
):
    """``skin_vertices_and_normals``'s positions alone (its normals go to scratch)."""
    skin_vertices_and_normals(bind, np.zeros_like(bind), indices, weights, matrices, out, np.empty_like(bind))


def skin_normals(
    normals: np.ndarray, indices: np.ndarray, weights: np.ndarray, matrices: np.ndarray, out: np.ndarray
):
    """``skin_vertices_and_normals``'s normals alone (its positions go to scratch)."""
    skin_vertices_and_normals(
        np.zeros_like(normals), normals, indices, weights, matrices, np.empty_like(normals), out
    )


def random_frames(rng: np.random.Generator, n: int, rigid: bool = False) -> np.ndarray:
    """``n`` random invertible frames: turned, scaled and sheared (or only turned), moved up to 300 px."""
    angle = rng.uniform(-math.pi, math.pi, n)
    turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]]).transpose(2, 0, 1)
    stretch = np.zeros((n, 2, 2))
    stretch[:, 0, 0] = 1.0 if rigid else rng.uniform(0.6, 1.6, n)
    stretch[:, 1, 1] = 1.0 if rigid else rng.uniform(0.6, 1.6, n)
    stretch[:, 0, 1] = 0.0 if rigid else rng.uniform(-0.4, 0.4, n)
    frames = np.empty((n, 2, 3))
    frames[:, :, :2] = turn @ stretch
    frames[:, :, 2] = rng.uniform(-300, 300, (n, 2))
    return frames


def random_skeleton(rng: np.random.Generator, bones: int, rigid: bool = False):
    """A random hierarchy (parents before children, sometimes several roots) in a random bind pose."""
    parent = np.array([int(rng.integers(-1, k)) if k else -1 for k in range(bones)])
    return make_skeleton(parent, random_frames(rng, bones, rigid), rng.uniform(10, 80, bones))


def random_influences(rng: np.random.Generator, vertices: int, bones: int):
    """1 to 4 bones per vertex, weights summing to 1, empty slots as bone 0 with weight 0."""
    indices = rng.integers(0, bones, (vertices, 4)).astype(np.int32)
    weights = rng.dirichlet(np.ones(4), vertices)
    used = rng.integers(1, 5, vertices)
    weights[np.arange(4)[None, :] >= used[:, None]] = 0.0
    weights /= weights.sum(axis=1, keepdims=True)
    indices[weights == 0.0] = 0
    return indices, weights


def posed(skeleton, rng: np.random.Generator, rigid: bool = False) -> np.ndarray:
    """Pose ``skeleton`` at random local frames; return its skinning matrices."""
    skeleton.local[:] = random_frames(rng, skeleton.count, rigid)
    pose_from_local(skeleton.parent, skeleton.local, skeleton.pose)
    skin_matrices(skeleton.pose, skeleton.inverse_bind, skeleton.skinning)
    return skeleton.skinning


def apply(frames: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Each frame ``(v, 2, 3)`` applied to its point ``(v, 2)``."""
    return np.einsum("vij,vj->vi", frames[:, :, :2], points) + frames[:, :, 2]


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.integers(1, 20))
def test_blended_matrices_and_the_naive_average_of_rigid_positions_agree(seed: int, bones: int) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, bones)
    matrices = posed(skeleton, rng)
    vertices = rng.uniform(-300, 300, (200, 2))
    indices, weights = random_influences(rng, 200, bones)
    fast = np.empty_like(vertices)
    naive = np.empty_like(vertices)
    skin_vertices(vertices, indices, weights, matrices, fast)
    skin_vertices_naive(vertices, indices, weights, matrices, naive)
    # the two sum the same products in a different order: they differ by rounding, about 1e-13 px
    # for coordinates of a few thousand px, far inside the 1e-9
    np.testing.assert_allclose(fast, naive, rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.integers(1, 12))
def test_with_every_bone_at_its_bind_pose_the_mesh_is_unchanged(seed: int, bones: int) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, bones)
    pose_from_local(skeleton.parent, skeleton.bind_local, skeleton.pose)  # the bind pose, down the hierarchy
    skin_matrices(skeleton.pose, skeleton.inverse_bind, skeleton.skinning)
    vertices = rng.uniform(-300, 300, (300, 2))
    indices, weights = random_influences(rng, 300, bones)
    out = np.empty_like(vertices)
    skin_vertices(vertices, indices, weights, skeleton.skinning, out)
    # bind ∘ bind⁻¹ is the identity up to rounding of the 300 px translations (about 1e-13 px)
    np.testing.assert_allclose(out, vertices, rtol=0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_a_vertex_with_one_bone_keeps_its_place_in_that_bones_frame(seed: int) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, 6)
    vertices = rng.uniform(-300, 300, (50, 2))
    indices = np.zeros((50, 4), np.int32)
    indices[:, 0] = rng.integers(0, 6, 50)
    weights = np.zeros((50, 4))
    weights[:, 0] = 1.0
    bone_local = apply(skeleton.inverse_bind[indices[:, 0]], vertices)
    for _ in range(3):
        matrices = posed(skeleton, rng)
        out = np.empty_like(vertices)
        skin_vertices(vertices, indices, weights, matrices, out)
        seen_from_bone = apply(invert_frames(skeleton.pose)[indices[:, 0]], out)
        np.testing.assert_allclose(seen_from_bone, bone_local, rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_a_60_40_vertex_sits_40_percent_of_the_way_from_the_first_bones_rigid_position(seed: int) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, 2)
    matrices = posed(skeleton, rng)
    vertex = rng.uniform(-100, 100, (1, 2))
    indices = np.array([[0, 1, 0, 0]], np.int32)
    weights = np.array([[0.6, 0.4, 0.0, 0.0]])
    out = np.empty((1, 2))
    skin_vertices(vertex, indices, weights, matrices, out)
    first, second = rigid_positions(vertex, indices, matrices)[0, :2]
    np.testing.assert_allclose(out[0], first + 0.4 * (second - first), rtol=0, atol=1e-9)
    if np.linalg.norm(second - first) > 1e-6:
        assert np.linalg.norm(out[0] - first) < np.linalg.norm(out[0] - second)


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_skinned_normals_are_unit_and_turn_with_a_rigid_vertexs_bone(seed: int) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, 5, rigid=True)
    matrices = posed(skeleton, rng, rigid=True)
    angle = rng.uniform(-math.pi, math.pi, 100)
    normals = np.stack([np.cos(angle), np.sin(angle)], axis=1)
    indices, weights = random_influences(rng, 100, 5)
    out = np.empty_like(normals)
    skin_normals(normals, indices, weights, matrices, out)
    length = np.hypot(out[:, 0], out[:, 1])
    # zero only where the blended turns cancel (opposite rotations, evenly weighted)
    np.testing.assert_allclose(length[length > 0], 1.0, rtol=0, atol=1e-12)
    rigid = weights[:, 0] == 1.0
    turned = np.einsum("vij,vj->vi", matrices[indices[rigid, 0], :, :2], normals[rigid])
    np.testing.assert_allclose(out[rigid], turned, rtol=0, atol=1e-12)


def test_an_interior_vertex_keeps_a_zero_normal() -> None:
    out = np.ones((1, 2))
    skin_normals(
        np.zeros((1, 2)),
        np.zeros((1, 4), np.int32),
        np.array([[1.0, 0, 0, 0]]),
        random_frames(np.random.default_rng(1), 1),
        out,
    )
    np.testing.assert_array_equal(out, 0.0)


def square_mesh(**influences):
    """Two triangles making the square (0, 0)-(10, 10), bound to two bones."""
    vertices = [[0, 0], [10, 0], [10, 10], [0, 10]]
    return make_skinned_mesh(vertices, [[0, 1, 2], [0, 2, 3]], vertices, bones=2, **influences)


def test_weights_that_do_not_sum_to_1_are_refused_with_the_vertex_named() -> None:
    with pytest.raises(ValueError, match=r"must sum to 1 .*vertex 2 sums to 0\.9.*normalise"):
        square_mesh(bone_indices=[[0, 1]] * 4, weights=[[0.5, 0.5], [1, 0], [0.5, 0.4], [0, 1]])


def test_normalise_rescales_the_weights_and_reports_which_vertices_changed() -> None:
    mesh = square_mesh(
        bone_indices=[[0, 1]] * 4, weights=[[0.5, 0.5], [1, 0], [0.5, 0.4], [0, 2]], normalise=True
    )
    np.testing.assert_allclose(mesh.weights.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(mesh.weights[2, :2], [5 / 9, 4 / 9])
    assert mesh.normalised.tolist() == [2, 3]


def test_more_than_four_bones_on_a_vertex_are_refused() -> None:
    weights = [[0.2] * 5] + [[1, 0, 0, 0, 0]] * 3
    with pytest.raises(ValueError, match=r"at most 4 bones.*vertex 0"):
        make_skinned_mesh(
            [[0, 0], [1, 0], [1, 1], [0, 1]], [], np.zeros((4, 2)), [[0, 1, 2, 3, 4]] * 4, weights, 5
        )


def test_five_slots_with_at_most_four_weights_are_packed_into_four_in_order() -> None:
    mesh = square_mesh(bone_indices=[[1, 0, 1, 0, 1]] * 4, weights=[[0, 0.25, 0, 0.75, 0]] * 4)
    assert mesh.bone_indices.shape == (4, 4) and mesh.bone_indices.dtype == np.int32
    assert mesh.bone_indices[0].tolist() == [0, 0, 0, 0] and mesh.weights[0].tolist() == [0.25, 0.75, 0, 0]


@pytest.mark.parametrize(
    ("indices", "weights", "message"),
    [
        ([[0, 2]] * 4, [[0.5, 0.5]] * 4, r"between 0 and 1 \(there are 2 bones\): vertices 0, 1, 2, 3"),
        ([[0, -1]] * 4, [[1.0, 0.0]] * 4, r"between 0 and 1.*unused slot"),
        ([[0, 1]] * 4, [[1.5, -0.5]] * 4, r"must not be negative"),
        ([[0, 1]] * 4, [[0.0, 0.0]] + [[1.0, 0.0]] * 3, r"at least one bone; none at vertex 0"),
        ([[0, 1]] * 4, [[math.nan, 1.0]] * 4, r"finite"),
        ([[0.5, 1]] * 4, [[0.5, 0.5]] * 4, r"whole numbers"),
    ],
)
def test_bad_influences_are_refused_with_a_sentence(indices, weights, message) -> None:
    with pytest.raises(ValueError, match=message):
        square_mesh(bone_indices=indices, weights=weights)


def test_a_triangle_naming_a_missing_vertex_is_refused() -> None:
    with pytest.raises(ValueError, match=r"triangle 1 refers to vertex \[0, 2, 4\], but the mesh has 4"):
        make_skinned_mesh(
            np.zeros((4, 2)), [[0, 1, 2], [0, 2, 4]], np.zeros((4, 2)), [[0]] * 4, [[1.0]] * 4, 1
        )


def test_outline_normals_point_out_of_a_square_along_the_corner_bisectors() -> None:
    square = np.array([[0.0, 0], [10, 0], [10, 10], [0, 10], [5, 5]])
    fan = [[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]]
    normals = outline_normals(square, np.array(fan)[:, ::-1])  # clockwise triangles: the same outline
    diagonal = math.sqrt(0.5)
    expected = [
        [-diagonal, -diagonal],
        [diagonal, -diagonal],
        [diagonal, diagonal],
        [-diagonal, diagonal],
        [0, 0],
    ]
    np.testing.assert_allclose(normals, expected, atol=1e-15)


def test_skeleton_bones_must_come_after_their_parents() -> None:
    frames = random_frames(np.random.default_rng(0), 3)
    with pytest.raises(ValueError, match=r"bone 1 \('forearm'\) has parent 2 \('hand'\), listed after it"):
        make_skeleton([-1, 2, 1], frames, names=["upper", "forearm", "hand"])
    with pytest.raises(ValueError, match=r"name 'arm' is used twice"):
        make_skeleton([-1, 0, 1], frames, names=["arm", "arm", "hand"])
    with pytest.raises(ValueError, match=r"same point"):
        skeleton_from_segments([-1], [[1.0, 1.0]], [[1.0, 1.0]])


def test_local_frames_at_bind_compose_to_the_bind_pose_and_a_turn_swings_the_children() -> None:
    arm = skeleton_from_segments([-1, 0, 1], [[0, 0], [100, 0], [180, 0]], [[100, 0], [180, 0], [200, 0]])
    local_from_angles(arm.bind_local, np.zeros(3), arm.local)
    pose_from_local(arm.parent, arm.local, arm.pose)
    np.testing.assert_allclose(arm.pose, arm.bind, atol=1e-12)
    local_from_angles(arm.bind_local, np.array([0.0, math.pi / 2, 0.0]), arm.local)  # bend the elbow 90°
    pose_from_local(arm.parent, arm.local, arm.pose)
    np.testing.assert_allclose(arm.pose[0], arm.bind[0], atol=1e-12)
    np.testing.assert_allclose(arm.pose[2, :, 2], [100, 80], atol=1e-12)  # the wrist went up with the forearm
    np.testing.assert_allclose(arm.pose[2, :, 0], [0, 1], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(SEEDS)
def test_frames_from_particle_pairs_are_orthonormal_and_run_from_head_to_tail(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-500, 500, (30, 2))
    heads = rng.integers(0, 30, 40)
    tails = (heads + rng.integers(1, 30, 40)) % 30
    frames = np.zeros((40, 2, 3))
    bone_frames_from_particles(pos, heads, tails, frames)
    axes = frames[:, :, :2]
    np.testing.assert_allclose(
        axes.transpose(0, 2, 1) @ axes, np.broadcast_to(np.eye(2), (40, 2, 2)), atol=1e-12
    )
    np.testing.assert_allclose(np.linalg.det(axes), 1.0, atol=1e-12)  # right-handed: y is x turned +90°
    np.testing.assert_array_equal(frames[:, :, 2], pos[heads])
    along = pos[tails] - pos[heads]
    np.testing.assert_allclose(
        apply(frames, np.stack([np.hypot(*along.T), np.zeros(40)], axis=1)), pos[tails]
    )


def test_a_bone_whose_particles_meet_keeps_its_last_direction() -> None:
    frames = np.array([[[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]])
    bone_frames_from_particles(np.array([[3.0, 4.0], [3.0, 4.0]]), np.array([0]), np.array([1]), frames)
    np.testing.assert_array_equal(frames, [[[0.0, -1.0, 3.0], [1.0, 0.0, 4.0]]])


def grid(left: float, bottom: float, right: float, top: float, cols: int, rows: int):
    """Vertices ``(v, 2)`` and triangles of a grid of ``cols`` × ``rows`` cells over the rectangle."""
    xs, ys = np.meshgrid(np.linspace(left, right, cols + 1), np.linspace(bottom, top, rows + 1))
    vertices = np.column_stack([xs.ravel(), ys.ravel()])
    corner = (np.arange(rows)[:, None] * (cols + 1) + np.arange(cols)[None, :]).ravel()
    a, b, d, e = corner, corner + 1, corner + cols + 1, corner + cols + 2
    return vertices, np.concatenate([np.column_stack([a, b, e]), np.column_stack([a, e, d])])


ARM_BONES = np.array([[[0.0, 0.0], [100.0, 0.0]], [[100.0, 0.0], [200.0, 0.0]]])
"""An upper arm (0, 0)-(100, 0) and a forearm (100, 0)-(200, 0)."""

ARM_MESH = grid(-10.0, -20.0, 210.0, 20.0, 44, 8)
"""A strip 40 px wide over them, in cells of 5 px."""


def dense(indices: np.ndarray, weights: np.ndarray, bones: int) -> np.ndarray:
    """``(v, bones)``: each vertex's weight on every bone."""
    out = np.zeros((len(indices), bones))
    np.add.at(out, (np.repeat(np.arange(len(indices)), indices.shape[1]), indices.ravel()), weights.ravel())
    return out


def test_automatic_weights_sum_to_1_and_are_the_same_every_time() -> None:
    vertices, triangles = ARM_MESH
    indices, weights = automatic_weights(vertices, triangles, ARM_BONES)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert indices.dtype == np.int32 and indices.shape == (len(vertices), 4) and np.all(indices < 2)
    again = automatic_weights(vertices, triangles, ARM_BONES)
    np.testing.assert_array_equal(again[0], indices)
    np.testing.assert_array_equal(again[1], weights)
    mesh = make_skinned_mesh(vertices, triangles, vertices, indices, weights, bones=2)
    assert mesh.weights.shape == (len(vertices), 4)  # the draft is accepted by the mesh as it stands


def test_a_vertex_far_along_a_bone_follows_it_and_the_joint_is_shared_half_and_half() -> None:
    vertices, triangles = ARM_MESH
    share = dense(*automatic_weights(vertices, triangles, ARM_BONES), 2)
    # heat from the other bone dies away exponentially, over about sqrt(d² + smoothing²) (36 px here,
    # smoothing 30): 0.72 of a vertex's own bone 20 px from the joint, 0.93 at 60, 0.98 at 100 (measured)
    distance = np.abs(vertices[:, 0] - 100.0)
    own = np.where(vertices[:, 0] < 100.0, share[:, 0], share[:, 1])
    assert (np.diff([own[np.isclose(distance, d)].min() for d in (20.0, 60.0, 100.0)]) > 0.0).all()
    assert own[distance >= 100.0].min() > 0.98, own[distance >= 100.0].min()
    # the joint's own column is as near one bone as the other, and a tie goes to the lower index (the
    # upper arm): the even split sits half a cell towards the forearm, 0.54 on the joint (measured)
    joint = np.abs(vertices[:, 0] - 100.0) < 1e-9
    np.testing.assert_allclose(share[joint], 0.5, atol=0.05)


def test_weights_change_gradually_along_every_edge_of_the_mesh() -> None:
    # what keeps a bent skin's triangles facing the same way: between two neighbouring vertices a
    # weight changes by at most about an edge length over the blend's reach (heat spreads over
    # sqrt(d² + smoothing²)); the distance falloff with a sight test it replaced jumped by 0.3 between
    # neighbours on an outline. The steepest here is 0.038 a px (5 px edges, smoothing 15 px): 1/15
    # would be a ramp as wide as the smoothing, and no edge comes near it
    vertices, triangles = ARM_MESH
    share = dense(*automatic_weights(vertices, triangles, ARM_BONES, smoothing=15.0), 2)
    edges = np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]])
    length = np.linalg.norm(vertices[edges[:, 0]] - vertices[edges[:, 1]], axis=1)
    slope = np.abs(share[edges[:, 0]] - share[edges[:, 1]]).max(axis=1) / length
    assert slope.max() < 1.0 / 15.0, slope.max()


def test_heat_never_crosses_a_gap_in_the_mesh() -> None:
    # a leg 10 px beside an arm, with nothing between them: neither takes any of the other's weight;
    # the same two strips joined by a bridge of cells pass heat through it
    arm = grid(0.0, -10.0, 100.0, 10.0, 20, 4)
    leg = grid(0.0, 20.0, 100.0, 40.0, 20, 4)
    bones = np.array([[[0.0, 0.0], [100.0, 0.0]], [[0.0, 30.0], [100.0, 30.0]]])
    vertices = np.concatenate([arm[0], leg[0]])
    triangles = np.concatenate([arm[1], leg[1] + len(arm[0])])
    share = dense(*automatic_weights(vertices, triangles, bones, smoothing=20.0), 2)
    on_arm = np.arange(len(vertices)) < len(arm[0])
    assert share[on_arm, 1].max() == 0.0 and share[~on_arm, 0].max() == 0.0
    joined = grid(0.0, -10.0, 100.0, 40.0, 20, 10)
    share = dense(*automatic_weights(*joined, bones, smoothing=20.0), 2)
    assert share[joined[0][:, 1] < -5.0, 1].max() > 0.01


def test_a_vertex_takes_the_bone_it_sees_through_the_mesh_not_one_across_a_gap() -> None:
    # a head (a wide patch) above a shoulder with a gap between them but for a neck at one side: the
    # head's corner next to the shoulder is nearer the shoulder's bone in a straight line, but that line
    # leaves the mesh; the head's own bone, further off, is in plain sight
    head = grid(0.0, 20.0, 60.0, 60.0, 12, 8)
    neck = grid(50.0, 0.0, 60.0, 20.0, 2, 4)
    shoulder = grid(0.0, -10.0, 60.0, 0.0, 12, 2)
    parts = [head, neck, shoulder]
    offsets = np.cumsum([0] + [len(part[0]) for part in parts])
    vertices = np.concatenate([part[0] for part in parts])
    triangles = np.concatenate([part[1] + offset for part, offset in zip(parts, offsets, strict=False)])
    bones = np.array([[[55.0, 30.0], [55.0, 60.0]], [[55.0, -5.0], [0.0, -5.0]]])  # head, shoulder
    own, _ = nearest_visible_bones(vertices, triangles, bones)
    corner = np.flatnonzero(np.all(np.isclose(vertices, [0.0, 20.0]), axis=1))[0]
    assert np.hypot(0.0, 25.0) < 55.0  # the shoulder's bone is the nearer, in a straight line
    assert own[corner] == 0


def test_identical_bones_leave_every_vertex_on_the_first_and_options_are_checked() -> None:
    vertices, triangles = grid(0.0, -5.0, 10.0, 5.0, 2, 2)
    segments = np.array([[[0.0, 0], [10, 0]]] * 3)
    indices, weights = automatic_weights(vertices, triangles, segments, max_bones=2)
    assert (indices[:, 0] == 0).all() and (weights[:, 0] == 1.0).all()
    with pytest.raises(ValueError, match="max_bones"):
        automatic_weights(vertices, triangles, segments, max_bones=5)
    with pytest.raises(ValueError, match="smoothing"):
        automatic_weights(vertices, triangles, segments, smoothing=-1.0)


def test_keeping_four_bones_is_continuous_when_the_fourth_and_fifth_change_places() -> None:
    # dropping the fifth heaviest bone outright would make its weight jump from 0 to its share as it
    # overtakes the fourth; lowering every weight by the fifth's makes that handover smooth
    t = np.linspace(0.0, 1.0, 201)
    heat = np.column_stack(
        [np.full_like(t, 0.4), np.full_like(t, 0.3), np.full_like(t, 0.15), 0.1 - 0.05 * t, 0.05 + 0.05 * t]
    )
    indices, weights = strongest_influences(heat, np.zeros(len(t), dtype=np.int64))
    assert (np.count_nonzero(weights, axis=1) <= 4).all()
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, atol=1e-12)
    share = dense(indices, weights, 5)
    assert np.abs(np.diff(share, axis=0)).max() < 0.01  # 201 steps: no jump bigger than a step's worth


def test_the_heat_solve_agrees_with_a_dense_solve_of_the_same_system() -> None:
    vertices, triangles = grid(0.0, 0.0, 30.0, 20.0, 6, 4)
    rng = np.random.default_rng(5)
    vertices = vertices + rng.uniform(-1.0, 1.0, vertices.shape)  # no right angles: every cotangent counts
    indptr, columns, values, mass = cotangent_laplacian(vertices, triangles)
    n = len(vertices)
    laplacian = np.zeros((n, n))
    for i in range(n):
        laplacian[i, columns[indptr[i] : indptr[i + 1]]] = values[indptr[i] : indptr[i + 1]]
    np.testing.assert_allclose(laplacian, laplacian.T, atol=1e-12)
    np.testing.assert_allclose(laplacian.sum(axis=1), 0.0, atol=1e-12)
    u = vertices[triangles[:, 1]] - vertices[triangles[:, 0]]
    w = vertices[triangles[:, 2]] - vertices[triangles[:, 0]]
    assert mass.sum() == pytest.approx(0.5 * np.abs(u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0]).sum(), rel=1e-12)
    screen = mass * rng.uniform(0.01, 0.1, n)
    rhs = rng.uniform(0.0, 1.0, (n, 3))
    out = np.zeros_like(rhs)
    solve_screened(indptr, columns, values, screen, rhs, out, 1e-12, 1000)
    np.testing.assert_allclose(out, np.linalg.solve(laplacian + np.diag(screen), rhs), rtol=1e-8, atol=1e-10)


def dual_quaternion_skin(skeleton, vertices, indices, weights, normals=None):
    """Positions (and normals) of ``vertices`` skinned by dual quaternions in the skeleton's pose."""
    skin_matrices(skeleton.pose, skeleton.inverse_bind, skeleton.skinning)
    bone_dual_quaternions(skeleton.parent, skeleton.skinning, skeleton.skin_angles, skeleton.skin_rotors)
    positions = np.empty_like(vertices)
    out_normals = np.empty_like(vertices)
    normals = np.zeros_like(vertices) if normals is None else normals
    skin_vertices_dual_quaternion(
        vertices, normals, indices, weights, skeleton.skin_rotors, positions, out_normals
    )
    return positions, out_normals


@settings(max_examples=60, deadline=None)
@given(SEEDS, st.integers(1, 20))
def test_the_dual_quaternion_kernel_agrees_with_its_numpy_reference(seed: int, bones: int) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, bones, rigid=True)
    posed(skeleton, rng, rigid=True)
    vertices = rng.uniform(-300, 300, (200, 2))
    indices, weights = random_influences(rng, 200, bones)
    fast, _ = dual_quaternion_skin(skeleton, vertices, indices, weights)
    naive = np.empty_like(vertices)
    skin_vertices_dual_quaternion_naive(vertices, indices, weights, skeleton.skin_rotors, naive)
    # the kernel rebuilds the rotation from the rotor's squares, the reference from its angle: they
    # agree to rounding (about 1e-12 px at a few thousand px)
    np.testing.assert_allclose(fast, naive, rtol=0, atol=1e-9)


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.integers(1, 12))
def test_dual_quaternions_leave_a_mesh_in_its_bind_pose_unchanged_and_move_a_one_bone_vertex_rigidly(
    seed: int, bones: int
) -> None:
    rng = np.random.default_rng(seed)
    skeleton = random_skeleton(rng, bones, rigid=True)
    vertices = rng.uniform(-300, 300, (100, 2))
    indices, weights = random_influences(rng, 100, bones)
    pose_from_local(skeleton.parent, skeleton.bind_local, skeleton.pose)
    out, _ = dual_quaternion_skin(skeleton, vertices, indices, weights)
    np.testing.assert_allclose(out, vertices, rtol=0, atol=1e-9)
    posed(skeleton, rng, rigid=True)
    weights = np.zeros((100, 4))
    weights[:, 0] = 1.0
    out, _ = dual_quaternion_skin(skeleton, vertices, indices, weights)
    np.testing.assert_allclose(out, apply(skeleton.skinning[indices[:, 0]], vertices), rtol=0, atol=1e-9)


def bent_elbow(degrees: float):
    """An upper arm (-100, 0)-(0, 0) and a forearm from the elbow at the origin, turned ``degrees``."""
    skeleton = skeleton_from_segments([-1, 0], [[-100.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [100.0, 0.0]])
    local_from_angles(skeleton.bind_local, np.array([0.0, math.radians(degrees)]), skeleton.local)
    pose_from_local(skeleton.parent, skeleton.local, skeleton.pose)
    return skeleton


@pytest.mark.parametrize("degrees", [90.0, 150.0, 180.0])
def test_the_elbow_keeps_cos_half_the_angle_of_its_width_by_linear_blend_and_all_of_it_by_dual_quaternions(
    degrees: float,
) -> None:
    # the textbook figure: the elbow's cross-section, two vertices 20 px above and below the joint,
    # each half on either bone. Linear blend: the average of two rotations by 0 and θ is a rotation by
    # θ/2 scaled by cos(θ/2), so the section keeps cos(θ/2) of its width: 0.707 at 90 degrees, 0.259 at
    # 150, nothing at 180. Dual quaternions: the blend is a rotation by θ/2 about the joint, and the
    # section keeps its width, to rounding (1e-12 of 40 px)
    skeleton = bent_elbow(degrees)
    section = np.array([[0.0, 20.0], [0.0, -20.0]])
    indices = np.array([[0, 1, 0, 0]] * 2, dtype=np.int32)
    weights = np.array([[0.5, 0.5, 0.0, 0.0]] * 2)
    skin_matrices(skeleton.pose, skeleton.inverse_bind, skeleton.skinning)
    linear = np.empty_like(section)
    skin_vertices(section, indices, weights, skeleton.skinning, linear)
    dual, _ = dual_quaternion_skin(skeleton, section, indices, weights)
    half = math.radians(degrees) / 2.0
    assert np.linalg.norm(linear[0] - linear[1]) / 40.0 == pytest.approx(math.cos(half), abs=1e-12)
    assert np.linalg.norm(dual[0] - dual[1]) / 40.0 == pytest.approx(1.0, abs=1e-12)
    # and both turn it by half the bend
    for points in (dual, linear if degrees < 180.0 else dual):
        across = points[0] - points[1]
        assert math.atan2(-across[0], across[1]) == pytest.approx(half, abs=1e-9)


def test_dual_quaternions_blend_bones_turned_more_than_half_a_turn_apart_the_way_the_skeleton_turned() -> (
    None
):
    # a chain turned 120 degrees at each of two joints: the last bone is 240 degrees round from the
    # first, -120 the short way. A vertex half on each is turned 120 degrees, as the joints between
    # them turned; a per-vertex choice of sign (the shortest way) would turn it -60 degrees, and a
    # neighbour whose heaviest bone is the other one the other way: the skin would tear between them
    skeleton = skeleton_from_segments(
        [-1, 0, 1], [[0.0, 0], [50, 0], [100, 0]], [[50.0, 0], [100, 0], [150, 0]]
    )
    local_from_angles(skeleton.bind_local, np.radians([0.0, 120.0, 120.0]), skeleton.local)
    pose_from_local(skeleton.parent, skeleton.local, skeleton.pose)
    vertex = np.array([[75.0, 10.0], [75.0, 10.0], [75.0, 10.0]])
    indices = np.array([[0, 2, 0, 0]] * 3, dtype=np.int32)
    weights = np.array([[0.5, 0.5, 0, 0], [0.51, 0.49, 0, 0], [0.49, 0.51, 0, 0]])
    positions, normals = dual_quaternion_skin(
        skeleton, vertex, indices, weights, normals=np.array([[1.0, 0.0]] * 3)
    )
    assert math.degrees(math.atan2(normals[0, 1], normals[0, 0])) == pytest.approx(120.0, abs=1e-9)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-12)
    # neighbours in weight are neighbours in place: 2% of weight moves the vertex about 2% of the way
    assert np.linalg.norm(positions[1] - positions[2]) < 5.0


def random_joints(rng: np.random.Generator, joints: int):
    """Separate joints (three particles each) at random angles and masses, some pinned, random ranges."""
    pos = rng.uniform(-100, 100, (3 * joints, 2))
    inv_mass = rng.uniform(0.2, 3.0, 3 * joints)
    pinned = rng.integers(0, 4, joints)  # 0: a, 1: b, 2: c, 3: none
    for j in range(joints):
        if pinned[j] < 3:
            inv_mass[3 * j + pinned[j]] = 0.0
    a, b, c = (np.arange(joints) * 3 + k for k in range(3))
    low = rng.uniform(-3.0, 0.5, joints)
    high = np.minimum(low + rng.uniform(0.1, 3.0, joints), 3.0)
    return pos, inv_mass, a, b, c, low, high


def lengths(pos: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return np.concatenate([np.hypot(*(pos[b] - pos[a]).T), np.hypot(*(pos[c] - pos[b]).T)])


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_joint_limits_bring_random_angles_into_range_and_keep_the_bones_lengths(seed: int) -> None:
    rng = np.random.default_rng(seed)
    pos, inv_mass, a, b, c, low, high = random_joints(rng, 20)
    start = pos.copy()
    before = lengths(pos, a, b, c)
    mass = np.where(inv_mass > 0, 1.0 / np.maximum(inv_mass, 1e-300), 0.0)
    free = np.all(inv_mass.reshape(-1, 3) > 0, axis=1)
    limit_joint_angles(pos, inv_mass, a, b, c, low, high)
    angle = np.empty(20)
    joint_angles(pos, a, b, c, angle)
    # the projection iterates until the angle error is below 1e-12 rad; 1e-9 leaves room for
    # rounding in atan2 of bones ~100 px long, and is a thousand times finer than anything visible
    assert np.all(angle >= low - 1e-9) and np.all(angle <= high + 1e-9)
    # lengths are part of the projected block: held to its 1e-12 relative stopping point, here 1e-9 px
    np.testing.assert_allclose(lengths(pos, a, b, c), before, rtol=1e-9, atol=0)
    np.testing.assert_array_equal(pos[inv_mass == 0], start[inv_mass == 0])
    # internal forces only: the centre of mass of an unpinned joint stays put (rounding of ~100 px sums)
    moved = (mass[:, None] * (pos - start)).reshape(-1, 3, 2).sum(axis=1)
    np.testing.assert_allclose(moved[free], 0.0, atol=1e-9)


def test_a_joint_within_its_range_is_left_exactly_where_it_is() -> None:
    pos = np.array([[0.0, 0.0], [10.0, 0.0], [15.0, 5.0]])  # bent 45° counter-clockwise
    original = pos.copy()
    one = np.array([0])
    worst = limit_joint_angles(pos, np.ones(3), one, one + 1, one + 2, np.array([0.0]), np.array([1.0]))
    assert worst == 0.0
    np.testing.assert_array_equal(pos, original)


def test_an_elbow_bent_the_wrong_way_goes_to_the_nearer_limit() -> None:
    pos = np.array([[0.0, 0.0], [10.0, 0.0], [15.0, -5.0]])  # bent 45° clockwise, range [0, 150°]
    one = np.array([0])
    worst = limit_joint_angles(pos, np.ones(3), one, one + 1, one + 2, np.array([0.0]), np.array([2.6]))
    assert worst == pytest.approx(math.pi / 4)
    angle = np.empty(1)
    joint_angles(pos, one, one + 1, one + 2, angle)
    assert angle[0] == pytest.approx(0.0, abs=1e-9)  # straightened, not folded round to 150°


def test_a_joint_between_two_pinned_particles_is_left_alone() -> None:
    pos = np.array([[0.0, 0.0], [10.0, -5.0], [20.0, 0.0]])
    original = pos.copy()
    one = np.array([0])
    limit_joint_angles(
        pos, np.array([0.0, 1.0, 0.0]), one, one + 1, one + 2, np.array([-1.0]), np.array([0.0])
    )
    np.testing.assert_array_equal(pos, original)


def test_a_limb_chain_relaxed_with_its_bones_settles_within_every_limit() -> None:
    rng = np.random.default_rng(7)
    pos = np.cumsum(rng.uniform(-40, 40, (8, 2)), axis=0)  # a tangle of 7 bones
    inv_mass = np.ones(8)
    i = np.arange(7, dtype=np.uint32)
    rest = np.full(7, 30.0)
    a, b, c = np.arange(6), np.arange(1, 7), np.arange(2, 8)
    low, high = np.zeros(6), np.full(6, 2.4)  # elbows: straight to 137°, one way only
    for _ in range(60):
        relax_rigid_distances(pos, inv_mass, i, i + 1, rest, np.ones(7, bool))
        limit_joint_angles(pos, inv_mass, a, b, c, low, high)
    angle = np.empty(6)
    joint_angles(pos, a, b, c, angle)
    # each joint's projection moves its neighbours' particles, so the chain converges over passes
    # (as a ragdoll's relax loop does); 60 passes bring it within a thousandth of a radian and pixel
    assert np.all(angle >= low - 1e-3) and np.all(angle <= high + 1e-3)
    np.testing.assert_allclose(np.hypot(*np.diff(pos, axis=0).T), rest, atol=1e-3)
