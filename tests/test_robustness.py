"""No value a level, a --set or a panel slider can give makes the simulation produce NaN or infinity."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.worlds import INLINE

from weft.game.level.load import validate
from weft.game.session import Session
from weft.game.simulation import Simulation

# The extremes of every range the schema allows (game/level/schema.py), and values in between.
worlds = st.fixed_dictionaries(
    {
        "gravity": st.tuples(st.sampled_from([-20000.0, 0.0, 20000.0]), st.floats(-20000, 20000)).map(list),
        "damping": st.sampled_from([1e-9, 0.5, 0.99, 1.0]),
        "iterations": st.sampled_from([1, 2, 40, 200]),
        "substeps": st.sampled_from(["auto", 1, 16]),
        "floor_friction": st.sampled_from([0.0, 1.0]),
        "wind": st.fixed_dictionaries(
            {
                "enabled": st.booleans(),
                "strength": st.sampled_from([0.0, 5000.0]),
                "direction_deg": st.floats(-360, 360),
                "gust": st.floats(0, 1),
            }
        ),
    }
)
cloths = st.fixed_dictionaries(
    {
        "spacing": st.sampled_from([2.0, 13.0, 200.0]),
        "mass": st.sampled_from([0.001, 1.0, 1000.0]),
        "compliance": st.sampled_from([0.0, 1e-9, 1e-4, 1.0]),
        "tear_ratio": st.sampled_from([1.05, 2.6, 100.0]),
        "tearable": st.booleans(),
        "thickness": st.sampled_from([0.0, 50.0]),
        "shear": st.booleans(),
        "bend": st.booleans(),
    }
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(worlds, cloths)
def test_no_allowed_parameter_makes_positions_nan_or_infinite(world: dict, cloth: dict) -> None:
    level = {
        # room for the widest sheet (8 columns 200 px apart) inside the walls
        "world": {**world, "bounds": [0, 0, 3000, 2000]},
        "cloth": [
            {
                "name": "sheet",
                "origin": [300, 1900],
                "cols": 8,
                "rows": 6,
                **cloth,
                "pins": {"layout": "every", "every": 3},
            }
        ],
    }
    session = Session(Simulation(validate(level, INLINE)))
    # and a grab flung across the whole level and far beyond it
    session.queue({"type": "mouse_press", "x": 300.0, "y": 1900.0, "button": "left"})
    for k in range(1, 13):
        x, y = 300.0 + 400.0 * k, 1900.0 - 300.0 * k
        session.queue({"type": "mouse_drag", "x": x, "y": y, "dx": 400.0, "dy": -300.0, "buttons": ["left"]})
        session.advance()
    session.queue({"type": "mouse_release", "x": 99999.0, "y": -99999.0, "button": "left"})
    session.run(12)
    particles = session.sim.stores.particles
    assert np.isfinite(particles.pos[: particles.count]).all()
    assert np.isfinite(particles.prev[: particles.count]).all()
    assert np.isfinite(session.sim.metrics()["max_stretch"])
    session.sim.close()
