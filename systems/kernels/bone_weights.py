"""Automatic first-draft skin weights, from how close each vertex is to each bone."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

MAX_INFLUENCES = 4
"""Slots per vertex, as in ``weft.components.skin`` (the test of the kernels' copies ties the two)."""


@numba.njit(cache=True)
def segment_distance2(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> float:
    """Squared distance from (px, py) to the segment a-b (a point when a = b)."""
    dx = bx - ax
    dy = by - ay
    length2 = dx * dx + dy * dy
    t = 0.0
    if length2 > 0.0:
        t = min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / length2))
    ex = px - (ax + t * dx)
    ey = py - (ay + t * dy)
    return ex * ex + ey * ey


@numba.njit(cache=True)
def closest_bone_weights(
    vertices: npt.NDArray[np.float64],
    segments: npt.NDArray[np.float64],
    hidden: npt.NDArray[np.bool_],
    max_bones: int,
    smoothing: float,
    indices: npt.NDArray[np.int32],
    weights: npt.NDArray[np.float64],
) -> None:
    """The kernel of ``automatic_weights``: the ``max_bones`` closest bones and their falloff weights.

    Bones are visited in index order and a bone displaces a kept one only
    when strictly closer, so equal distances keep the lower index. A bone
    ``hidden`` from a vertex is passed over, unless every bone is.
    Shapes: ``vertices`` ``(v, 2)``; ``segments`` ``(b, 2, 2)``; ``hidden``
    ``(v, b)``; ``indices``, ``weights`` ``(v, 4)``.
    """
    best_d2 = np.empty(MAX_INFLUENCES)
    best_bone = np.empty(MAX_INFLUENCES, dtype=np.int64)
    s2 = max(smoothing * smoothing, 1e-12)  # a vertex on a bone with no smoothing: 1, not 0/0
    for v in range(vertices.shape[0]):
        kept = 0
        seen = False
        for bone in range(segments.shape[0]):
            seen = seen or not hidden[v, bone]
        for bone in range(segments.shape[0]):
            if seen and hidden[v, bone]:
                continue
            d2 = segment_distance2(
                vertices[v, 0],
                vertices[v, 1],
                segments[bone, 0, 0],
                segments[bone, 0, 1],
                segments[bone, 1, 0],
                segments[bone, 1, 1],
            )
            if kept == max_bones and d2 >= best_d2[kept - 1]:
                continue
            slot = min(kept, max_bones - 1)  # insertion sort into the short sorted list
            while slot > 0 and best_d2[slot - 1] > d2:
                best_d2[slot] = best_d2[slot - 1]
                best_bone[slot] = best_bone[slot - 1]
                slot -= 1
            best_d2[slot] = d2
            best_bone[slot] = bone
            kept = min(kept + 1, max_bones)
        # relative to the closest bone, so far-away meshes cannot underflow to 0/0
        nearest = best_d2[0] + s2
        total = 0.0
        for s in range(MAX_INFLUENCES):
            if s < kept:
                ratio = nearest / (best_d2[s] + s2)
                weights[v, s] = ratio * ratio
                indices[v, s] = best_bone[s]
                total += weights[v, s]
            else:
                weights[v, s] = 0.0
                indices[v, s] = 0
        for s in range(kept):
            weights[v, s] /= total


def automatic_weights(
    vertices: npt.NDArray[np.float64],
    bone_segments: npt.NDArray[np.float64],
    max_bones: int = 4,
    smoothing: float | None = None,
    hidden: npt.NDArray[np.bool_] | None = None,
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
    """First-draft weights: ``(indices (v, 4) int32, weights (v, 4) float64)``, each row summing to 1.

    Each vertex takes its ``max_bones`` closest bones (distance to the bone
    segment ``(b, 2, 2)``: head and tail, e.g. ``Bones.bind_segments``),
    weighted by a softened inverse fourth power of the distance,
    ``w = 1 / (d² + smoothing²)²``, then normalised. The fourth power makes
    the closest bone dominate (a bone twice as far gets about a sixteenth,
    where inverse-square would still give it a quarter, and the torso would
    tug at the hand); ``smoothing`` (px) sets how wide the blend around a
    joint is: a vertex on one bone, ``smoothing`` px from where the next
    begins, gives that one a fifth of its weight, and about 4% at twice the
    distance. The default is a quarter of the mean bone length. Deterministic;
    ties go to the lower bone index. A heat-diffusion method (Baran and
    Popović 2007) would respect the mesh's shape; ``hidden`` ``(v, b)`` is
    a cheaper step that way: bones a vertex cannot see through the shape
    (an arm, seen from the side of the torso) are left out for it.
    """
    vertices = np.ascontiguousarray(vertices, dtype=np.float64)
    segments = np.ascontiguousarray(bone_segments, dtype=np.float64)
    if segments.ndim != 3 or segments.shape[1:] != (2, 2) or len(segments) == 0:
        raise ValueError(f"bone segments must have shape (bones, 2, 2), got {segments.shape}")
    if not 1 <= max_bones <= MAX_INFLUENCES:
        raise ValueError(f"max_bones must be between 1 and {MAX_INFLUENCES}, got {max_bones}")
    if smoothing is None:
        lengths = np.hypot(*(segments[:, 1] - segments[:, 0]).T)
        smoothing = 0.25 * float(lengths.mean()) if lengths.mean() > 0.0 else 1.0
    if not (smoothing > 0.0 and math.isfinite(smoothing)):
        raise ValueError(f"smoothing must be a positive length in px, got {smoothing}")
    indices = np.zeros((len(vertices), MAX_INFLUENCES), dtype=np.int32)
    weights = np.zeros((len(vertices), MAX_INFLUENCES))
    if hidden is None:
        hidden = np.zeros((len(vertices), len(segments)), dtype=np.bool_)
    elif hidden.shape != (len(vertices), len(segments)):
        raise ValueError(f"hidden must have shape (vertices, bones), got {hidden.shape}")
    mask = np.ascontiguousarray(hidden, dtype=np.bool_)
    closest_bone_weights(vertices, segments, mask, max_bones, float(smoothing), indices, weights)
    return indices, weights
