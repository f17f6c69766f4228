"""Energy never appears from nowhere; compliance makes softness independent of iterations."""

from __future__ import annotations

import numpy as np
import pytest
from support.worlds import sheet, velocities

from weft.components import FRAME_DT


def kinetic_energy(sim) -> float:
    p = sim.stores.particles
    v = velocities(sim) / (FRAME_DT / sim.settings.resolved_substeps())
    return float(0.5 * ((v**2).sum(axis=1) / p.inv_mass[: p.count]).sum())


@pytest.mark.parametrize("iterations", [2, 10, 40])
def test_kinetic_energy_of_a_spinning_sheet_never_grows(iterations: int) -> None:
    # No gravity, wind or pins: nothing feeds energy in. The sheet spins and
    # drifts as a rigid body, so only damping and the solver can change its energy.
    sim = sheet(
        iterations=iterations,
        pins='{ layout = "none" }',
        world="gravity = [0, 0]\nbounds = [-4000, -4000, 4000, 4000]",
    )
    p = sim.stores.particles
    n = p.count
    offset = p.pos[:n] - p.pos[:n].mean(axis=0)
    velocity = 2.0 * np.column_stack([-offset[:, 1], offset[:, 0]]) + (40.0, 10.0)
    p.prev[:n] = p.pos[:n] - velocity * FRAME_DT
    energy = [kinetic_energy(sim)]
    for _ in range(300):
        sim.step()
        energy.append(kinetic_energy(sim))
    energy = np.array(energy)
    assert (np.diff(energy) <= 0).all()
    # damping 0.99 a frame on velocity is 0.99² on energy: the floor of the loss
    assert energy[-1] <= energy[0] * 0.99 ** (2 * 300) * 1.0001


def sag(iterations: int, compliance: float) -> float:
    """How far below its pins a 30 × 20 sheet hangs after 10 s."""
    sim = sheet(cols=30, rows=20, iterations=iterations, cloth=f"compliance = {compliance}")
    sim.step(600)
    return 650.0 - float(sim.positions("sheet")[:, 1].min())


def test_compliant_sheet_sags_the_same_at_10_and_40_iterations() -> None:
    rigid_gap = abs(sag(10, 0.0) - sag(40, 0.0))
    soft_gap = abs(sag(10, 3e-4) - sag(40, 3e-4))
    assert soft_gap < rigid_gap / 10  # measured: 0.02 px against 3.5 px
    assert sag(40, 3e-4) > sag(40, 0.0) + 20  # and the compliant sheet is visibly softer


def test_compliance_can_change_while_running() -> None:
    sim = sheet()
    assert not sim.set("cloth.0.compliance", 1e-4)
    d = sim.stores.distances
    assert (d.compliance[: d.count] == 1e-4).all()
