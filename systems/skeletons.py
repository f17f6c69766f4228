"""Skinned characters: building them, keeping a ragdoll's joints in range, posing bones, skinning.

A character's bones are driven either by particles (a Verlet ragdoll,
Jakobsen 2001: a particle per joint, a rigid distance per bone, angle
limits at the joints) or by a looping keyframed clip. Once a frame the
bones' frames are found, each turn kept within its joint's range, and the
mesh is skinned (dual-quaternion or linear blend skinning, as the skeleton
says); drawing reads ``SkinnedMesh.positions``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import esper
import numpy as np
import numpy.typing as npt

from weft.components import DistanceMode, ParticleKind, Stores
from weft.components.skeleton import Bones
from weft.components.skin import SkinnedMesh
from weft.components.skinned import DEFAULT_SKINNING, Clip, Ragdoll, SkinLook, Skinned, Skinning
from weft.systems import world
from weft.systems.kernels.bones import local_from_angles, pose_from_local, pose_from_particles
from weft.systems.kernels.dual_quaternions import bone_dual_quaternions, skin_vertices_dual_quaternion
from weft.systems.kernels.joint_limits import sweep_joint_limits
from weft.systems.kernels.skinning import skin_matrices, skin_vertices_and_normals
from weft.systems.pins import pin
from weft.systems.schedule import Step, System
from weft.systems.skeleton_build import skeleton_from_segments
from weft.systems.skin_mesh import MeshSpec, make_skin, probe_vertices
from weft.systems.world import by_entity

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

LIMIT_SWEEPS = 32
"""Most passes over a ragdoll's joints per iteration: a calm one needs one; a whirled one, whose torso
limits and limb limits pull on the same joints, a dozen or more (8 left it 0.09 rad out)."""

LIMIT_SETTLED = 1e-4
"""rad: a sweep that found no joint further out than this ends them."""

LIMIT_RUNAWAY = 10.0
"""px: a sweep that moves a joint farther than this, and farther than the sweep before, is undone
and ends them (``sweep_joint_limits``): they are not converging. Converging sweeps move joints less
each time, 1.5 px at most in a whirl (while the moves are tiny they may grow a little from one sweep
to the next)."""


class BoneError(ValueError):
    """A bone that cannot be built as given; ``bone`` is its name."""

    def __init__(self, bone: str, message: str) -> None:
        super().__init__(message)
        self.bone = bone


@dataclass(frozen=True)
class BoneSpec:
    """A bone by joint indices, with its angle limits at the head (radians from the bind angle, or None)."""

    name: str
    head: int
    tail: int
    low: float | None = None
    high: float | None = None


def bone_parents(bones: list[BoneSpec]) -> list[int]:
    """Each bone's parent: the bone whose tail is its head, else an earlier bone with the same head; -1."""
    parents = []
    for k, bone in enumerate(bones):
        ends = [p for p, other in enumerate(bones) if other.tail == bone.head and p != k]
        shared = [p for p, other in enumerate(bones[:k]) if other.head == bone.head]
        parents.append(ends[0] if ends else shared[0] if shared else -1)
    return parents


def parents_first(parents: list[int]) -> list[int]:
    """An order of the bones in which every parent comes before its children (file order otherwise).

    Raises ``ValueError`` naming a bone on a loop of parents.
    """
    order: list[int] = []
    placed = [False] * len(parents)
    while len(order) < len(parents):
        ready = [k for k in range(len(parents)) if not placed[k] and (parents[k] < 0 or placed[parents[k]])]
        if not ready:
            stuck = next(k for k in range(len(parents)) if not placed[k])
            raise ValueError(f"bone {stuck} is its own ancestor: its parents run in a loop")
        for k in ready:
            placed[k] = True
        order += ready
    return order


def build_skeleton(
    stores: Stores,
    entity: int,
    *,
    name: str,
    joints: FloatArray,
    bones: list[BoneSpec],
    mesh: MeshSpec,
    look: SkinLook,
    probes: list[int],
    ragdoll: bool,
    braces: list[tuple[int, int]],
    joint_radius: float | FloatArray,
    mass: float,
    pinned: list[int],
    clip: Clip | None = None,
    method: Skinning = DEFAULT_SKINNING,
) -> tuple[Skinned, Ragdoll | Clip | None]:
    """A character's ``Skinned`` component and its driver (a ``Ragdoll`` added to the stores, or ``clip``).

    ``joints`` ``(j, 2)`` are world positions in the bind pose. Bones are
    reordered parents first; explicit weights and clip angles are given in
    the order of ``bones`` and reordered with them. The bones' limits bound
    the turns the skin shows (``Bones.turn_low``, ``turn_high``), for either
    driver. Raises ``ValueError`` for a mesh or weights the skin cannot use.
    """
    parents = bone_parents(bones)
    order = parents_first(parents)
    rank = {k: i for i, k in enumerate(order)}
    ordered = [bones[k] for k in order]
    parent = [rank[parents[k]] if parents[k] >= 0 else -1 for k in order]
    heads = np.array([bone.head for bone in ordered], dtype=np.int64)
    tails = np.array([bone.tail for bone in ordered], dtype=np.int64)
    skeleton = skeleton_from_segments(parent, joints[heads], joints[tails], [bone.name for bone in ordered])
    skin = make_skin(mesh, skeleton.bind_segments, rank, heads, tails, skeleton.parent)
    probed = probe_vertices(skin, joints, probes)
    skinned = Skinned(name, skeleton, skin, look, heads, tails, probed, method)
    limits = _limits(ordered, parent, joints)
    skeleton.turn_low[limits.bones] = limits.turn_low
    skeleton.turn_high[limits.bones] = limits.turn_high
    if not ragdoll:
        if clip is not None:
            clip = Clip(clip.times, clip.angles[:, order], clip.duration, clip.smooth)
        return skinned, clip
    particles = stores.particles.add(joints, 1.0 / mass, joint_radius, entity, kind=ParticleKind.RING)
    rows = np.arange(particles.start, particles.stop, dtype=np.int64)
    pairs = [(bone.head, bone.tail) for bone in ordered] + list(braces)
    i = np.array([rows[a] for a, _ in pairs], dtype=np.int64)
    j = np.array([rows[b] for _, b in pairs], dtype=np.int64)
    rest = np.hypot(*(joints[[b for _, b in pairs]] - joints[[a for a, _ in pairs]]).T)
    constraints = stores.distances.add(i, j, rest, owner=entity, mode=DistanceMode.EQUAL)
    for joint in pinned:
        pin(
            stores,
            int(rows[joint]),
            (float(joints[joint, 0]), float(joints[joint, 1])),
            owner=entity,
            speed=math.inf,
        )
    driver = Ragdoll(
        particles=particles,
        constraints=constraints,
        heads=rows[heads],
        tails=rows[tails],
        a=rows[limits.a],
        b=rows[limits.b],
        c=rows[limits.c],
        low=limits.low,
        high=limits.high,
    )
    return skinned, driver


@dataclass(frozen=True)
class JointLimits:
    """The limited bones' joints: triples ``(a, b, c)`` of joint indices, the absolute angle range
    ``[low, high]`` there (radians, see ``weft.systems.kernels.joint_limits``), and the same range as a
    turn from the bind angle, ``[turn_low, turn_high]``, for the bones (indices) ``bones``."""

    bones: IntArray
    a: IntArray
    b: IntArray
    c: IntArray
    low: FloatArray
    high: FloatArray
    turn_low: FloatArray
    turn_high: FloatArray


def _limits(bones: list[BoneSpec], parent: list[int], joints: FloatArray) -> JointLimits:
    """The limits of the bones that have them (bones in parents-first order, joints in bind positions).

    The angle is measured at the bone's head from its parent's direction
    (see ``weft.systems.kernels.joint_limits``); the bind angle plus the bone's
    range, kept within [-π, π] (the fold is as far as a range can reach).
    """
    limited, a, b, c, low, high, binds = [], [], [], [], [], [], []
    for k, bone in enumerate(bones):
        if parent[k] < 0 or (bone.low is None and bone.high is None):
            continue
        up = bones[parent[k]]
        before = up.head if up.tail == bone.head else up.tail
        u = joints[bone.head] - joints[before]
        v = joints[bone.tail] - joints[bone.head]
        bind = math.atan2(u[0] * v[1] - u[1] * v[0], u @ v)
        lowest = max(-math.pi, bind + (bone.low if bone.low is not None else -2.0 * math.pi))
        highest = min(math.pi, bind + (bone.high if bone.high is not None else 2.0 * math.pi))
        if lowest > highest:
            raise BoneError(
                bone.name,
                f"expected a range that stays within 180 degrees of the parent's direction, got "
                f"{math.degrees(bind):.0f} degrees in the bind pose turned by "
                f"{math.degrees(bone.low or 0.0):.0f} to {math.degrees(bone.high or 0.0):.0f}: "
                "past the fold on both ends",
            )
        limited.append(k)
        binds.append(bind)
        a.append(before)
        b.append(bone.head)
        c.append(bone.tail)
        low.append(lowest)
        high.append(highest)
    ints = [np.array(x, dtype=np.int64) for x in (limited, a, b, c)]
    low_array, high_array, bind = np.array(low), np.array(high), np.array(binds)
    return JointLimits(*ints, low_array, high_array, low_array - bind, high_array - bind)


def clip_angles(clip: Clip, time: float, out: FloatArray) -> None:
    """The clip's bone angles at ``time`` s (looping) into ``out``: eased (Catmull-Rom) or straight."""
    times, angles = clip.times, clip.angles
    keys = len(times)
    if keys == 1:
        out[:] = angles[0]
        return
    t = time % clip.duration
    # the loop closes from the last key back to the first, at duration
    k = int(np.searchsorted(times, t, side="right")) - 1
    if k < 0:
        k = keys - 1
    start = times[k]
    end = times[k + 1] if k + 1 < keys else times[0] + clip.duration
    span = end - start
    if t < start:
        t += clip.duration
    s = (t - start) / span if span > 0.0 else 0.0
    p1, p2 = angles[k], angles[(k + 1) % keys]
    if not clip.smooth:
        out[:] = p1 + s * (p2 - p1)
        return
    p0, p3 = angles[(k - 1) % keys], angles[(k + 2) % keys]
    s2, s3 = s * s, s * s * s
    out[:] = 0.5 * (
        2.0 * p1
        + (p2 - p0) * s
        + (2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) * s2
        + (3.0 * (p1 - p2) + p3 - p0) * s3
    )


class JointLimitSystem(System):
    """Brings every ragdoll joint back within its angle range, last in each iteration.

    Last, after the contacts: a joint bent past its limit by a hard knock is
    righted within the iteration, and the next iteration's contacts take back
    the little overlap that may cost.
    """

    name = "joint_limits"
    needs = ("particles", "ragdolls")

    def process(self, step: Step) -> None:
        ragdolls = by_entity(Ragdoll)
        if not ragdolls:
            return
        particles = world.stores().particles
        n = particles.count
        for _, doll in ragdolls:
            if not len(doll.a):
                continue
            sweep_joint_limits(
                particles.pos[:n], particles.inv_mass[:n], doll.a, doll.b, doll.c, doll.low, doll.high,
                doll.particles.start, doll.particles.stop, LIMIT_SWEEPS, LIMIT_SETTLED, LIMIT_RUNAWAY,
            )  # fmt: skip


class SkinSystem(System):
    """Poses every skeleton (from its particles or its clip) and skins its mesh, once a frame."""

    name = "skin"
    needs = ("skins",)

    def process(self, step: Step) -> None:
        characters = by_entity(Skinned)
        stores = world.stores()
        time = step.time + step.dt  # the end of this frame
        for entity, skinned in characters:
            pose(stores, entity, skinned, time)
            skin(skinned.skeleton, skinned.mesh, skinned.method)


def pose(stores: Stores, entity: int, skinned: Skinned, time: float) -> None:
    """Set the skeleton's pose from its ragdoll's particles or its clip at ``time`` s, every turn
    within the bone's range.

    A clip's keys are checked against the ranges when the level is read;
    between keys the eased curve can overshoot them, and is clamped here.
    """
    skeleton = skinned.skeleton
    if esper.has_component(entity, Ragdoll):
        doll = esper.component_for_entity(entity, Ragdoll)
        pose_from_particles(
            skeleton.parent,
            stores.particles.pos,
            doll.heads,
            doll.tails,
            skeleton.bind,
            skeleton.bind_local,
            skeleton.turn_low,
            skeleton.turn_high,
            skeleton.turns,
            skeleton.local,
            skeleton.pose,
        )
    elif esper.has_component(entity, Clip):
        clip = esper.component_for_entity(entity, Clip)
        clip_angles(clip, time, skeleton.turns)
        np.clip(skeleton.turns, skeleton.turn_low, skeleton.turn_high, out=skeleton.turns)
        local_from_angles(skeleton.bind_local, skeleton.turns, skeleton.local)
        pose_from_local(skeleton.parent, skeleton.local, skeleton.pose)


def joint_positions(skinned: Skinned) -> FloatArray:
    """``(j, 2)``: each joint in the current pose (a bone's origin, or the end of a bone ending there)."""
    skeleton = skinned.skeleton
    out = np.zeros((skinned.joint_count, 2))
    origins = skeleton.pose[:, :, 2]
    out[skinned.tails] = origins + skeleton.pose[:, :, 0] * skeleton.length[:, None]
    out[skinned.heads] = origins
    return out


def skin(skeleton: Bones, mesh: SkinnedMesh, method: Skinning = DEFAULT_SKINNING) -> None:
    """Skin ``mesh`` in the skeleton's current pose (positions and outline normals) by ``method``.

    The bones' matrices and dual quaternions are both kept current, whichever
    method skins: the debug view draws where each would put a vertex.
    """
    skin_matrices(skeleton.pose, skeleton.inverse_bind, skeleton.skinning)
    bone_dual_quaternions(skeleton.parent, skeleton.skinning, skeleton.skin_angles, skeleton.skin_rotors)
    if method == Skinning.DUAL_QUATERNION:
        skin_vertices_dual_quaternion(
            mesh.bind_positions,
            mesh.bind_normals,
            mesh.bone_indices,
            mesh.weights,
            skeleton.skin_rotors,
            mesh.positions,
            mesh.normals,
        )
        return
    skin_vertices_and_normals(
        mesh.bind_positions,
        mesh.bind_normals,
        mesh.bone_indices,
        mesh.weights,
        skeleton.skinning,
        mesh.positions,
        mesh.normals,
    )
