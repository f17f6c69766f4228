"""Plain data: the stores (structure-of-arrays numpy buffers) and the small components that point into them.

Nothing here imports arcade, esper systems or the game: components describe, systems act.
"""

from components.circles import REFERENCE_RADIUS, Balls, Broadphase
from components.cloth import Cloth, ClothLook, PinLayout
from components.distances import DistanceMode, DistanceStore, ThreadKind
from components.particles import ParticleKind, ParticleStore
from components.pins import PinStore
from components.rigid import CORRECTIONS, Boxes, BoxGrid, ContactStore, RigidSettings, RigidStore
from components.skinned import Clip, Ragdoll, SkinLook, Skinned
from components.softbody import CreatureLook, Legs, SoftBody
from components.tools import Blasts, CutStroke, ForceField, Grab, Pour, Press, Shake
from components.world import FRAME_DT, Clock, Stores, Wind, WorldSettings

__all__ = [
    "CORRECTIONS",
    "FRAME_DT",
    "REFERENCE_RADIUS",
    "Balls",
    "Blasts",
    "BoxGrid",
    "Boxes",
    "Broadphase",
    "Clip",
    "Clock",
    "Cloth",
    "ClothLook",
    "ContactStore",
    "CreatureLook",
    "CutStroke",
    "DistanceMode",
    "DistanceStore",
    "ForceField",
    "Grab",
    "Legs",
    "ParticleKind",
    "ParticleStore",
    "PinLayout",
    "PinStore",
    "Pour",
    "Press",
    "Ragdoll",
    "RigidSettings",
    "RigidStore",
    "Shake",
    "SkinLook",
    "Skinned",
    "SoftBody",
    "Stores",
    "ThreadKind",
    "Wind",
    "WorldSettings",
]
