"""Weft: tearable cloth, pressure soft bodies, thousands of circles, box stacks and skinned
skeletons for esper and Arcade games.

The public API::

    import weft

    sim = weft.Simulation.load("levels/cloth.toml")
    sim.step(120)

The package's parts are ``weft.components`` (plain data), ``weft.systems``
(the esper processors and their numba kernels), ``weft.game`` (the Arcade
window, the level format and the command line), ``weft.levels`` (the
shipped levels) and ``weft.bench`` (timings beside pymunk). Importing
``weft`` does not import arcade.
"""

from weft.game import LevelError, Session, Simulation

__version__ = "0.2.0"
"""The version (``pyproject.toml`` reads it from here)."""

DISTRIBUTION = "weft-physics"
"""The name Weft is installed under (``pip install weft-physics``); the import package is ``weft``."""

__all__ = ["DISTRIBUTION", "LevelError", "Session", "Simulation", "__version__"]
