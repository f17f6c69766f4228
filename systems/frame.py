"""One frame of Weft, stage by stage, every built-in system in the order it runs: the page to read a
frame top to bottom (as Box2D's ``b2SolverStage`` list or Avian's chained system sets).

A frame is 1/60 s. ``Schedule.step_frame`` runs it; a drawing frame runs DRAW from ``on_draw``::

    FRAME_START        grab, cut, blasts, pour
    repeat substeps (dt = 1/60 s / substeps):
      SUBSTEP          shake, integrate, pins, fields, boxes, broadphase, sweep
      repeat iterations:
        ITERATION      distances, pressure, bounds, circle_contacts, box_particles, bone_circles,
                       joint_limits
      SUBSTEP_END      perimeter, legs, contain, tear
    FRAME_END          upright, skin, metrics, contact_events
    from on_draw only (weft.draw.Renderer), never from the step:
    DRAW               cloth_mesh, circles, box_sprites, skin_mesh, creatures, thread_debug, pin_markers

(``frame_picture()`` draws that from ``FRAME``; a test holds this docstring, docs/architecture.md
and docs/extending.md to it.) ``FRAME`` is the one place a built-in system's stage and place are
written: the systems themselves name only what they do. A custom system declares its ``stage`` and
its place among these by name (``after``/``before``); see docs/extending.md.
"""

from __future__ import annotations

import textwrap

from weft.systems.balls import PourSystem
from weft.systems.bone_circles import BoneCircleSystem
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
from weft.systems.schedule import Schedule, Stage, System
from weft.systems.shake import ShakeSystem
from weft.systems.skeletons import JointLimitSystem, SkinSystem
from weft.systems.softbody import LegsSystem, PerimeterSystem, PressureSystem, UprightSystem
from weft.systems.sweep import SweepSystem
from weft.systems.tear import TearSystem

FRAME: dict[Stage, tuple[type[System] | str, ...]] = {
    Stage.FRAME_START: (
        # the tools first: their edits are what the rest of the frame simulates
        GrabSystem,  # a held point becomes a pin, a held box a spring, led by the cursor
        CutSystem,  # the blade's segments kill the threads they cross
        BlastSystem,
        PourSystem,  # last: a first pour makes the particles that decide which systems run
    ),
    Stage.SUBSTEP: (
        ShakeSystem,  # the walls move before anything meets them
        IntegrateSystem,  # Verlet: x' = x + (x - prev)·damping + a·dt²
        PinSystem,  # after the move: pinned points (inverse mass 0) are placed once a substep
        FieldSystem,  # attract and repel push what integration just moved
        BoxStepSystem,  # the rigid step, all its own substeps in one call, before particles meet boxes
        BroadphaseSystem,  # the grid and the pair list, once everything has moved
        SweepSystem,  # a fast circle stops at its first touch, with the grid just built
    ),
    Stage.ITERATION: (
        DistanceSystem,  # threads: Gauss-Seidel in index order, XPBD when compliant
        PressureSystem,  # soft bodies' rings: edges and pressure averaged, then the finger
        BoundsSystem,  # walls before contacts: the floor's push climbs a pile within one pass
        CircleContactSystem,  # pairs bottom row first, with Coulomb friction
        BoxParticleSystem,  # particles pushed out of boxes, the boxes pushed back
        BoneCircleSystem,  # the ragdolls' bones off the circles they cross (last iteration)
        JointLimitSystem,  # last, swept until every joint holds: the contacts cannot bend one back out
    ),
    Stage.SUBSTEP_END: (
        PerimeterSystem,  # the skin's exact projection onto its rest perimeter, after the contacts
        LegsSystem,  # knees and feet placed from the settled ring; a foot stands on the floor
        ContainSystem,  # the walls once more: every particle ends the substep inside them
        TearSystem,  # last: a thread breaks on the stretch the substep ended with
    ),
    Stage.FRAME_END: (
        UprightSystem,  # a creature turns a little towards upright, once a frame
        SkinSystem,  # bones posed from the frame's particles (or clip), then the meshes skinned
        MetricsSystem,  # what moved and overlapped, once the frame's motion is done
        ContactEventSystem,  # events last: a handler sees the finished frame
    ),
    Stage.DRAW: (
        # drawing systems import arcade, so they are named here and made by weft.draw.Renderer
        "cloth_mesh",
        "circles",
        "box_sprites",
        "skin_mesh",
        "creatures",  # over the skins and boxes they stand in
        "thread_debug",  # the debug view over the bodies
        "pin_markers",  # pin heads on top of everything
    ),
}
"""The built-in systems of each stage, in run order (classes; drawing systems by name)."""

FRAME_NAMES: dict[Stage, tuple[str, ...]] = {
    stage: tuple(entry if isinstance(entry, str) else entry.name for entry in row)
    for stage, row in FRAME.items()
}
"""``FRAME`` by name: the order a ``Schedule`` keeps its built-in systems in."""

RUNS: dict[Stage, str] = {
    Stage.FRAME_START: "once a frame, before the substeps",
    Stage.SUBSTEP: "once per substep",
    Stage.ITERATION: "`iterations` times per substep",
    Stage.SUBSTEP_END: "once per substep, after the iterations",
    Stage.FRAME_END: "once a frame, after the substeps",
    Stage.DRAW: "from `on_draw` only (`weft.draw.Renderer`), never from the step",
}
"""How often each stage runs (``Schedule.step_frame`` nests the loops)."""


def builtin_systems() -> list[System]:
    """Fresh instances of every built-in physics system, stage by stage in run order (no drawing)."""
    return [entry() for row in FRAME.values() for entry in row if not isinstance(entry, str)]


def default_schedule() -> Schedule:
    """A schedule of the built-in physics systems, which places the drawing systems when they come."""
    return Schedule(builtin_systems(), FRAME_NAMES)


NAME_COLUMN = 19
"""Where the picture's lists of systems start."""

PICTURE_WIDTH = 100


def frame_picture() -> str:
    """``FRAME`` drawn as the loops ``Schedule.step_frame`` runs, one stage a line."""
    layout = {  # each stage's indent, and the loop it opens
        Stage.FRAME_START: (0, ""),
        Stage.SUBSTEP: (1, "repeat substeps (dt = 1/60 s / substeps):"),
        Stage.ITERATION: (2, "  repeat iterations:"),
        Stage.SUBSTEP_END: (1, ""),
        Stage.FRAME_END: (0, ""),
        Stage.DRAW: (0, "from on_draw only (weft.draw.Renderer), never from the step:"),
    }
    lines = []
    for stage, names in FRAME_NAMES.items():
        indent, opens = layout[stage]
        if opens:
            lines.append(opens)
        wrapped = textwrap.wrap(", ".join(names), PICTURE_WIDTH - NAME_COLUMN, break_on_hyphens=False)
        lines.append(("  " * indent + stage.name).ljust(NAME_COLUMN) + wrapped[0])
        lines += [" " * NAME_COLUMN + more for more in wrapped[1:]]
    return "\n".join(lines)


def stage_table() -> str:
    """``FRAME`` as a markdown table: each stage, how often it runs and its built-in systems."""
    rows = ["| stage | runs | built-ins there, in order |", "|---|---|---|"]
    for stage, names in FRAME_NAMES.items():
        rows.append(f"| `{stage.name}` | {RUNS[stage]} | {', '.join(names)} |")
    return "\n".join(rows)
