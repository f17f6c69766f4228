"""Bone frames: from particle pairs (a Verlet ragdoll) or from local frames down the hierarchy (keyframes).

A frame is a 2×3 affine matrix whose columns are the bone's x axis, y axis
and origin in model space (see ``weft.components.skeleton``).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt


@numba.njit(cache=True)
def compose_frame(
    outer: npt.NDArray[np.float64], inner: npt.NDArray[np.float64], out: npt.NDArray[np.float64]
) -> None:
    """``out = outer ∘ inner`` for single ``(2, 3)`` frames, ``inner`` applied first (``out`` not aliased)."""
    for i in range(2):
        out[i, 0] = outer[i, 0] * inner[0, 0] + outer[i, 1] * inner[1, 0]
        out[i, 1] = outer[i, 0] * inner[0, 1] + outer[i, 1] * inner[1, 1]
        out[i, 2] = outer[i, 0] * inner[0, 2] + outer[i, 1] * inner[1, 2] + outer[i, 2]


@numba.njit(cache=True)
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
