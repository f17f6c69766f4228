"""A sheet's fold shading (``kernels.fold_shade``): flat at rest, ``cos θ`` where its neighbours came
closer, flat beside a tear, and the numbers of the grid formula written with numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest

from weft.systems.kernels.fold_shade import fold_shades

ROWS, COLS, SPACING = 7, 9, 10.0
DARKEST = 0.45


def grid(spacing_x: float = SPACING, spacing_y: float = SPACING) -> np.ndarray:
    cols, rows = np.meshgrid(np.arange(COLS) * spacing_x, -np.arange(ROWS) * spacing_y)
    return np.stack([cols.ravel(), rows.ravel()], axis=1)


def shades(points: np.ndarray, across: np.ndarray, down: np.ndarray, strength: float) -> np.ndarray:
    out = np.empty(ROWS * COLS, np.float32)
    fold_shades(
        points, np.arange(ROWS * COLS).reshape(ROWS, COLS), SPACING, across, down, strength, DARKEST, out
    )
    return out.reshape(ROWS, COLS)


def whole() -> tuple[np.ndarray, np.ndarray]:
    return np.ones((ROWS, COLS - 1), bool), np.ones((ROWS - 1, COLS), bool)


def by_numpy(points, across_alive, down_alive, strength) -> np.ndarray:
    """The same shading as whole-grid numpy: the two ratios, capped, multiplied, floored, blended."""
    g = points.reshape(ROWS, COLS, 2)
    cos_across, cos_down = np.ones((ROWS, COLS)), np.ones((ROWS, COLS))
    gap = g[:, 2:] - g[:, :-2]
    ratio = np.sqrt(gap[..., 0] ** 2 + gap[..., 1] ** 2) / (2 * SPACING)
    cos_across[:, 1:-1] = np.where(across_alive[:, :-1] & across_alive[:, 1:], np.minimum(ratio, 1.0), 1.0)
    gap = g[2:] - g[:-2]
    ratio = np.sqrt(gap[..., 0] ** 2 + gap[..., 1] ** 2) / (2 * SPACING)
    cos_down[1:-1] = np.where(down_alive[:-1] & down_alive[1:], np.minimum(ratio, 1.0), 1.0)
    lit = np.maximum(cos_across * cos_down, DARKEST)
    return (1.0 + strength * (lit - 1.0)).astype(np.float32)


def test_a_sheet_at_rest_or_stretched_is_flat() -> None:
    assert (shades(grid(), *whole(), 1.0) == 1.0).all()
    assert (shades(grid(13.0, 11.0), *whole(), 1.0) == 1.0).all()  # stretched: capped at cos 0 = 1


@pytest.mark.parametrize("degrees", [20.0, 45.0, 60.0])
def test_a_fold_across_darkens_the_inner_points_by_its_cosine(degrees: float) -> None:
    cos = math.cos(math.radians(degrees))
    shade = shades(grid(spacing_x=SPACING * cos), *whole(), strength=0.5)
    assert shade[:, 1:-1] == pytest.approx(1.0 + 0.5 * (max(cos, DARKEST) - 1.0), abs=1e-6)
    assert (shade[:, [0, -1]] == 1.0).all()  # the border has one neighbour across: flat


def test_a_point_beside_a_torn_thread_is_flat_that_way() -> None:
    across, down = whole()
    across[3, 4] = False  # between points (3, 4) and (3, 5)
    shade = shades(grid(spacing_x=SPACING * 0.5), across, down, strength=1.0)
    assert shade[3, 4] == 1.0 and shade[3, 5] == 1.0
    assert shade[3, 3] == shade[3, 6] == np.float32(0.5)


@pytest.mark.parametrize("seed", range(5))
def test_a_crumpled_torn_sheet_shades_as_the_grid_formula_does(seed: int) -> None:
    rng = np.random.default_rng(seed)
    points = grid() + rng.normal(0.0, 6.0, (ROWS * COLS, 2))
    across, down = rng.random((ROWS, COLS - 1)) < 0.8, rng.random((ROWS - 1, COLS)) < 0.8
    strength = rng.uniform(0.0, 1.0)
    np.testing.assert_array_equal(
        shades(points, across, down, strength), by_numpy(points, across, down, strength)
    )


def test_points_stored_in_any_order_shade_as_they_do_row_by_row() -> None:
    # a sheet stores a row's even columns first (Sheet.grid): each point's shade goes where it is
    rng = np.random.default_rng(3)
    points = grid() + rng.normal(0.0, 6.0, (ROWS * COLS, 2))
    across, down = rng.random((ROWS, COLS - 1)) < 0.8, rng.random((ROWS - 1, COLS)) < 0.8
    stored = rng.permutation(ROWS * COLS).reshape(ROWS, COLS)
    moved = np.empty_like(points)
    moved[stored.ravel()] = points
    out = np.empty(ROWS * COLS, np.float32)
    fold_shades(moved, stored, SPACING, across, down, 0.7, DARKEST, out)
    np.testing.assert_array_equal(out[stored.ravel()].reshape(ROWS, COLS), shades(points, across, down, 0.7))
