"""The application: the Arcade window, input tools, tuning panel, level loading and the CLI.

The Python API for scripts and tests is ``Simulation``: load a level, step
it, read its arrays and metrics. Importing ``game`` does not import arcade;
only the window and the offscreen renderer do.
"""

from weft.game.level import LevelError
from weft.game.session import Session
from weft.game.simulation import Simulation

__all__ = ["LevelError", "Session", "Simulation"]
