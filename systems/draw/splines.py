"""Uniform Catmull-Rom splines as fixed matrices: sampling a curve through moving points is one product.

A Catmull-Rom curve is linear in its control points, so for a given number
of points and samples per span the map from points to samples (and to
slopes) is a constant matrix, built once and cached.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def catmull_rom_weights(t: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Weights ``(len(t), 4)`` of a uniform Catmull-Rom span's four control points, for its point and slope.

    ``p(t) = ½ [2P₁ + (P₂ − P₀) t + (2P₀ − 5P₁ + 4P₂ − P₃) t² + (3P₁ − P₀ − 3P₂ + P₃) t³]`` runs
    from ``P₁`` (t = 0) to ``P₂`` (t = 1); the slope is its derivative in ``t``.
    """
    t2, t3 = t * t, t * t * t
    point = 0.5 * np.stack([-t + 2 * t2 - t3, 2 - 5 * t2 + 3 * t3, t + 4 * t2 - 3 * t3, t3 - t2], axis=1)
    slope = 0.5 * np.stack(
        [-1 + 4 * t - 3 * t2, -10 * t + 9 * t2, 1 + 8 * t - 9 * t2, 3 * t2 - 2 * t], axis=1
    )
    return point, slope


@cache
def closed_spline_matrices(points: int, samples: int) -> tuple[FloatArray, FloatArray]:
    """Matrices ``(points · samples, points)`` from a ring's points to its closed spline's samples and slopes.

    Sample ``s`` of span ``k`` (from point k to k + 1) weighs points
    ``k − 1, k, k + 1, k + 2`` (round the ring) by ``catmull_rom_weights``.
    """
    point_w, slope_w = catmull_rom_weights(np.arange(samples) / samples)
    rows = np.arange(points * samples)
    span = rows // samples
    curve = np.zeros((points * samples, points))
    slope = np.zeros((points * samples, points))
    for j, shift in enumerate((-1, 0, 1, 2)):
        columns = (span + shift) % points
        np.add.at(curve, (rows, columns), np.tile(point_w[:, j], points))
        np.add.at(slope, (rows, columns), np.tile(slope_w[:, j], points))
    return curve, slope


def closed_spline(points: FloatArray, samples: int) -> tuple[FloatArray, FloatArray]:
    """Closed Catmull-Rom curves through rings of points: ``(curve, normal)``, each ``(B, n · samples, 2)``.

    ``points`` is ``(B, n, 2)``: B rings of n points, counter-clockwise, so
    the unit normal ``(slope.y, −slope.x) / |slope|`` points out of each ring
    (it is turned round for a ring found clockwise).
    """
    to_curve, to_slope = closed_spline_matrices(points.shape[1], samples)
    curve = to_curve @ points
    slope = to_slope @ points
    length = np.maximum(np.hypot(slope[..., 0], slope[..., 1]), 1e-9)
    # a ring turned inside out by a violent squash runs clockwise for a moment: its outside is the other side
    x, y = points[..., 0], points[..., 1]
    twice_area = np.sum(x * np.roll(y, -1, axis=1) - np.roll(x, -1, axis=1) * y, axis=1)
    length *= np.where(twice_area < 0.0, -1.0, 1.0)[:, None]
    normal = np.stack([slope[..., 1] / length, -slope[..., 0] / length], axis=-1)
    return curve, normal


@cache
def open_spline_matrix(points: int, samples: int) -> FloatArray:
    """Matrix ``((points − 1) · samples + 1, points)`` from a polyline to its open spline's samples.

    The missing outer control points are mirrored (``2 P₀ − P₁`` and
    ``2 Pₙ − Pₙ₋₁``), so the curve leaves its first point heading straight
    for the second and arrives at the last from the one before.
    """
    # the padded control polygon as a linear map of the points
    pad = np.zeros((points + 2, points))
    pad[1:-1] = np.eye(points)
    pad[0, :2] = (2.0, -1.0)
    pad[-1, -2:] = (-1.0, 2.0)
    point_w, _ = catmull_rom_weights(np.arange(samples) / samples)
    spans = points - 1
    sample = np.zeros((spans * samples + 1, points + 2))
    for k in range(spans):
        sample[k * samples : (k + 1) * samples, k : k + 4] = point_w
    sample[-1, points] = 1.0  # the last point itself (t = 1 of the last span)
    return sample @ pad
