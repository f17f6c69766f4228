"""The sweep of fast circles spends at most ``SWEEP_TESTS`` pair tests a frame; past that, the fast
circles (in index order) are held to one radius along their step, the same way every run."""

from __future__ import annotations

import numpy as np
import pytest

from weft.components import Broadphase, ParticleKind, ParticleStore
from weft.game.level import load_level
from weft.game.simulation import Simulation
from weft.systems import broadphase
from weft.systems.kernels.sweep import sweep_fast_circles

BOUNDS = (0.0, 0.0, 2000.0, 2000.0)


def rain(n: int, seed: int) -> ParticleStore:
    """``n`` circles of 2 px in a crowd, each moving up to 12 px a step (six times its radius) its own way."""
    rng = np.random.default_rng(seed)
    particles = ParticleStore()
    pos = rng.uniform(800.0, 1200.0, size=(n, 2))
    velocity = rng.uniform(-12.0, 12.0, size=(n, 2))
    particles.add(pos, 1.0, 2.0, 1, kind=ParticleKind.CIRCLE, velocity=velocity)
    return particles


def sweep(particles: ParticleStore, budget: int) -> tuple[int, int, np.ndarray, np.ndarray]:
    """One sweep of ``particles`` (copied) within ``budget`` tests: (stopped, tests, pos, prev)."""
    n = particles.count
    grid = Broadphase()
    broadphase.bin_grid(grid, particles, BOUNDS)
    pos, prev = particles.pos[:n].copy(), particles.prev[:n].copy()
    stopped, tests = sweep_fast_circles(
        pos, prev, particles.inv_mass[:n], particles.radius[:n], particles.kind[:n], grid.cell_of[:n],
        grid.left, grid.bottom, grid.cell, grid.cols, grid.rows, grid.cell_start, grid.order,
        grid.cell_key[: grid.occupied], grid.block_start, particles.max_radius, budget,
    )  # fmt: skip
    return stopped, tests, pos, prev


def test_the_sweep_stops_at_its_budget_and_holds_the_circles_past_it_to_their_radius() -> None:
    particles = rain(3000, 1)
    start, before = particles.pos[:3000].copy(), particles.prev[:3000].copy()
    stopped_all, tests_all, pos_all, _ = sweep(particles, 10**12)
    assert stopped_all > 100 and tests_all > 10_000
    budget = tests_all // 3
    stopped, tests, pos, prev = sweep(particles, budget)
    assert tests <= budget and 0 < stopped < stopped_all
    # the sweep ended part way through the index order: the last third, many of which it would have
    # stopped, moved one radius along their step instead, none further
    assert ((pos_all[2000:] != start[2000:]).any(axis=1)).sum() > 100
    step = start - before
    length = np.hypot(step[:, 0], step[:, 1])
    held = pos[2000:] - prev[2000:]
    # (a circle an earlier one met was slowed through its start, and may be fast no more)
    fast = (length[2000:] > 2.0) & (prev[2000:] == before[2000:]).all(axis=1)
    assert fast.sum() > 500
    assert np.allclose(np.hypot(held[fast, 0], held[fast, 1]), 2.0)
    assert np.allclose(held[fast], step[2000:][fast] * (2.0 / length[2000:][fast, None]))
    again = sweep(particles, budget)
    assert again[:2] == (stopped, tests)
    assert np.array_equal(again[2], pos) and np.array_equal(again[3], prev)


def test_a_budget_of_nothing_tests_nothing_and_holds_every_fast_circle() -> None:
    particles = rain(500, 2)
    stopped, tests, pos, prev = sweep(particles, 0)
    assert (stopped, tests) == (0, 0)
    moved = np.hypot(*(pos - prev).T)
    assert moved.max() <= 2.0 + 1e-9 and np.array_equal(prev, particles.prev[:500])


@pytest.mark.parametrize("budget", [2000, 30000])
def test_a_frame_spends_at_most_the_budget_over_its_substeps(
    budget: int, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import weft.systems.sweep

    monkeypatch.setattr(weft.systems.sweep, "SWEEP_TESTS", budget)
    level = tmp_path / "rain.toml"
    level.write_text(
        "[world]\nsubsteps = 3\ngravity = [0.0, -20000.0]\n"
        "[[balls]]\ncount = 1500\nradius = [1.0, 1.0]\nregion = [300.0, 300.0, 900.0, 600.0]\n"
    )
    sim = Simulation(load_level(level))
    try:
        system = sim.physics.schedule.get("sweep")
        spent = []
        for _ in range(20):
            sim.step(1)
            spent.append(system.tests)
        assert max(spent) <= budget
        assert max(spent) > 0.5 * budget  # the falling crowd wants more than it is given
    finally:
        sim.close()
