"""Plain data: the stores (structure-of-arrays numpy buffers) and the small components that point into them.

Nothing here imports arcade, esper systems or the game: components describe, systems act.
"""

from weft.components.body import Body
from weft.components.circles import REFERENCE_RADIUS, BallSet, Broadphase
from weft.components.cloth import ClothLook, PinLayout, Sheet
from weft.components.distances import DistanceMode, DistanceSides, DistanceStore, ThreadKind
from weft.components.particles import ParticleKind, ParticleStore
from weft.components.pins import PinStore
from weft.components.rigid import CORRECTIONS, BoxGrid, BoxSet, ContactStore, RigidSettings, RigidStore
from weft.components.skinned import DEFAULT_SKINNING, Clip, Ragdoll, SkinLook, Skinned, Skinning
from weft.components.softbody import CreatureLook, Legs, SoftBody
from weft.components.tools import Blasts, CutStroke, ForceField, Grab, Pour, Press, Shake
from weft.components.world import FRAME_DT, Clock, Stores, Wind, WorldSettings

__all__ = [
    "CORRECTIONS",
    "DEFAULT_SKINNING",
    "FRAME_DT",
    "REFERENCE_RADIUS",
    "BallSet",
    "Blasts",
    "Body",
    "BoxGrid",
    "BoxSet",
    "Broadphase",
    "Clip",
    "Clock",
    "ClothLook",
    "ContactStore",
    "CreatureLook",
    "CutStroke",
    "DistanceMode",
    "DistanceSides",
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
    "Sheet",
    "SkinLook",
    "Skinned",
    "Skinning",
    "SoftBody",
    "Stores",
    "ThreadKind",
    "Wind",
    "WorldSettings",
]
