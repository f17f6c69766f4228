"""Weft: tearable cloth, pressure soft bodies, thousands of circles, box stacks and skinned
skeletons for esper and Arcade games.

In a game of your own (see docs/plugin.md)::

    import esper, weft
    from weft.draw import Renderer, follow

    physics = weft.Physics()                     # in the current esper world: one entity, one processor
    crate = physics.add(weft.Boxes(layout="list", positions=[[400, 300]], size=[40, 40]))
    esper.process(1 / 60)                        # your loop steps Weft's fixed frames
    x, y, angle = physics.pose(crate)

Headless, a level file on its own: ``weft.Simulation.load("levels/cloth.toml").step(120)``.

The package's parts are ``weft.components`` (plain data), ``weft.systems``
(the esper processors and their numba kernels), ``weft.game`` (the Arcade
window, the level format and the command line), ``weft.draw`` (drawing in
your game), ``weft.levels`` (the shipped levels) and ``weft.bench`` (timings
beside pymunk). Importing ``weft`` does not import arcade.
"""

import os
import sys

# Before numba is first imported (where Weft imports it first): numba formats a message for every
# overload it tries and rejects while it types a kernel, and where colorama is installed it wraps
# and unwraps the terminal's streams for each (bold text), 97 000 times in a cold rag doll's
# compile: 1.0-1.4 s of its 31 s in one process, 0.2-0.7 s of a cold ``run`` on two (2026-12-07).
if "numba" not in sys.modules:
    os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

from weft.components import Body
from weft.game import LevelError, Session, Simulation
from weft.game.level.schema import Balls, Boxes, Cloth, Creature, Skeleton, World
from weft.game.physics import Physics, RayHit
from weft.systems.contacts import CONTACT_BEGIN, CONTACT_END, TORN
from weft.systems.registry import SystemParams, register
from weft.systems.schedule import Stage, Step, System, SystemFailed

__version__ = "0.2.0"
"""The version (``pyproject.toml`` reads it from here)."""

DISTRIBUTION = "weft-physics"
"""The name Weft is installed under (``pip install weft-physics``); the import package is ``weft``."""

__all__ = [
    "CONTACT_BEGIN",
    "CONTACT_END",
    "DISTRIBUTION",
    "TORN",
    "Balls",
    "Body",
    "Boxes",
    "Cloth",
    "Creature",
    "LevelError",
    "Physics",
    "RayHit",
    "Session",
    "Simulation",
    "Skeleton",
    "Stage",
    "Step",
    "System",
    "SystemFailed",
    "SystemParams",
    "World",
    "__version__",
    "register",
]
