"""The built-in systems in their schedule order."""

from __future__ import annotations

from systems.balls import PourSystem
from systems.bounds import BoundsSystem, ContainSystem
from systems.boxes import BoxParticleSystem, BoxStepSystem
from systems.broadphase import BroadphaseSystem
from systems.collide import CollisionSystem
from systems.cut import CutSystem
from systems.fields import BlastSystem, FieldSystem
from systems.grab import GrabSystem
from systems.integrate import IntegrateSystem
from systems.metrics import MetricsSystem
from systems.pins import PinSystem
from systems.relax import DistanceSystem
from systems.schedule import Schedule, System
from systems.shake import ShakeSystem
from systems.skeletons import JointLimitSystem, SkinSystem
from systems.softbody import LegsSystem, PerimeterSystem, PressureSystem, UprightSystem
from systems.sweep import SweepSystem
from systems.tear import TearSystem


def builtin_systems() -> list[System]:
    """Fresh instances of every built-in physics system, in run order within each stage."""
    return [
        GrabSystem(),
        CutSystem(),
        BlastSystem(),
        PourSystem(),
        ShakeSystem(),
        IntegrateSystem(),
        PinSystem(),
        FieldSystem(),
        BoxStepSystem(),
        BroadphaseSystem(),
        SweepSystem(),
        DistanceSystem(),
        PressureSystem(),
        BoundsSystem(),
        CollisionSystem(),
        BoxParticleSystem(),
        JointLimitSystem(),
        PerimeterSystem(),
        ContainSystem(),
        TearSystem(),
        UprightSystem(),
        LegsSystem(),
        SkinSystem(),
        MetricsSystem(),
    ]


def default_schedule() -> Schedule:
    """A schedule of the built-in physics systems (no drawing)."""
    return Schedule(builtin_systems())
