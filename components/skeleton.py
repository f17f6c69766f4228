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
    ``skeleton_from_segments``) so that bind-to-pose is a rigid motion.

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


def make_skeleton(
    parent: npt.ArrayLike,
    bind: npt.ArrayLike,
    length: npt.ArrayLike | None = None,
    names: list[str] | tuple[str, ...] | None = None,
) -> Bones:
    """A skeleton from parent indices ``(n,)`` and bind frames ``(n, 2, 3)``, posed in its bind pose.

    ``length`` ``(n,)`` defaults to 0 (a bone as a point); ``names`` to
    ``bone0``, ``bone1``... Raises ``ValueError`` for a parent listed after
    its child, an unknown parent, a singular frame or a repeated name.
    """
    bind = np.array(bind, dtype=np.float64)
    if bind.ndim != 3 or bind.shape[1:] != (2, 3) or len(bind) == 0:
        raise ValueError(f"bind frames must have shape (bones, 2, 3), got {bind.shape}")
    n = len(bind)
    parent = whole_numbers(parent, "parent indices")
    if parent.shape != (n,):
        raise ValueError(f"expected one parent index per bone ({n}), got shape {parent.shape}")
    names = tuple(names) if names is not None else tuple(f"bone{k}" for k in range(n))
    if len(names) != n:
        raise ValueError(f"expected one name per bone ({n}), got {len(names)}")
    length = np.zeros(n) if length is None else np.array(length, dtype=np.float64)
    if length.shape != (n,):
        raise ValueError(f"expected one length per bone ({n}), got shape {length.shape}")
    if not np.all(np.isfinite(bind)) or not np.all(np.isfinite(length)):
        raise ValueError("bind frames and bone lengths must be finite numbers")
    for k in range(n):
        if names.index(names[k]) != k:
            raise ValueError(f"bone name {names[k]!r} is used twice; bone names must be unique")
        if not -1 <= parent[k] < n:
            raise ValueError(f"bone {k} ({names[k]!r}) has parent {parent[k]}, but there are {n} bones")
        if parent[k] >= k:
            raise ValueError(
                f"bone {k} ({names[k]!r}) has parent {parent[k]} ({names[parent[k]]!r}), listed after it: "
                "list every bone after its parent"
            )
    det = bind[:, 0, 0] * bind[:, 1, 1] - bind[:, 0, 1] * bind[:, 1, 0]
    singular = np.flatnonzero(np.abs(det) < 1e-12)
    if len(singular):
        k = int(singular[0])
        raise ValueError(
            f"bone {k} ({names[k]!r}) has a singular bind frame: its x and y axes are parallel or zero"
        )
    inverse_bind = invert_frames(bind)
    bind_local = bind.copy()
    child = parent >= 0
    bind_local[child] = compose_frames(inverse_bind[parent[child]], bind[child])
    skinning = np.zeros_like(bind)
    skinning[:, 0, 0] = skinning[:, 1, 1] = 1.0
    rotors = np.zeros((n, 4))
    rotors[:, 0] = 1.0
    return Bones(
        names,
        parent,
        length,
        bind,
        inverse_bind,
        bind_local,
        bind_local.copy(),
        bind.copy(),
        skinning,
        np.zeros(n),
        np.full(n, -np.inf),
        np.full(n, np.inf),
        np.zeros(n),
        rotors,
    )


def skeleton_from_segments(
    parent: npt.ArrayLike,
    heads: npt.ArrayLike,
    tails: npt.ArrayLike,
    names: list[str] | tuple[str, ...] | None = None,
) -> Bones:
    """A skeleton whose bind frames run from ``heads`` to ``tails`` ``(n, 2)``, unit scale.

    The form of a particle-driven bone: origin at the head, x axis along the
    bone, y axis a quarter turn counter-clockwise from it.
    """
    heads = np.array(heads, dtype=np.float64)
    tails = np.array(tails, dtype=np.float64)
    if heads.ndim != 2 or heads.shape[1] != 2 or heads.shape != tails.shape:
        raise ValueError(
            f"heads and tails must both have shape (bones, 2), got {heads.shape} and {tails.shape}"
        )
    along = tails - heads
    length = np.hypot(along[:, 0], along[:, 1])
    short = np.flatnonzero(~(length > 1e-9))
    if len(short):
        raise ValueError(f"bone {int(short[0])} has its head and tail at the same point; give it a length")
    x_axis = along / length[:, None]
    y_axis = np.stack([-x_axis[:, 1], x_axis[:, 0]], axis=1)
    bind = np.stack([x_axis, y_axis, heads], axis=2)
    return make_skeleton(parent, bind, length, names)


def invert_frames(frames: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The inverse of each affine frame ``(n, 2, 3)``: ``[L⁻¹ | -L⁻¹·o]``."""
    a, b = frames[:, 0, 0], frames[:, 0, 1]
    c, d = frames[:, 1, 0], frames[:, 1, 1]
    det = a * d - b * c
    inverse = np.empty_like(frames)
    inverse[:, 0, 0] = d / det
    inverse[:, 0, 1] = -b / det
    inverse[:, 1, 0] = -c / det
    inverse[:, 1, 1] = a / det
    inverse[:, :, 2] = -np.einsum("nij,nj->ni", inverse[:, :, :2], frames[:, :, 2])
    return inverse


def compose_frames(outer: npt.NDArray[np.float64], inner: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``outer ∘ inner`` for frames ``(n, 2, 3)``: ``inner`` applied first."""
    composed = np.empty(np.broadcast_shapes(outer.shape, inner.shape))
    composed[..., :2] = outer[..., :2] @ inner[..., :2]
    composed[..., 2] = np.einsum("...ij,...j->...i", outer[..., :2], inner[..., 2]) + outer[..., 2]
    return composed


def whole_numbers(values: npt.ArrayLike, what: str) -> npt.NDArray[np.int64]:
    """``values`` as int64, refusing fractions (a bone index of 1.5 is a mistake, not bone 1)."""
    array = np.asarray(values)
    not_whole = array.dtype.kind != "f" or not np.all(array == np.round(array))
    if array.size and array.dtype.kind not in "iu" and not_whole:
        raise ValueError(f"{what} must be whole numbers")
    return array.astype(np.int64)
