"""Skeletons: bones as moving 2D frames in a hierarchy, with the pose the mesh was made in.

A frame is a 2×3 affine matrix ``[[xx, yx, ox], [xy, yy, oy]]``: its columns
are the bone's x axis, y axis and origin in model space, so a bone-local
point ``q`` sits at ``L·q + o``. Frames compose as ``A ∘ B`` = ``B`` first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt


@dataclass
class Bones:
    """A hierarchy of bones: where each was when the mesh was made, and where it is now.

    Bones are listed parents first (``parent[k] < k``, ``-1`` for a root), so
    one pass in order composes local frames into model-space ones. Bones
    driven by particle pairs have unit-scale frames (origin at the head, x
    axis towards the tail); give their bind frames the same form (see
    ``weft.systems.skeleton_build.skeleton_from_segments``) so that bind-to-pose is a rigid motion.

    Attributes (``n`` bones, frames ``(n, 2, 3)`` float64):
        names: one per bone, unique.
        parent: ``(n,)`` int64.
        length: ``(n,)`` float64, the bone runs from its origin to ``(length, 0)`` in its own frame.
        bind: the frames in the bind pose (the pose the mesh was made in), model space.
        inverse_bind: their inverses, computed once.
        bind_local: the bind frames relative to the parent's (a root's is its bind frame).
        local: the current frames relative to the parent's; keyframed clips write these.
        pose: the current frames in model space (from ``local``, or straight from particles).
        skinning: ``pose ∘ inverse_bind`` per bone, what the skinning kernels read.
        turns: ``(n,)`` radians, each bone's current turn from its bind angle relative to its parent
            (counter-clockwise; a root's is 0): a clip's angles, or a ragdoll's read from its particles.
        turn_low, turn_high: ``(n,)`` radians, the range the skin may show each turn in (the joint's
            limits; -inf and inf for a bone without them).
        skin_angles: ``(n,)`` radians, each ``skinning`` matrix's rotation unwrapped down the hierarchy.
        skin_rotors: ``(n, 4)``, each ``skinning`` matrix as a planar dual quaternion (what
            dual-quaternion skinning blends; see ``weft.systems.kernels.dual_quaternions``).
    """

    names: tuple[str, ...]
    parent: npt.NDArray[np.int64]
    length: npt.NDArray[np.float64]
    bind: npt.NDArray[np.float64]
    inverse_bind: npt.NDArray[np.float64]
    bind_local: npt.NDArray[np.float64]
    local: npt.NDArray[np.float64]
    pose: npt.NDArray[np.float64]
    skinning: npt.NDArray[np.float64]
    turns: npt.NDArray[np.float64]
    turn_low: npt.NDArray[np.float64]
    turn_high: npt.NDArray[np.float64]
    skin_angles: npt.NDArray[np.float64]
    skin_rotors: npt.NDArray[np.float64]

    @property
    def count(self) -> int:
        """Number of bones."""
        return len(self.parent)

    @property
    def bind_segments(self) -> npt.NDArray[np.float64]:
        """``(n, 2, 2)``: each bone's head and tail in the bind pose (for automatic weights)."""
        head = self.bind[:, :, 2]
        tail = head + self.bind[:, :, 0] * self.length[:, None]
        return np.stack([head, tail], axis=1)
