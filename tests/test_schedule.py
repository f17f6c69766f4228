"""The schedule runs systems in a readable, explicit order, and extends by name."""

from __future__ import annotations

from typing import ClassVar

import pytest
from support.worlds import sheet

from weft.systems.builtin import default_schedule
from weft.systems.schedule import Schedule, ScheduleError, Stage, Step, System


class Recorder(System):
    """Appends (stage, substep, iteration) to a shared log each time it runs."""

    log: ClassVar[list[tuple[str, int, int]]] = []

    def process(self, step: Step) -> None:
        self.log.append((self.name, step.substep, step.iteration))


def recorder(name: str, stage: Stage, after: tuple[str, ...] = (), before: tuple[str, ...] = ()) -> System:
    kind = type(name, (Recorder,), {"name": name, "stage": stage, "after": after, "before": before})
    return kind()


def test_built_in_order_reads_top_to_bottom() -> None:
    schedule = default_schedule()
    assert schedule.names(Stage.FRAME_START) == ["grab", "cut", "blasts", "pour"]
    assert schedule.names(Stage.SUBSTEP) == [
        "shake",
        "integrate",
        "pins",
        "fields",
        "boxes",
        "broadphase",
        "sweep",
    ]
    assert schedule.names(Stage.ITERATION) == [
        "distances",
        "pressure",
        "bounds",
        "collisions",
        "box_particles",
        "joint_limits",
    ]
    assert schedule.names(Stage.SUBSTEP_END) == ["perimeter", "legs", "contain", "tear"]
    assert schedule.names(Stage.FRAME_END) == ["upright", "skin", "metrics", "contact_events"]


def test_custom_systems_go_where_before_and_after_say() -> None:
    schedule = default_schedule()
    schedule.add(recorder("gust", Stage.SUBSTEP, before=("integrate",)))
    schedule.add(recorder("springs", Stage.ITERATION, after=("distances",), before=("bounds",)))
    schedule.add(recorder("last", Stage.ITERATION))
    assert schedule.names(Stage.SUBSTEP)[:3] == ["shake", "gust", "integrate"]
    assert schedule.names(Stage.ITERATION) == [
        "distances",
        "pressure",
        "springs",
        "bounds",
        "collisions",
        "box_particles",
        "joint_limits",
        "last",
    ]


def test_impossible_placement_and_duplicate_names_are_refused() -> None:
    schedule = Schedule([recorder("a", Stage.SUBSTEP), recorder("b", Stage.SUBSTEP)])
    with pytest.raises(ScheduleError, match="cannot run after"):
        schedule.add(recorder("c", Stage.SUBSTEP, after=("b",), before=("a",)))
    with pytest.raises(ScheduleError, match="already scheduled"):
        schedule.add(recorder("a", Stage.FRAME_END))


def test_stages_nest_substeps_and_iterations() -> None:
    sim = sheet(iterations=3, world="substeps = 2")
    Recorder.log = []
    for name, stage in [
        ("start", Stage.FRAME_START),
        ("sub", Stage.SUBSTEP),
        ("it", Stage.ITERATION),
        ("end_sub", Stage.SUBSTEP_END),
        ("end", Stage.FRAME_END),
    ]:
        sim.schedule.add(recorder(name, stage))
    sim.step()
    assert [entry for entry in Recorder.log] == [
        ("start", 0, 0),
        ("sub", 0, 0),
        ("it", 0, 0),
        ("it", 0, 1),
        ("it", 0, 2),
        ("end_sub", 0, 2),
        ("sub", 1, 2),
        ("it", 1, 0),
        ("it", 1, 1),
        ("it", 1, 2),
        ("end_sub", 1, 2),
        ("end", 1, 2),
    ]


def test_automatic_substeps_follow_the_finest_spacing() -> None:
    assert sheet(spacing=13).settings.resolved_substeps() == 1
    assert sheet(spacing=12).settings.resolved_substeps() == 1
    assert sheet(spacing=6).settings.resolved_substeps() == 2
    assert sheet(spacing=2.5).settings.resolved_substeps() == 5
    assert sheet(spacing=2).settings.resolved_substeps() == 6
    assert sheet(spacing=2, world="substeps = 3").settings.resolved_substeps() == 3


def test_a_world_without_particles_skips_the_systems_that_only_act_on_particles() -> None:
    from support.worlds import simulate

    def particle_only(name: str, stage: Stage) -> System:
        system = recorder(name, stage)
        type(system).needs_particles = True
        return system

    boxes = simulate('[[boxes]]\nname = "crate"\nlayout = "list"\npositions = [[640, 20]]')
    with_cloth = sheet()
    for sim in (boxes, with_cloth):
        sim.schedule.add(particle_only("particles_only", Stage.SUBSTEP))
        sim.schedule.add(recorder("always", Stage.ITERATION))
    Recorder.log = []
    boxes.step()
    assert {name for name, _, _ in Recorder.log} == {"always"}  # custom systems still run
    Recorder.log = []
    with_cloth.step()
    assert {name for name, _, _ in Recorder.log} == {"particles_only", "always"}


class SleepyRecorder(Recorder):
    """A recorder with nothing to do in substep 0; counts how often it is asked."""

    asked: ClassVar[list[int]] = []

    def idle(self, step: Step) -> bool:
        self.asked.append(step.substep)
        return step.substep == 0


def test_an_idle_iteration_system_is_asked_once_a_substep_and_skipped_for_it() -> None:
    sim = sheet(iterations=3, world="substeps = 2")
    sleepy = type("sleepy", (SleepyRecorder,), {"name": "sleepy", "stage": Stage.ITERATION})()
    sim.schedule.add(sleepy)
    Recorder.log, SleepyRecorder.asked = [], []
    sim.step()
    assert SleepyRecorder.asked == [0, 1]  # once a substep
    assert Recorder.log == [("sleepy", 1, 0), ("sleepy", 1, 1), ("sleepy", 1, 2)]


def test_a_hanging_sheet_relaxes_and_meets_the_walls_and_nothing_else_each_iteration() -> None:
    sim = sheet()
    sim.step()
    with sim.physics.entered():
        busy = [s.name for s in sim.schedule.systems(Stage.ITERATION) if not s.idle(Step())]
    assert busy == ["distances", "bounds"]
