"""The step's machinery: stages, the ``Step`` every system is handed, and the schedule that runs them.

One frame of 1/60 s runs the stages nested like this::

    FRAME_START
    repeat substeps:
        SUBSTEP
        repeat iterations:
            ITERATION
        SUBSTEP_END
    FRAME_END
    DRAW (from on_draw only)

Which built-in systems each stage runs, in order, is the table in ``weft.systems.frame``: the file
to open to read a frame. esper's single priority list cannot express the two inner loops, so the
schedule calls its processors itself; esper still owns the entities.
"""

from __future__ import annotations

import difflib
import itertools
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import ClassVar, NamedTuple

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
    """A system: one job over whole arrays, run at its stage.

    Subclasses set ``name`` (how levels and other systems refer to it) and
    optionally ``needs``: the kinds of body without which it has nothing to do
    (``weft.systems.world.KINDS``: ``"particles"``, ``"threads"``, ``"boxes"``...).
    The schedule leaves it out of a frame of a world that lacks one, without
    asking it: in a level of boxes alone two dozen calls that each found
    nothing to do were the larger half of the frame. A built-in system's
    stage and place are its row of the frame table (``weft.systems.frame``);
    a custom system declares ``stage`` and, optionally, ``after``/``before``:
    names of systems of its stage it must follow or precede.
    """

    name: ClassVar[str]
    stage: ClassVar[Stage]
    after: ClassVar[tuple[str, ...]] = ()
    before: ClassVar[tuple[str, ...]] = ()
    needs: ClassVar[tuple[str, ...]] = ()

    def process(self, step: Step) -> None:  # pragma: no cover - every system overrides it
        raise NotImplementedError(f"{type(self).__name__} must implement process(step)")

    def idle(self, step: Step) -> bool:
        """Whether this substep has nothing for this system to do: True skips its ``process`` until
        the next substep. Asked only of systems whose ``needs`` the world meets, for what ``needs``
        cannot say (a wall shaking, a field pushing, pairs listed). Asked once a substep: of the
        SUBSTEP and SUBSTEP_END systems before the substep starts, so a system idle then must stay
        so whatever the systems before it do (nothing adds bodies in a frame), and of the ITERATION
        systems after the SUBSTEP stage (a contact pass is idle with no pairs listed). True only
        where ``process`` would change nothing. Default: never idle."""
        return False

    def fused_iterations(self, busy: list[System], step: Step) -> Callable[[], None] | None:
        """A call that runs every iteration of this substep for all of ``busy`` (the ITERATION systems
        with work, this one first), or None (the default): then each runs once an iteration. A system
        offers one only where it knows every system in ``busy`` and the call gives the very numbers
        they give one by one (the threads and the walls of a level of cloth: one kernel call a substep
        in place of 40 Python calls and 40 wakings of the thread pool)."""
        return None

    def fused_substep(
        self, head: list[System], iterations: list[System], tail: list[System], step: Step
    ) -> Callable[[], bool] | None:
        """A call that runs the whole substep, or None (the default): then each system runs as usual.
        Asked of the first SUBSTEP system with work, once a substep before it starts, and only while
        the substep's stages hold built-in systems alone, with the SUBSTEP systems with work
        (``head``, this one first), the whole ITERATION stage and the SUBSTEP_END systems with work
        (``tail``). A system offers one only where it knows every system with work
        and the call gives the very numbers they give one by one; it asks the ITERATION systems'
        ``idle`` itself, and may only where it knows the head changes nothing their answers read
        (the cloth's: integrate and pins move points; ``weft.systems.cloth_step``). The call returns
        True, or False where it finds, as it starts, that the world no longer fits it: having changed
        nothing, and the substep then runs one system at a time."""
        return None


SUBSTEP_STAGES = (Stage.SUBSTEP, Stage.ITERATION, Stage.SUBSTEP_END)
"""The stages run once per substep (the iterations inside it)."""


class Plan(NamedTuple):
    """A frame of a world holding some kinds of body (``Schedule._plan``)."""

    stages: dict[Stage, list[System]]
    """Each stage's systems whose ``needs`` the world meets, in run order."""
    builtin_substeps: bool
    """Whether those of SUBSTEP, ITERATION and SUBSTEP_END are built-in systems alone: a fused
    substep stands for those alone (and may ask their ``idle`` before the schedule does). A custom
    system left out for its ``needs`` keeps no substep from fusing."""


def needs_problem(needs: object, old_flag: object = False) -> str | None:
    """What is wrong with a system's ``needs``, or None where it is a tuple of ``world.KINDS``
    (``old_flag``: its ``needs_particles``, which ``needs`` replaced, and which is no longer read)."""
    kinds = ", ".join(world.KINDS)
    if old_flag:
        return 'expected needs = ("particles",) where needs_particles = True was: it is read no more'
    if isinstance(needs, str):  # ("colliding") is a string: the comma makes the tuple
        return f"expected a tuple of kinds of body ({kinds}), got the string {needs!r}: write ({needs!r},)"
    if not isinstance(needs, tuple):
        return f"expected a tuple of kinds of body ({kinds}), got {needs!r}"
    unknown = [kind for kind in needs if kind not in world.KINDS]
    return f"expected kinds of body ({kinds}), got {unknown[0]!r}" if unknown else None


class ScheduleError(ValueError):
    """A system cannot be placed: a duplicate name, no stage, an unknown or impossible before/after."""


class Schedule:
    """Systems grouped by stage, each group in the order they must run.

    ``frame`` is the built-in order: for each stage, the names of its built-in systems in run order
    (``weft.systems.frame.FRAME_NAMES``). A system so named takes that stage and place whenever it is
    added, whatever else the stage holds; any other system brings its own ``stage``, goes after every
    name in its ``after`` and before every name in its ``before``, and otherwise as late as it can
    (custom systems in the order they were added).
    """

    def __init__(
        self,
        systems: Sequence[System] = (),
        frame: Mapping[Stage, Sequence[str]] | None = None,
    ) -> None:
        self.frame: dict[Stage, tuple[str, ...]] = {
            stage: tuple((frame or {}).get(stage, ())) for stage in Stage
        }
        """The built-in systems' names, stage by stage in run order (placed or not)."""
        self._added: dict[Stage, list[System]] = {stage: [] for stage in Stage}
        """Each stage's systems in the order they were added."""
        self._stages: dict[Stage, list[System]] = {stage: [] for stage in Stage}
        """Each stage's systems in run order."""
        self._plans: dict[tuple[bool, ...], Plan] = {}
        """The frame of a world holding the kinds given (``world.kinds_present``), made when first
        needed (``add``/``remove`` drop them)."""
        self._custom: set[str] | None = None
        self._start_needs: bool | None = None
        """Whether a FRAME_START system has ``needs`` (none of the built-ins has)."""
        self.after_custom: Callable[[System], None] | None = None
        """Called after every run of a custom system (not a built-in) with that system: the
        application brings back into range what it left out of it (``weft.game.settings_guard``).
        Schedules without custom systems never call it."""
        self.timings: dict[str, float] | None = None
        """None (the default), or a dict to which ``step_frame`` adds the seconds each system's
        ``process`` took, summed over every call, by name: where a frame's time goes, as Box2D's
        ``b2Profile`` says. A substep's fused iterations (``System.fused_iterations``) count under
        the names of the systems fused, joined by ``+``. The clock is read only while it is a dict."""
        for system in systems:
            self.add(system)

    def custom(self) -> set[str]:
        """The names of the custom systems scheduled (those the frame table does not name)."""
        if self._custom is None:
            builtin = {name for names in self.frame.values() for name in names}
            self._custom = {s.name for group in self._added.values() for s in group} - builtin
        return self._custom

    def copy(self) -> Schedule:
        """A schedule of the same systems (the same instances) and the same built-in order."""
        copied = Schedule(frame=self.frame)
        copied._added = {stage: list(group) for stage, group in self._added.items()}
        copied._stages = {stage: list(group) for stage, group in self._stages.items()}
        copied.after_custom = self.after_custom
        return copied

    def stage_of(self, system: System) -> Stage:
        """Where ``system`` runs: its row of the frame table if it is a built-in, else its own ``stage``."""
        for stage, names in self.frame.items():
            if system.name in names:
                return stage
        stage = getattr(system, "stage", None)
        if not isinstance(stage, Stage):
            raise ScheduleError(
                f"system {system.name!r} has no stage: a custom system sets `stage` (such as Stage.SUBSTEP)"
            )
        return stage

    def place_problems(self, system: System) -> list[tuple[str, str]]:
        """``(key, message)`` for each name in ``system``'s ``after``/``before`` that its stage does not
        know (built-in systems of the stage, placed or not, and the systems added to it so far)."""
        stage = self.stage_of(system)
        known = list(dict.fromkeys([*self.frame[stage], *(s.name for s in self._added[stage])]))
        problems = []
        for key in ("after", "before"):
            for name in getattr(system, key):
                if name not in known:
                    problems.append((key, self._unknown_place(name, system, stage, known)))
        return problems

    def _unknown_place(self, name: str, system: System, stage: Stage, known: list[str]) -> str:
        elsewhere = next((s for s, names in self.frame.items() if name in names), None)
        if elsewhere is None:
            elsewhere = next(
                (s for s, group in self._added.items() if any(x.name == name for x in group)), None
            )
        if elsewhere is not None:
            hint = f"; {name!r} runs in stage {elsewhere.value!r}"
        else:
            guess = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            later = "; a custom system is known once added: list it before those that name it"
            hint = f"; did you mean {guess[0]!r}?" if guess else later
        listed = ", ".join(known) if known else "none yet"
        where = f"in stage {stage.value!r}, where {system.name!r} runs"
        return f"expected a system {where} ({listed}), got {name!r}{hint}"

    def add(self, system: System) -> None:
        """Put ``system`` into its stage, at its place; raise ``ScheduleError`` (and add nothing) for a
        name already scheduled, a custom system without a stage, an ``after``/``before`` name its stage
        does not know, a ``needs`` that is no kind of body, or a place no order can give."""
        if any(s.name == system.name for group in self._added.values() for s in group):
            raise ScheduleError(f"a system named {system.name!r} is already scheduled")
        stage = self.stage_of(system)
        builtin = system.name in self.frame[stage]
        if builtin and (system.after or system.before):
            raise ScheduleError(
                f"system {system.name!r} is built in: its place is its row of the frame table "
                "(weft.systems.frame), not `after`/`before`"
            )
        problems = self.place_problems(system)
        wrong = needs_problem(system.needs, getattr(system, "needs_particles", False))
        if wrong:
            problems.append((f"{system.name!r} needs", wrong))
        if problems:
            raise ScheduleError("; ".join(f"{key}: {message}" for key, message in problems))
        added = [*self._added[stage], system]
        order = self._order(stage, added)
        if order is None:
            raise ScheduleError(
                f"system {system.name!r} cannot run after {list(system.after)} "
                f"and before {list(system.before)} in stage {stage.value!r}: "
                f"the current order is {self.names(stage)}"
            )
        self._added[stage] = added
        self._stages[stage] = order
        self._plans.clear()
        self._custom = self._start_needs = None

    def _order(self, stage: Stage, systems: list[System]) -> list[System] | None:
        """``systems`` in run order, or None when their places contradict each other.

        Built-ins keep the frame table's order, the systems already placed keep theirs, and each
        custom system follows its ``after`` and precedes its ``before``. Of the systems free to run
        next, a built-in goes first (the earliest in the table), then the custom system added first:
        a custom system runs as late as its ``before`` allows.
        """
        table = self.frame[stage]
        by_name = {s.name: s for s in systems}
        rank = {
            s.name: ((0, table.index(s.name)) if s.name in table else (1, k)) for k, s in enumerate(systems)
        }
        follows: dict[str, set[str]] = {s.name: set() for s in systems}
        builtins = [name for name in table if name in by_name]
        placed = [s.name for s in self._stages[stage] if s.name in by_name]  # adding one moves no other
        for chain in (builtins, placed):
            for first, second in itertools.pairwise(chain):
                follows[second].add(first)
        for s in systems:
            if s.name in table:
                continue
            follows[s.name].update(name for name in s.after if name in by_name)
            for name in s.before:
                if name in by_name:
                    follows[name].add(s.name)
        order: list[System] = []
        done: set[str] = set()
        while len(order) < len(systems):
            ready = [name for name in follows if name not in done and follows[name] <= done]
            if not ready:
                return None
            chosen = min(ready, key=rank.__getitem__)
            done.add(chosen)
            order.append(by_name[chosen])
        return order

    def remove(self, name: str) -> System:
        """Take the system called ``name`` out of the schedule and return it."""
        for stage, group in self._added.items():
            for system in group:
                if system.name == name:
                    group.remove(system)
                    self._stages[stage].remove(system)
                    self._plans.clear()
                    self._custom = self._start_needs = None
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
        guard = self._guard()
        timings = self.timings
        _process(self._start(), step, guard, timings)
        # after the tools: a pour may just have made the level's first particles, a grab a pin
        plan = self._plan(world.kinds_present())
        stages = plan.stages
        substep_stage = stages[Stage.SUBSTEP]
        iteration_stage = stages[Stage.ITERATION]
        end_stage = stages[Stage.SUBSTEP_END]
        if not iteration_stage:
            step.iterations = 0
        # with the finite check on, one by one: it names the system that left a NaN
        may_fuse = not finite.ENABLED
        may_fuse_substep = may_fuse and plan.builtin_substeps
        for substep in range(substeps):
            step.substep = substep
            step.time = (frame + substep / substeps) * FRAME_DT
            head = _busy(substep_stage, step)
            tail = _busy(end_stage, step)
            whole = None
            if head and may_fuse_substep:
                whole = head[0].fused_substep(head, iteration_stage, tail, step)
            if whole is not None:
                # named, when timed, after what it runs: the iteration systems with work, as one by one
                ran = head if timings is None else [*head, *_busy(iteration_stage, step), *tail]
                if _run_fused(whole, ran, timings) is not False:
                    step.iteration = step.iterations - 1
                    continue
            _process(head, step, guard, timings)
            busy = _busy(iteration_stage, step)
            fused = busy[0].fused_iterations(busy, step) if busy and may_fuse else None
            if fused is not None:
                _run_fused(fused, busy, timings)
                step.iteration = step.iterations - 1
            else:
                for iteration in range(step.iterations):
                    step.iteration = iteration
                    _process(busy, step, guard, timings)
            _process(tail, step, guard, timings)
        _process(stages[Stage.FRAME_END], step, guard, timings)
        if guard is not None and not finite.ENABLED:
            _check_after_custom(guard.names, frame)

    def _guard(self) -> _CustomGuard | None:
        """What runs after each system where custom systems are scheduled (``_CustomGuard``), or None
        (the plain loop) without any."""
        custom = self.custom()
        return _CustomGuard(custom, self.after_custom) if custom else None

    def _plan(self, present: tuple[bool, ...]) -> Plan:
        """The frame of a world holding the kinds ``present`` (``world.kinds_present``)."""
        plan = self._plans.get(present)
        if plan is None:
            lacking = {kind for kind, held in zip(world.KINDS, present, strict=True) if not held}
            stages = {
                stage: [system for system in group if lacking.isdisjoint(system.needs)]
                for stage, group in self._stages.items()
            }
            custom = self.custom()
            substeps = (system for stage in SUBSTEP_STAGES for system in stages[stage])
            plan = Plan(stages, not any(system.name in custom for system in substeps))
            self._plans[present] = plan
        return plan

    def _start(self) -> list[System]:
        """The FRAME_START systems to run: all, unless one has ``needs`` (then the world is read)."""
        if self._start_needs is None:
            self._start_needs = any(system.needs for system in self._stages[Stage.FRAME_START])
        if self._start_needs:
            return self._plan(world.kinds_present()).stages[Stage.FRAME_START]
        return self._stages[Stage.FRAME_START]

    def busy(self, stage: Stage, step: Step) -> list[System]:
        """The systems of ``stage`` with work in the active world now: those whose ``needs`` it meets
        and that are not ``idle`` (what a frame runs, when nothing is fused)."""
        return _busy(self._plan(world.kinds_present()).stages[stage], step)

    def draw(self, step: Step) -> None:
        """Run the DRAW stage (from ``on_draw``, never from the physics step)."""
        self._run(Stage.DRAW, step)

    def _run(self, stage: Stage, step: Step) -> None:
        _process(self._stages[stage], step)


class SystemFailed(RuntimeError):
    """A custom system raised, or left a NaN or an infinity in the stores: ``system`` names it (or the
    custom systems it may be, comma-separated), the message says in which frame and what."""

    def __init__(self, system: str, message: str) -> None:
        super().__init__(message)
        self.system = system


class _CustomGuard:
    """Run after each system of a frame with custom systems: for those, ``after_custom`` (the
    settings' guard), and an exception they raise becomes a ``SystemFailed`` naming them."""

    def __init__(self, names: set[str], after_custom: Callable[[System], None] | None) -> None:
        self.names = names
        self.after_custom = after_custom

    def __call__(self, system: System) -> None:
        if self.after_custom is not None and system.name in self.names:
            self.after_custom(system)


def _process(
    systems: list[System],
    step: Step,
    guard: _CustomGuard | None = None,
    timings: dict[str, float] | None = None,
) -> None:
    """Run ``systems`` in order; with ``WEFT_CHECK_FINITE`` set, check the stores after each (one call
    per stage, not per system: small frames feel a call per system); the ``guard`` after each; each
    one's time added to ``timings`` when it is a dict (``Schedule.timings``)."""
    for system in systems:
        started = time.perf_counter() if timings is not None else 0.0
        if guard is None:
            system.process(step)
        else:
            try:
                system.process(step)
            except Exception as error:
                if system.name not in guard.names:
                    raise
                why = " ".join(f"{type(error).__name__}: {error}".split())
                message = f"frame {step.frame}: system {system.name!r} raised {why}"
                raise SystemFailed(system.name, message) from error
        if timings is not None:
            _add_time(timings, system.name, started)
        if guard is not None:
            guard(system)
        if finite.ENABLED:
            finite.check_finite(system.name, step.frame)


def _check_after_custom(custom: set[str], frame: int) -> None:
    """At the end of a frame with custom systems, the stores must hold only finite numbers: the
    built-in systems never leave a NaN (their fuzz tests hold them to it), so one there is a custom
    system's. One pass over the stores a frame; ``WEFT_CHECK_FINITE=1`` checks after every system and
    names which left it."""
    found = finite.first_non_finite()
    if found is None:
        return
    what, row = found
    names = ", ".join(repr(name) for name in sorted(custom))
    if len(custom) == 1:
        which, hint = f"system {names}", ""
    else:
        which, hint = f"one of the custom systems {names}", " (WEFT_CHECK_FINITE=1 names which)"
    message = f"frame {frame}: {which} left a NaN or an infinity in {what} (row {row}){hint}"
    raise SystemFailed(", ".join(sorted(custom)), message)


def _busy(systems: list[System], step: Step) -> list[System]:
    """Those of ``systems`` with work this substep (``System.idle``)."""
    return [system for system in systems if not system.idle(step)]


def _run_fused(
    call: Callable[[], bool | None], systems: list[System], timings: dict[str, float] | None
) -> bool | None:
    """Run the fused call of ``systems`` and return what it returns (False: it declined, and the
    systems then run one by one; anything else: it ran); with ``timings`` a dict, its time is added
    there under ``fused_name``, or that and `` (declined)`` for a call that declined."""
    if timings is None:
        return call()
    started = time.perf_counter()
    ran = call()
    _add_time(timings, fused_name(systems) + (" (declined)" if ran is False else ""), started)
    return ran


def fused_name(systems: Sequence[System]) -> str:
    """The name ``Schedule.timings`` gives a fused call of ``systems``: theirs joined by ``+``."""
    return "+".join(system.name for system in systems)


def _add_time(timings: dict[str, float], name: str, started: float) -> None:
    """Add the seconds since ``started`` (``time.perf_counter``) to ``timings[name]``."""
    timings[name] = timings.get(name, 0.0) + time.perf_counter() - started
