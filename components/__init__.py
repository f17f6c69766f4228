"""Plain data: the stores (structure-of-arrays numpy buffers) and the small components that point into them.

Nothing here imports arcade, esper systems or the game: components describe, systems act.
"""

from components.cloth import Cloth, ClothLook, PinLayout
from components.distances import DistanceMode, DistanceStore, ThreadKind
from components.particles import ParticleStore
from components.pins import PinStore
from components.tools import CutStroke, Grab
from components.world import FRAME_DT, Clock, Stores, Wind, WorldSettings

__all__ = [
    "FRAME_DT",
    "Clock",
    "Cloth",
    "ClothLook",
    "CutStroke",
    "DistanceMode",
    "DistanceStore",
    "Grab",
    "ParticleStore",
    "PinLayout",
    "PinStore",
    "Stores",
    "ThreadKind",
    "Wind",
    "WorldSettings",
]
