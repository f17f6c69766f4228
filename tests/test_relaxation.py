"""Relaxation: iterations are stiffness, and a hanging chain finds the catenary."""

from __future__ import annotations

import math

import numpy as np
from support.worlds import sheet

from weft.systems.pins import pin


def test_hanging_sheet_at_40_iterations_stretches_under_one_percent() -> None:
    # The whole top row pinned: with pins every few points the top row itself
    # must stretch to sag between them, which no iteration count removes.
    stiff = sheet(cols=40, rows=20, iterations=40)
    stiff.step(400)
    assert stiff.metrics()["max_stretch"] < 0.01


def test_two_iterations_stretch_a_hanging_sheet_visibly_more() -> None:
    stiff = sheet(cols=40, rows=20, iterations=40)
    rubbery = sheet(cols=40, rows=20, iterations=2)
    stiff.step(400)
    rubbery.step(400)
    assert rubbery.metrics()["max_stretch"] > 10 * stiff.metrics()["max_stretch"]
    # and it sags: its lowest point hangs well below the stiff sheet's
    assert (
        rubbery.positions("sheet")[:, 1].min() < stiff.positions("sheet")[:, 1].min() - 15
    )  # measured 22 px


def catenary_parameter(length: float, span: float) -> float:
    """Solve ``length = 2 a sinh(span / 2a)`` for ``a`` by bisection (the left side falls with a)."""
    low, high = 1e-3, 1e7
    for _ in range(200):
        a = math.sqrt(low * high)
        if 2 * a * math.sinh(span / (2 * a)) > length:
            low = a
        else:
            high = a
    return a


def test_chain_pinned_at_both_ends_settles_onto_the_catenary() -> None:
    points, spacing, span = 41, 10.0, 300.0
    chain = sheet(
        cols=points,
        rows=1,
        spacing=spacing,
        iterations=40,
        pins='{ layout = "none" }',
        cloth="tearable = false",
    )
    entity, rope = chain.body("sheet")
    left, height = 490.0, 600.0
    pin(chain.stores, rope.particles[rope.grid[0, 0]], (left, height), entity)
    pin(chain.stores, rope.particles[rope.grid[0, -1]], (left + span, height), entity)
    chain.step(900)

    a = catenary_parameter((points - 1) * spacing, span)
    middle = left + span / 2
    c = height - a * math.cosh(span / (2 * a))
    pos = chain.positions("sheet")
    error = np.abs(pos[:, 1] - (a * np.cosh((pos[:, 0] - middle) / a) + c))
    # 1% of the span: the discrete chain of 40 links differs from the continuous
    # curve by far less, and so does the 0.6% residual stretch at 40 iterations.
    assert error.max() < 0.01 * span
    assert chain.metrics()["settled_frame"] is not None
