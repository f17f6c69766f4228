"""The explicit, ordered step: which system runs when, readable top to bottom.

One frame of 1/60 s::

    FRAME_START                      input applied: grabs, cuts, blasts, pouring
    repeat substeps:
        SUBSTEP                      shake, integrate, pins, fields, broadphase, sweep
        repeat iterations:
            ITERATION                distance constraints, walls, contacts (those not idle)
        SUBSTEP_END                  contain, tear
    FRAME_END                        metrics
    DRAW (from on_draw only)         meshes, debug overlays

esper's single priority list cannot express the two inner loops, so the
schedule calls its processors itself; esper still owns the entities.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import ClassVar

import esper

from weft.components import FRAME_DT
from weft.systems import finite, world


class Stage(Enum):
    """When in the frame a system runs."""

    FRAME_START = "frame_start"
    SUBSTEP = "substep"
    ITERATION = "iteration"
    SUBSTEP_END = "substep_end"
    FRAME_END = "frame_end"
    DRAW = "draw"


@dataclass
class Step:
    """Where the schedule is in the frame; passed to every ``System.process``.

    ``dt`` is the substep length in seconds; ``time`` the simulation time at
    the start of the current substep.
    """

    frame: int = 0
    substep: int = 0
    substeps: int = 1
    iteration: int = 0
    iterations: int = 1
    dt: float = FRAME_DT
    time: float = 0.0


class System(esper.Processor):
    """A system: one job over whole arrays, run at its ``stage``.

    Subclasses set ``name`` (how levels and other systems refer to it),
    ``stage``, and optionally ``after``/``before`` (names of systems of the
    same stage it must follow or precede) and ``needs_particles`` (True: the
    schedule skips it in a frame of a world without particles, such as a
    level of boxes alone, where two dozen calls that each find nothing to
    do were the larger half of the frame).
    """

    name: ClassVar[str]
    stage: ClassVar[Stage]
    after: ClassVar[tuple[str, ...]] = ()
    before: ClassVar[tuple[str, ...]] = ()
    needs_particles: ClassVar[bool] = False

    def process(self, step: Step) -> None:  # pragma: no cover - every system overrides it
        raise NotImplementedError(f"{type(self).__name__} must implement process(step)")

    def idle(self, step: Step) -> bool:
        """Whether this substep's iterations have nothing for this system to do: asked of each
        ITERATION system once a substep, after the SUBSTEP stage; True skips its ``process`` until
        the next substep (a level of cloth alone has four such systems: 80 calls a frame that each
        found nothing to do took a tenth of the 80 × 50 sheet's frame). Default: never idle."""
        return False


class ScheduleError(ValueError):
    """A system cannot be placed: a duplicate name or an impossible before/after."""


class Schedule:
    """Systems grouped by stage, each group in the order they must run."""

    def __init__(self, systems: list[System] | tuple[System, ...] = ()) -> None:
        self._stages: dict[Stage, list[System]] = {stage: [] for stage in Stage}
        self._lean: dict[Stage, list[System]] | None = None
        """The stages without particle-only systems, made when first needed (``add``/``remove`` drop it)."""
        for system in systems:
            self.add(system)

    def add(self, system: System) -> None:
        """Insert ``system`` into its stage: after every ``after``, before every ``before``.

        It goes as late as its ``before`` allows (last when it has none). Names in ``after``/``before`` that
        are not in the stage are ignored, so optional companions can be named.
        """
        if any(s.name == system.name for group in self._stages.values() for s in group):
            raise ScheduleError(f"a system named {system.name!r} is already scheduled")
        group = self._stages[system.stage]
        names = [s.name for s in group]
        lowest = max((names.index(n) + 1 for n in system.after if n in names), default=0)
        highest = min((names.index(n) for n in system.before if n in names), default=len(group))
        if lowest > highest:
            raise ScheduleError(
                f"system {system.name!r} cannot run after {list(system.after)} "
                f"and before {list(system.before)} in stage {system.stage.value!r}: "
                f"the current order is {names}"
            )
        group.insert(highest, system)
        self._lean = None

    def remove(self, name: str) -> System:
        """Take the system called ``name`` out of the schedule and return it."""
        for group in self._stages.values():
            for system in group:
                if system.name == name:
                    group.remove(system)
                    self._lean = None
                    return system
        raise KeyError(name)

    def get(self, name: str) -> System:
        """The scheduled system called ``name``."""
        for group in self._stages.values():
            for system in group:
                if system.name == name:
                    return system
        raise KeyError(name)

    def names(self, stage: Stage) -> list[str]:
        """The names of ``stage``'s systems, in run order."""
        return [s.name for s in self._stages[stage]]

    def systems(self, stage: Stage | None = None) -> list[System]:
        """The systems of ``stage`` in run order (default: every stage's, stage by stage)."""
        if stage is not None:
            return list(self._stages[stage])
        return [system for group in self._stages.values() for system in group]

    def step_frame(self, frame: int) -> None:
        """Run one 1/60 s frame of the active esper world: every stage but DRAW."""
        settings = world.settings()
        substeps = settings.resolved_substeps()
        step = Step(
            frame=frame,
            substeps=substeps,
            iterations=settings.iterations,
            dt=FRAME_DT / substeps,
            time=frame * FRAME_DT,
        )
        self._run(Stage.FRAME_START, step)
        # after the tools: a pour may just have made the level's first particles
        stages = self._stages if world.stores().particles.count else self._without_particles()
        substep_stage = stages[Stage.SUBSTEP]
        iteration_stage = stages[Stage.ITERATION]
        end_stage = stages[Stage.SUBSTEP_END]
        if not iteration_stage:
            step.iterations = 0
        for substep in range(substeps):
            step.substep = substep
            step.time = (frame + substep / substeps) * FRAME_DT
            _process(substep_stage, step)
            busy = [system for system in iteration_stage if not system.idle(step)]
            for iteration in range(step.iterations):
                step.iteration = iteration
                _process(busy, step)
            _process(end_stage, step)
        _process(stages[Stage.FRAME_END], step)

    def _without_particles(self) -> dict[Stage, list[System]]:
        """The stages without the systems that only act on particles."""
        if self._lean is None:
            self._lean = {
                stage: [system for system in group if not system.needs_particles]
                for stage, group in self._stages.items()
            }
        return self._lean

    def draw(self, step: Step) -> None:
        """Run the DRAW stage (from ``on_draw``, never from the physics step)."""
        self._run(Stage.DRAW, step)

    def _run(self, stage: Stage, step: Step) -> None:
        _process(self._stages[stage], step)


def _process(systems: list[System], step: Step) -> None:
    """Run ``systems`` in order; with ``WEFT_CHECK_FINITE`` set, check the stores after each (one call
    per stage, not per system: small frames feel a call per system)."""
    for system in systems:
        system.process(step)
        if finite.ENABLED:
            finite.check_finite(system.name, step.frame)
