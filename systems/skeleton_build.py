"""Making a skeleton's ``Bones``: bind frames checked and inverted, composed into local frames.

Frames are 2×3 affine matrices (see ``weft.components.skeleton``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from weft.components.skeleton import Bones


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
