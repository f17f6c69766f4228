"""Compiling the kernels before a player waits on them: ``weft warmup``, and the first start's
progress line.

numba compiles each kernel on its first call and keeps it in its cache
(``weft.systems.kernels.CACHE_DIR``, one folder per version of the
kernels). On a machine that has never run this version, that is a minute
of compiling, which used to land in the first frame: the picker froze with
no word said. ``prepare_physics`` steps every shipped level for two frames,
which calls the kernels its frames call from the start with the arguments
they use (box kernels take large scenes' threaded paths inside the same
compiled code), then plays it once (``act_once``: what runs only when the
player acts or something meets a wall or a box) and, for a sheet, compiles
the drawing kernels no frame calls, saying how far it got; it leaves a mark
in the cache folder when done, so ``kernels_ready`` can tell a ready cache
from a cold one without compiling.

The picker prepares in a child process (``Preparation``), so it keeps
drawing and answering input while numba, which holds the interpreter
while it compiles, works elsewhere; ``run`` compiles around its own first
frame and says so on stderr when that takes long (``FirstStart``: what the
level needs compiles, and no more).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR
from weft.systems.first_start import PLAY, compile_apart, load_cached, plan_like, plans, watch
from weft.systems.kernels import READY_MARK
from weft.systems.kernels.distance import needs_general
from weft.systems.kernels.distance_sides import PARALLEL_DISTANCES
from weft.systems.kernels.grid import PARALLEL_PARTICLES
from weft.systems.kernels.jit import THREADED_FROM
from weft.systems.warmup import (
    call_cloth_drawing_kernels,
    call_every_kernel,
    call_sleep_kernels,
    call_wall_kernels,
)

WARM_FRAMES = 2
"""Frames each level steps (the first lists pairs, the second keeps them: both paths compiled)."""


def warm_levels() -> list[Path]:
    """The shipped levels: the one the picker opens on first (``DEFAULT_LEVEL``: a player who presses
    Enter at once finds its kernels furthest along), then the rest by name."""
    return sorted(LEVELS_DIR.glob("*.toml"), key=lambda path: (path != DEFAULT_LEVEL, path.name))


def kernels_ready() -> bool:
    """Whether this version's kernels are compiled and cached (``prepare_physics`` ran to the end)."""
    return READY_MARK.exists()


Kernels = tuple[str, int, int] | None
"""A plan compiling (``first_start.watch``): its name and its kernels done and in all; None
without one."""

Report = Callable[[int, int, str, Kernels], None]
"""``report(levels done, levels, the level compiling, its kernels)`` (``prepare_physics``)."""

LINE_EVERY_S = 1.0
"""The least time between two lines that only count more kernels done (``report_to``, ``FirstStart``):
a cold start says how far it is each second, not each kernel."""


def progress_line(done: int, total: int, name: str, kernels: Kernels = None) -> str:
    """What a player reads while the kernels compile: ``done`` of ``total`` levels, the one compiling
    (``name``) and how far its plan is (``kernels``). A level plan holds every kernel the level
    needs (its own, or the one of a shipped level that needs the same: ``compile_like_apart``); a
    level with neither has only the box step's (what it compiles besides goes uncounted)."""
    said = "preparing physics, first run only: "
    if done == total:
        return said + "done"
    counted = own = None
    if kernels is not None:
        plan, compiled, planned = kernels
        own = plan.startswith(("level ", PLAY))  # a level's own plan, or its play plan with it
        counted = (
            f"{compiled} of {planned} kernels" if own else f"the box step's {compiled} of {planned} kernels"
        )
    if total > 1:
        return said + f"{done} of {total} levels ({name})" + ("" if counted is None else f", {counted}")
    if own:
        return said + f"{counted} ({name})"
    return said + f"compiling the kernels {name} needs" + ("" if counted is None else f" ({counted})")


def prepare_physics(
    report: Report | None = None,
    levels: Sequence[Path] | None = None,
    overrides: Sequence[str] = (),
    allow_import: Sequence[str] = (),
) -> float:
    """Step ``levels`` (every shipped level by default; ``overrides`` and ``allow_import`` as for
    ``weft run``) ``WARM_FRAMES`` frames each and play each once (``act_once``; a sheet's drawing
    kernels too), calling ``report(done, total, level name, kernels)``
    before each and as its plan's kernels compile; mark the cache ready when they were every shipped
    level. Returns the seconds it took."""
    started = time.perf_counter()
    every = levels is None
    levels = warm_levels() if levels is None else list(levels)
    compile_levels_apart(levels, overrides, report)
    for done, path in enumerate(levels):
        if report is not None:
            report(done, len(levels), path.name, None)
        stop_watching = watch(_kernels_of(report, done, len(levels), path.name))
        try:
            compile_level_apart(path, overrides)
            sim = Simulation.load(path, overrides, allow_import)
            try:
                compile_like_apart(sim, path, overrides)
                play_once(sim)
            finally:
                sim.close()
        finally:
            stop_watching()
    if report is not None:
        report(len(levels), len(levels), "done", None)
    if every:
        call_every_kernel()  # what no stepped frame calls too: the drawing kernels
        with contextlib.suppress(OSError):  # a read-only cache: the next start prepares again
            READY_MARK.write_text("every shipped level stepped with these kernels\n")
    return time.perf_counter() - started


def play_once(sim: Simulation) -> None:
    """Step ``sim``, just built, ``WARM_FRAMES`` frames and play it once (``act_once``); for a sheet,
    compile the drawing kernels too, which its first draw would compile in the window."""
    sim.step(WARM_FRAMES)
    act_once(sim)
    if sim.level.model.cloth:
        call_cloth_drawing_kernels()


def act_once(sim: Simulation) -> None:
    """Play ``sim``'s level once the way a player may, a frame or two each: each tool it offers
    pressed on a box and on a free point, a cut with the right button, a poke; then a free point put
    inside a box, then outside the walls. ``sim`` is built only to be warmed, and thrown away
    after. The kernels a level calls only when the player acts, or once something first meets a wall
    or a box, so compile while the preparation says so, not in the window mid-play: stepped alone,
    the ragdoll froze 1.5 s when it first touched its ramp, balls 0.6 s when the first circle met a
    wall. The wall's clamp on its own and the sleepers' waking, which a frame runs only in some
    states (the iterations not fused, a box asleep), are called directly."""
    session = Session(sim)
    for name in session.tools:
        for x, y in _bodies_at(sim):  # where they are now: the tool before may have moved them
            for event in (
                {"type": "tool", "name": name},
                {"type": "mouse_press", "x": x, "y": y, "button": "left"},
                {
                    "type": "mouse_drag",
                    "x": x + 12.0,
                    "y": y + 8.0,
                    "dx": 12.0,
                    "dy": 8.0,
                    "buttons": ["left"],
                },
            ):
                session.queue(event)
            session.advance()
            session.queue({"type": "mouse_release", "x": x + 12.0, "y": y + 8.0, "button": "left"})
            session.advance()
    x, y = _bodies_at(sim)[-1]
    session.queue({"type": "mouse_press", "x": x - 20.0, "y": y, "button": "right"})
    session.queue({"type": "mouse_drag", "x": x + 20.0, "y": y, "dx": 40.0, "dy": 0.0, "buttons": ["right"]})
    session.queue({"type": "key_press", "key": "ENTER"})
    session.advance()
    session.queue({"type": "mouse_release", "x": x + 20.0, "y": y, "button": "right"})
    session.advance()
    particles, boxes = sim.stores.particles, sim.stores.rigid
    if particles.count:
        call_wall_kernels()  # the clamp on its own: a frame that meets a wall may not run it so
    if boxes.count:
        call_sleep_kernels()
    free = np.flatnonzero(particles.inv_mass[: particles.count] > 0.0)
    if len(free):
        k = free[0]
        if boxes.count:  # a fixed box too: a ragdoll meeting its ramp
            particles.pos[k] = particles.prev[k] = boxes.pos[0]
            session.advance()
        left, bottom, _, _ = sim.settings.walls
        particles.pos[k] = particles.prev[k] = (left - 50.0, bottom - 50.0)
        session.advance()


def _bodies_at(sim: Simulation) -> list[tuple[float, float]]:
    """Points on ``sim``'s bodies: its first movable box's centre and its first free point, those it
    has (a grab takes each its own way); the middle of the walls when it has neither."""
    particles, boxes = sim.stores.particles, sim.stores.rigid
    found = []
    for count, pos, inv_mass in (
        (boxes.count, boxes.pos, boxes.inv_mass),
        (particles.count, particles.pos, particles.inv_mass),
    ):
        movable = np.flatnonzero(inv_mass[:count] > 0.0)
        if len(movable):
            found.append((float(pos[movable[0], 0]), float(pos[movable[0], 1])))
    if not found:
        left, bottom, right, top = sim.settings.walls
        found.append((0.5 * (left + right), 0.5 * (bottom + top)))
    return found


def _kernels_of(report: Report | None, done: int, total: int, name: str) -> Callable[[str, int, int], None]:
    """A watcher (``first_start.watch``) that passes a plan's kernel count on to ``report`` as the
    level ``name``'s (the ``done``-th of ``total``)."""

    def kernels(plan: str, compiled: int, planned: int) -> None:
        if report is not None:
            report(done, total, name, (plan, compiled, planned))

    return kernels


def compile_level_apart(path: Path, overrides: Sequence[str] = ()) -> None:
    """A shipped level's kernels compiled in two processes when they are not cached yet (its plan in
    ``systems/first_start.txt``; ``compile_apart``), called before the level is built: building
    compiles kernels too (the large pyramid's 3 s, the ragdoll's 2). Not for a level changed by
    ``overrides``, whose kernels may differ: ``compile_like_apart`` finds it a plan once it is built,
    as its features are known only then (its build's kernels compile in this process alone)."""
    if _has_own_plan(path, overrides):
        compile_apart(f"level {path.name}")


def compile_levels_apart(
    levels: Sequence[Path], overrides: Sequence[str] = (), report: Report | None = None
) -> None:
    """The shipped ``levels``' plans compiled as one (``compile_apart``) before the first is built,
    each level's with its play plan (``PLAY``: what ``play_once`` compiles besides its frames, the
    tools' kernels, which compiled after the plan on one core), their kernels counted as the
    levels' (``report``). One after the other, each plan ended with one side idle while the other
    finished, and each started a second process: a cold ``weft warmup`` took 54-55 s so (49 of
    them in the plans), 44 s as one."""
    chosen = [plan for path in levels if _has_own_plan(path, overrides) for plan in _own_plan(path)]
    if not chosen:
        return
    name = levels[0].name if len(levels) == 1 else f"{len(levels)} levels"
    stop_watching = watch(_kernels_of(report, 0, 1, name))
    try:
        compile_apart(*chosen)
    finally:
        stop_watching()


def compile_like_apart(sim: Simulation, path: Path, overrides: Sequence[str] = ()) -> None:
    """For a level without a plan of its own (a player's, or a shipped one changed by ``overrides``),
    built as ``sim`` and not stepped yet: the plan of a shipped level whose frames need the same
    kernels (``level_features``), when one does. Without one, only its box step has a plan."""
    if not _has_own_plan(path, overrides):
        plan = plan_like(level_features(sim))
        if plan is not None:
            compile_apart(plan)


def load_level_kernels(sim: Simulation, overrides: Sequence[str] = ()) -> int:
    """Load from numba's cache, before ``sim``'s first frame, the kernels its level calls from Python:
    a shipped level's as playing it once calls them (its play plan: its frames' and its tools'), a
    level without a plan of its own (one of a player's, or a shipped one changed by ``overrides``)
    those its frames call in a shipped level alike (``level_features``). How many it loaded;
    nothing compiles here (``first_start.load_cached``)."""
    path = sim.level.source
    chosen = _own_plan(path) if _has_own_plan(path, overrides) else []
    if not chosen:
        like = plan_like(level_features(sim))
        chosen = [] if like is None else [like]
    return load_cached(*chosen) if chosen else 0


def _has_own_plan(path: Path, overrides: Sequence[str]) -> bool:
    return not overrides and path.resolve().parent == LEVELS_DIR.resolve()


def _own_plan(path: Path) -> list[str]:
    """The recorded plan of the shipped level ``path``: its play plan, which brings its level plan
    (``recorded``), or its level plan alone; none for a level quick enough to need none."""
    recorded = set(plans())
    return [plan for plan in (f"{PLAY}{path.name}", f"level {path.name}") if plan in recorded][:1]


def level_features(sim: Simulation) -> str:
    """What decides which kernels a level's frames compile: its kinds of body, whether it can hold
    circles and has ragdolls, and each choice of a kernel build its sizes make (threads cut in two
    sides from ``PARALLEL_DISTANCES``, compliant or pull-only ones, boxes on the build for threads
    from ``THREADED_FROM``, circles binned in halves from ``PARALLEL_PARTICLES``). Two levels alike in
    these compile the same kernels, whatever their sizes, textures or tuning."""
    stores, settings = sim.stores, sim.settings
    distances = stores.distances
    m = distances.count
    kinds = sorted({type(component).__name__ for _, component in sim.bodies()})
    choices = {
        "circles": settings.circles,
        "ragdolls": settings.ragdolls,
        "sides": m >= PARALLEL_DISTANCES,
        "compliant": m > 0 and bool(needs_general(distances.compliance[:m], distances.mode[:m])),
        "boxes for threads": stores.rigid.count >= THREADED_FROM,
        "circles in halves": stores.particles.circles >= PARALLEL_PARTICLES,
    }
    return ",".join(kinds + [name for name, chosen in choices.items() if chosen]) or "-"


def report_to(stream: TextIO) -> Report:
    """A ``report`` that writes each progress line to ``stream`` (one line each, flushed): each
    level's first, then one each ``LINE_EVERY_S`` at most while its kernels compile (it is called
    from two threads: the lines are written one at a time)."""
    lock = threading.Lock()
    last = -LINE_EVERY_S

    def report(done: int, total: int, name: str, kernels: Kernels) -> None:
        nonlocal last
        with lock:
            now = time.monotonic()
            if kernels is None or now - last >= LINE_EVERY_S or kernels[1] == kernels[2]:
                last = now
                print(progress_line(done, total, name, kernels), file=stream, flush=True)

    return report


NOTICE_AFTER_S = 3.0
"""A start (building the level and its first frame) longer than this is compiling: ``FirstStart``
says so. A cached start takes 0.3-0.5 s here, a compiling one 10 s and more."""


class FirstStart:
    """What ``run`` says while its own first frame compiles the kernels that level
    needs (and no more), in the process that runs it, with its own imports allowed: nothing is
    stepped twice. A sleeping thread prints the line once the start has taken ``NOTICE_AFTER_S``
    (so a cached start, however it got cached, says nothing), then again each ``LINE_EVERY_S`` while
    more of the plan's kernels are done (``first_start.watch``)."""

    def __init__(self, level: Path, stream: TextIO) -> None:
        self.stream = stream
        self._name = level.name
        self._started = time.perf_counter()
        self._kernels: Kernels = None
        self._said = False
        self._stopped = threading.Event()
        self._stop_watching = watch(self._heard)
        self._teller = threading.Thread(target=self._tell, daemon=True)
        self._teller.start()

    def _heard(self, plan: str, compiled: int, planned: int) -> None:
        self._kernels = plan, compiled, planned

    def _tell(self) -> None:
        shown = None
        waited = NOTICE_AFTER_S
        while not self._stopped.wait(waited):
            line = progress_line(0, 1, self._name, self._kernels)
            if line != shown:
                print(line, file=self.stream, flush=True)
                shown, self._said = line, True
            waited = LINE_EVERY_S

    def _stop(self) -> None:
        self._stopped.set()
        self._teller.join()
        self._stop_watching()

    def cancel(self) -> None:
        """Stop the lines without a word: the start failed (a level its kernel checks refuse)."""
        if not self._stopped.is_set():
            self._stop()

    def first_frame_done(self) -> None:
        """Stop the lines, and say how long it took if one was printed (once)."""
        if self._stopped.is_set():
            return
        self._stop()
        if self._said:
            seconds = time.perf_counter() - self._started
            print(f"physics ready in {seconds:.0f} s (once per version)", file=self.stream, flush=True)


_GROUPS = hasattr(os, "killpg")
"""Whether a child can lead a process group of its own that ``Preparation.stop`` ends at once (POSIX;
on Windows only the child is ended, and its second process stops after the kernel it is on)."""


class Preparation:
    """``weft warmup`` in a child process, and its latest progress line, for a window that must keep
    answering input while the kernels compile: of every shipped level (the picker's), or of the
    ``levels`` given (a level about to open: ``overrides`` and ``allow_import`` as it was loaded)."""

    def __init__(
        self, levels: Sequence[Path] = (), overrides: Sequence[str] = (), allow_import: Sequence[str] = ()
    ) -> None:
        shown = [path.name for path in levels] or [path.name for path in warm_levels()]
        self.line = progress_line(0, len(shown), shown[0] if levels else "starting")
        self.started = time.perf_counter()
        options = [f"--set={value}" for value in overrides] + [f"--allow-import={p}" for p in allow_import]
        self._child = subprocess.Popen(
            [sys.executable, "-m", "weft", "warmup", *map(str, levels), *options],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=_GROUPS,  # its second process too is ended with it (``stop``)
        )
        # the pipe is read on a thread that blocks on it (it never spins), so the window never waits
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._child.stderr is not None
        for line in self._child.stderr:
            self.line = line.strip()

    @property
    def done(self) -> bool:
        """Whether the child has finished (the kernels are then in the cache, unless it failed)."""
        return self._child.poll() is not None

    def stop(self) -> None:
        """End the child and the second process compiling beside it (``first_start``), which would
        otherwise finish the kernel it is on, up to seconds more on a core another preparation or
        the level now wants (the window closed, Escape, or another level's preparation first)."""
        if self._child.poll() is None:
            if _GROUPS:
                with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
                    os.killpg(self._child.pid, signal.SIGKILL)
            else:
                self._child.kill()
            self._child.wait()
