"""The built-in systems in their schedule order."""

from __future__ import annotations

from systems.bounds import BoundsSystem
from systems.cut import CutSystem
from systems.grab import GrabSystem
from systems.integrate import IntegrateSystem
from systems.metrics import MetricsSystem
from systems.pins import PinSystem
from systems.relax import DistanceSystem
from systems.schedule import Schedule, System
from systems.tear import TearSystem


def builtin_systems() -> list[System]:
    """Fresh instances of every built-in physics system, in run order within each stage."""
    return [
        GrabSystem(),
        CutSystem(),
        IntegrateSystem(),
        PinSystem(),
        DistanceSystem(),
        BoundsSystem(),
        TearSystem(),
        MetricsSystem(),
    ]


def default_schedule() -> Schedule:
    """A schedule of the built-in physics systems (no drawing)."""
    return Schedule(builtin_systems())
