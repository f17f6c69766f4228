"""The largest valid level (every budget of ``weft.budgets`` at its limit at once) validates and runs.

``docs/levels.md`` gives its measured frame time and memory; this test never asserts a time. It
builds the level ``tests/support/largest.py`` describes, in both shapes (the particles spent on the
sheet with the most threads, or on the most circles), checks that it is within every budget and
near each, and runs a few frames of one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.largest import write_largest

from weft import budgets
from weft.game.level import load_level
from weft.game.level.box_check import box_overlaps
from weft.game.level.frame_work import frame_work
from weft.game.simulation import Simulation


@pytest.mark.parametrize("shape", ["cloth", "circles"])
def test_the_largest_level_is_valid_and_uses_every_budget(shape: str, tmp_path: Path) -> None:
    level = load_level(write_largest(tmp_path, shape))
    work = frame_work(level.model)
    assert work.particle_passes <= budgets.PARTICLE_PASSES
    assert work.particle_passes > 0.98 * budgets.PARTICLE_PASSES
    assert work.box_passes > 0.9 * budgets.BOX_PASSES
    overlapping, _ = box_overlaps(level.model)
    assert 0.75 * budgets.BOX_OVERLAPS < overlapping <= budgets.BOX_OVERLAPS
    assert level.model.world.bounds == [0.0, 0.0, 8192.0, 8192.0]
    skins = sum((body.skin.grid[0] + 1) * (body.skin.grid[1] + 1) for body in level.model.skeleton)
    assert skins > 0.99 * budgets.SKIN_VERTICES
    if shape == "cloth":
        assert work.threads > 0.98 * min(budgets.CONSTRAINTS, budgets.THREAD_PASSES // work.passes)
    else:
        assert max(balls.count for balls in level.model.balls) == 50000


def test_the_largest_level_runs_without_a_nan(tmp_path: Path) -> None:
    sim = Simulation(load_level(write_largest(tmp_path, "cloth")))
    try:
        sim.step(3)
        counts = sim.metrics()["counts"]
        assert counts["particles"] > 0.98 * budgets.PARTICLES
        assert counts["rigid_bodies"] == budgets.BOXES
        assert np.isfinite(sim.stores.particles.pos[: counts["particles"]]).all()
    finally:
        sim.close()
