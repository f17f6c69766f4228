"""Bone frames: from particle pairs (a Verlet ragdoll) or from local frames down the hierarchy (keyframes).

A frame is a 2×3 affine matrix whose columns are the bone's x axis, y axis
and origin in model space (see ``weft.components.skeleton``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER
from weft.systems.kernels.joint_limits import wrap_angle


@numba.njit(cache=True, **INNER)
def compose_frame(
    outer: npt.NDArray[np.float64], inner: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None:
    """``out = outer ∘ inner`` for single ``(2, 3)`` frames, ``inner`` applied first (``out`` not aliased)."""
    for i in range(2):
        out[i, 0] = outer[i, 0] * inner[0, 0] + outer[i, 1] * inner[1, 0]
        out[i, 1] = outer[i, 0] * inner[0, 1] + outer[i, 1] * inner[1, 1]
        out[i, 2] = outer[i, 0] * inner[0, 2] + outer[i, 1] * inner[1, 2] + outer[i, 2]


@numba.njit(cache=True, **INNER)
def bone_frames_from_particles(
    pos: npt.NDArray[np.float64],
    heads: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    out: npt.NDArray[np.float64],
) -> None:
    """Each bone's frame from its two particles: origin at the head, unit x axis towards the tail.

    The y axis is x turned a quarter counter-clockwise, so the frame is a
    rotation plus a translation: the skin follows the ragdoll's bones
    without stretching even when a distance constraint gives a little.
    A bone whose particles coincide keeps last frame's axes (its direction
    is undefined) and only moves its origin.
    Shapes: ``pos`` ``(N, 2)``; ``heads``, ``tails`` ``(n,)``; ``out`` ``(n, 2, 3)``.
    """
    for k in range(heads.shape[0]):
        h = heads[k]
        t = tails[k]
        dx = pos[t, 0] - pos[h, 0]
        dy = pos[t, 1] - pos[h, 1]
        length = math.sqrt(dx * dx + dy * dy)
        if length > 1e-12:
            out[k, 0, 0] = dx / length
            out[k, 1, 0] = dy / length
            out[k, 0, 1] = -dy / length
            out[k, 1, 1] = dx / length
        out[k, 0, 2] = pos[h, 0]
        out[k, 1, 2] = pos[h, 1]


@numba.njit(cache=True)
def pose_from_local(
    parent: npt.NDArray[np.int64], local: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None:
    """Model-space frames from frames relative to the parent: ``out[k] = out[parent[k]] ∘ local[k]``.

    One pass in bone order, which lists parents first, so a parent's frame
    is final before any child reads it. Shapes: ``parent`` ``(n,)`` (-1 for
    a root); ``local``, ``out`` ``(n, 2, 3)``.
    """
    for k in range(parent.shape[0]):
        p = parent[k]
        if p < 0:
            for row in range(2):  # element by element: see box_batches.keep_plan
                for column in range(3):
                    out[k, row, column] = local[k, row, column]
        else:
            compose_frame(out[p], local[k], out[k])


@numba.njit(cache=True)
def local_from_angles(
    bind_local: npt.NDArray[np.float64], angles: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None:
    """Local frames for a keyframed pose: each bone turned by ``angles[k]`` about its own origin.

    ``out[k] = bind_local[k] ∘ R(angles[k])``: the rotation acts in the
    bone's frame, so the bone turns about its joint with its parent and its
    children turn with it. Angles in radians, counter-clockwise, 0 = bind pose.
    Shapes: ``bind_local``, ``out`` ``(n, 2, 3)``; ``angles`` ``(n,)``.
    """
    for k in range(angles.shape[0]):
        c = math.cos(angles[k])
        s = math.sin(angles[k])
        for i in range(2):
            x = bind_local[k, i, 0]
            y = bind_local[k, i, 1]
            out[k, i, 0] = x * c + y * s
            out[k, i, 1] = y * c - x * s
            out[k, i, 2] = bind_local[k, i, 2]


@numba.njit(cache=True)
def pose_from_particles(
    parent: npt.NDArray[np.int64],
    pos: npt.NDArray[np.float64],
    heads: npt.NDArray[np.int64],
    tails: npt.NDArray[np.int64],
    bind: npt.NDArray[np.float64],
    bind_local: npt.NDArray[np.float64],
    turn_low: npt.NDArray[np.float64],
    turn_high: npt.NDArray[np.float64],
    turns: npt.NDArray[np.float64],
    local: npt.NDArray[np.float64],
    out: npt.NDArray[np.float64],
) -> None:
    """A ragdoll's pose for its skin: each bone turned from its parent as its particles say, within range.

    The frames from the particles (``bone_frames_from_particles``) give each
    bone's turn from its bind angle relative to its parent, wrapped into
    (-π, π]; it is clamped into ``[turn_low, turn_high]`` and the pose is
    rebuilt down the hierarchy (``local_from_angles``, ``pose_from_local``)
    from the roots' frames. The skin thus always wears a rigid skeleton whose
    joints are within their limits: a yank or a crate that stretches a bone
    or forces a joint past its limit for a few frames shows as the skin
    lagging its particles by that much, never as a torn or folded skin.
    Shapes: ``pos`` ``(N, 2)``; ``parent``, ``heads``, ``tails``,
    ``turn_*``, ``turns`` ``(n,)``; ``bind``, ``bind_local``, ``local``,
    ``out`` ``(n, 2, 3)``.
    """
    bone_frames_from_particles(pos, heads, tails, out)
    for k in range(parent.shape[0]):
        p = parent[k]
        if p < 0:
            turns[k] = 0.0
            continue
        now = math.atan2(out[k, 1, 0], out[k, 0, 0]) - math.atan2(out[p, 1, 0], out[p, 0, 0])
        then = math.atan2(bind[k, 1, 0], bind[k, 0, 0]) - math.atan2(bind[p, 1, 0], bind[p, 0, 0])
        turns[k] = min(max(wrap_angle(now - then), turn_low[k]), turn_high[k])
    local_from_angles(bind_local, turns, local)
    for k in range(parent.shape[0]):
        if parent[k] < 0:  # element by element: a slice assignment compiles numba's error strings (5 s)
            for r in range(2):
                for c in range(3):
                    local[k, r, c] = out[k, r, c]
    pose_from_local(parent, local, out)
