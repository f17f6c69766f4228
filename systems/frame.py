"""The built-in systems in their schedule order."""

from __future__ import annotations

from weft.systems.balls import PourSystem
from weft.systems.bounds import BoundsSystem, ContainSystem
from weft.systems.box_particles import BoxParticleSystem
from weft.systems.boxes import BoxStepSystem
from weft.systems.broadphase import BroadphaseSystem
from weft.systems.circle_contacts import CircleContactSystem
from weft.systems.contacts import ContactEventSystem
from weft.systems.cut import CutSystem
from weft.systems.distances import DistanceSystem
from weft.systems.force_fields import BlastSystem, FieldSystem
from weft.systems.grab import GrabSystem
from weft.systems.integrate import IntegrateSystem
from weft.systems.metrics import MetricsSystem
from weft.systems.pins import PinSystem
from weft.systems.schedule import Schedule, System
from weft.systems.shake import ShakeSystem
from weft.systems.skeletons import JointLimitSystem, SkinSystem
from weft.systems.softbody import LegsSystem, PerimeterSystem, PressureSystem, UprightSystem
from weft.systems.sweep import SweepSystem
from weft.systems.tear import TearSystem


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
        CircleContactSystem(),
        BoxParticleSystem(),
        JointLimitSystem(),
        PerimeterSystem(),
        ContainSystem(),
        TearSystem(),
        UprightSystem(),
        LegsSystem(),
        SkinSystem(),
        MetricsSystem(),
        ContactEventSystem(),
    ]


def default_schedule() -> Schedule:
    """A schedule of the built-in physics systems (no drawing)."""
    return Schedule(builtin_systems())
