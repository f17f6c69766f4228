"""A first start's kernels compiled in two processes at once, on both cores.

With numba's cache empty, a level's first frame compiles every kernel it
calls, one after the other, holding the interpreter: 24 s for the 55-box
pyramid here, 21 s of it the box step (``step_boxes``) with all it calls.
numba compiles a kernel's callees while it types the kernel (it needs
their return types), so nothing splits that work inside one process. But
a kernel another process has compiled and cached loads in milliseconds
when its caller compiles.

So when a plan's kernels are not cached yet, a second process
(``python -m weft.systems.first_start PLAN...``) compiles its side of them
while this one compiles the other. A plan is a schedule of the kernels'
call graph over the two processes: each kernel compiles once its callees
are done, on the side where it finishes soonest, the kernels with the
longest chain of callers above them first (list scheduling by critical
path). Before a kernel whose callees the other side compiles, a process
waits until the other says they are done (each tells the other, through
a pipe, the kernel it has just cached), or meanwhile compiles a later
kernel of its side that waits on nothing. A side whose own kernels are
all done asks the other for its last ones, and compiles those the other
grants, not having started them: the host runs the two processes at
speeds that differ from the record's, and numba's own helpers compile
in each process that needs them, so the sides end apart (a cold rag
doll's by 0.4 and 2.4 s in two runs; within 0.1 s so). The 55-box pyramid's 24 s of
compiling took 17 s on two cores as a split into two halves and the box
step after them; scheduled so, 13 s.

The plans are read off cold compiles of the shipped levels and kept in
``first_start.txt`` (``python tests/first_start.py --write``;
``tests/test_first_start.py`` fails when one no longer matches what the
levels compile): one for each build of the box step (``for_boxes``),
which the boxes system runs before its first step in any scene, and one
for each shipped level that takes long, which ``run`` and ``warmup`` run
before its first frame; ``warmup`` runs it with the level's play plan
(``PLAY``: the tools' kernels and the rest that playing it once compiles
besides), and those of several levels as one (``recorded(*plans)``). A
stale plan or a failed second process costs
only the time it took: the frame then compiles what is missing, as
before.

Off when there is one core to compile on, when ``WEFT_COMPILE_APART=0``,
in the second process itself, and in a frozen application (whose
executable is not a Python that runs modules).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import numba
from numba.core import types
from numba.core.errors import NumbaError

from weft.systems.kernels.jit import one_thread

RECORD = Path(__file__).with_name("first_start.txt")
"""The kernels cold starts compile, by plan: ``plan, side, seconds, calls, module, name, signature``
a line (tab-separated). A plan is a build of the box step (``step_boxes``, ``step_boxes_one_thread``:
any scene with boxes), a shipped level (``level NAME``) or what playing one once compiles besides
(``play NAME``, after its level plan: ``PLAY``); its lines are in the order the plan was
scheduled in, and each side (``here``: this process, ``apart``: the second) compiles its lines in
that order. ``seconds`` is what the kernel took with its callees cached, when recorded; ``calls``
the plan's kernels it calls, by their place among the plan's lines (``-``: none; a play plan's
places go on from its level plan's). A line
``features, plan, features`` says what decides the kernels a level plan's frames need
(``weft.game.warmup.level_features``): a level with no plan of its own borrows one that matches."""

RECORDED_FRAMES = 600
"""The frames of each shipped level a plan is read off (``tests/first_start.py``): ten seconds, so
the kernels a level first calls a while in (a rag doll's limb reaching a crate: the braces, the push
out of boxes) are in it. Read off the first frame only, they compiled after the plan, in one process
while the other core idled: 5 of a cold rag doll's 26 s (2026-12-07)."""

PLAY = "play "
"""How a level's play plan is named (``play NAME``): the kernels its preparation compiles besides
its frames' (``weft.game.warmup.play_once``), scheduled after its level plan (``level NAME``), whose
places its own go on from; read with it (``recorded``)."""

FEATURES = "features"
"""The first field of a ``RECORD`` line that gives a level plan's features, not a kernel."""

WAIT_S = 600.0
"""The longest a plan may take (a cold one takes 10-20 s here, two minutes on a busy machine): past
it neither process waits for the other any more, the second is ended, and the frame compiles what is
missing."""

SWITCH = "WEFT_COMPILE_APART"
"""Set to ``0`` to compile every kernel in the process that needs it (one core, or to measure)."""

ASK, GRANT, DENY = "ask", "grant", "deny"
"""The words of a line ``WORD PLACE`` between the sides beside a unit done (a line ``PLACE``): a side
whose own units are all done asks for one of the other's (``ASK``), which the other grants unless it
has started it, and then never starts it (``compile_side``)."""

HERE, APART = SIDES = ("here", "apart")
"""A plan's two sides: this process (the one whose frame needs the kernels) and the second."""

STALE = (NumbaError, AttributeError, NameError, SyntaxError, TypeError)
"""What a plan's line gives when the kernels have changed since it was recorded: a kernel renamed
(``AttributeError``), a signature it no longer takes (numba's errors, ``TypeError``) or that numba's
types cannot name (``NameError``, ``SyntaxError``). Such a line is passed over, never an error: the
frame compiles what it needs."""

_TYPES = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")} | {
    "bool": types.boolean
}
"""The names a numba signature's ``repr`` uses (``bool`` is numba's ``boolean``)."""


@dataclasses.dataclass(frozen=True)
class Unit:
    """One kernel compiled for one signature, as ``RECORD`` lists it."""

    plan: str
    side: str
    seconds: float
    calls: tuple[int, ...]
    module: str
    name: str
    signature: str
    after: tuple[int, ...] = ()
    """The plan's units of the same kernel for other signatures on the other side, before it by
    place (``recorded``): numba keeps a kernel's signatures in one cache index, which two processes
    saving at once can each write over the other's, losing one entry or naming one signature's
    code for the other's. So a kernel's signatures compile one at a time."""

    def needs(self) -> tuple[int, ...]:
        """The units that must be done before it: those it calls, and ``after``."""
        return self.calls + self.after

    def kernel(self) -> Any:
        """The dispatcher (a one-thread twin is found through the kernel it was made from)."""
        module = importlib.import_module(self.module)
        if self.name.endswith("_one_thread") and not hasattr(module, self.name):
            return one_thread(getattr(module, self.name.removesuffix("_one_thread")))
        return getattr(module, self.name)

    def argument_types(self) -> tuple[Any, ...]:
        """The signature as numba types (``eval`` of numba's own ``repr``, numba's type names only)."""
        return tuple(eval(self.signature, {"__builtins__": {}}, _TYPES))

    def cached(self) -> bool:
        """Whether numba's cache holds this kernel for this signature: its cache index is read, its
        code is not loaded (loading each root of the cloth's plan to tell took 31 ms of a warm start)."""
        kernel = self.kernel()
        cache = kernel._cache
        key = cache._index_key(self.argument_types(), kernel.targetctx.codegen())
        return key in cache._cache_file._load_index()

    def compile(self) -> None:
        """Compile it (or load it from the cache) for its signature."""
        self.kernel().compile(self.argument_types())


@functools.cache
def _lines() -> list[list[str]]:
    """``RECORD``'s lines, split at the tabs (comments and empty lines left out); read once, as the
    installed file does not change under a running process (the recorder writes it from another)."""
    text = RECORD.read_text(encoding="utf-8")
    return [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]


@functools.cache
def _units() -> tuple[Unit, ...]:
    """``RECORD``'s units, every plan's (made once: several plans read at once each look through
    them, 0.1 s for every level's when made again each time)."""
    units = []
    for fields in _lines():
        if fields[0] != FEATURES:
            plan, side, seconds, calls, *kernel = fields
            called = () if calls == "-" else tuple(int(k) for k in calls.split(","))
            units.append(Unit(plan, side, float(seconds), called, *kernel))
    return tuple(units)


def recorded(*names: str) -> list[Unit]:
    """``RECORD``'s units of the plan ``names`` (or of several, one after the other: a kernel in more
    than one once, where first met; a play plan after its level plan, ``PLAY``), each plan's in the
    order it was scheduled; ``calls`` and ``after`` index this list."""
    units: list[Unit] = []
    places: dict[tuple[str, str, str], int] = {}

    def key(unit: Unit) -> tuple[str, str, str]:
        return unit.module, unit.name, unit.signature

    for name in names:
        # a play plan comes with its level plan, whose places its own go on from
        chain = [f"level {name.removeprefix(PLAY)}", name] if name.startswith(PLAY) else [name]
        lookup: list[Unit] = []
        for plan in chain:
            lines = [unit for unit in _units() if unit.plan == plan]
            lookup += lines
            for unit in lines:
                if key(unit) not in places:
                    called = tuple(places[key(lookup[k])] for k in unit.calls)
                    places[key(unit)] = len(units)
                    units.append(dataclasses.replace(unit, calls=called))
    return signatures_in_turn(units)


def signatures_in_turn(units: Sequence[Unit]) -> list[Unit]:
    """``units``, each one ``after`` the units before it of the same kernel on the other side."""
    return [
        dataclasses.replace(
            unit,
            after=tuple(
                k
                for k, other in enumerate(units[:place])
                if (other.module, other.name) == (unit.module, unit.name) and other.side != unit.side
            ),
        )
        for place, unit in enumerate(units)
    ]


def plans() -> list[str]:
    """The names of ``RECORD``'s plans, sorted."""
    return sorted({unit.plan for unit in _units()})


def plan_like(features: str) -> str | None:
    """The level plan recorded with ``features`` (the one of fewest kernels where several are), or
    None: the plan a level without one of its own borrows."""
    alike = [fields[1] for fields in _lines() if fields[0] == FEATURES and fields[2:] == [features]]
    return min(alike, key=lambda plan: (len(recorded(plan)), plan), default=None)


def roots(units: Sequence[Unit]) -> list[Unit]:
    """The units no other unit of the plan calls: once they are all cached, so is every callee."""
    called = {k for unit in units for k in unit.calls}
    return [unit for k, unit in enumerate(units) if k not in called]


def load_cached(*plans: str) -> int:
    """Load from numba's cache the roots of ``plans`` (``recorded``) that it holds and this process
    has not loaded yet; how many it loaded. Never compiles: a root not cached (or one the record
    names wrong, or a cache it cannot read) is left to its first call.

    The roots are the kernels called from Python (their callees come inside them). Loaded on its
    first call instead, a kernel a level first calls a while in holds that frame up: the rag doll's
    pushes out of boxes, at its 28th frame, 15-24 ms; a tool's, on its first use. Loaded before the
    first frame, the rag doll's took 108 ms, which its first frame had taken otherwise (103). A
    callee Python calls too (``box_memory.work_sizes``) still loads on that call: a few ms; loading
    every callee as well would take each 2-4 ms more."""
    if numba.config.DISABLE_JIT:  # kernels are plain Python: nothing to load
        return 0
    loaded = 0
    for unit in roots(recorded(*plans)):
        try:
            if unit.argument_types() in unit.kernel().overloads or not unit.cached():
                continue
            unit.compile()
        except (*STALE, OSError):  # stale, or a cache it cannot read: its first call sees to it
            continue
        loaded += 1
    return loaded


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Heard:
    """What the other process has said it compiled: the units' places, read off ``stream`` one a
    line by a thread of its own (which passes each to ``news``), so waiting for one sleeps (no
    polling) until it is said, the stream ends (the other is done or gone) or the plan's time is
    up."""

    def __init__(self, stream: IO[str], deadline: float, news: Callable[[int], None] | None = None) -> None:
        self._done: set[int] = set()
        self._answers: dict[int, bool] = {}
        self._on_news = news
        self._on_ask: Callable[[int], None] | None = None
        self._asked: list[int] = []
        self._ended = False
        self._deadline = deadline
        self._news = threading.Condition()
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: IO[str]) -> None:
        try:
            for line in stream:
                word, _, number = line.strip().partition(" ")
                if word.isdigit():
                    self._heard_done(int(word))
                elif word == ASK and number.isdigit():
                    self._heard_ask(int(number))
                elif word in (GRANT, DENY) and number.isdigit():
                    with self._news:
                        self._answers[int(number)] = word == GRANT
                        self._news.notify_all()
        except (OSError, ValueError):  # the pipe broke or was closed under us: the same as its end
            pass
        finally:
            with self._news:
                self._ended = True
                self._news.notify_all()

    def _heard_done(self, place: int) -> None:
        with self._news:
            self._done.add(place)
            self._news.notify_all()
        if self._on_news is not None:
            self._on_news(place)

    def _heard_ask(self, place: int) -> None:
        with self._news:
            answer = self._on_ask
            if answer is None:  # this side has not started yet: it answers once it does
                self._asked.append(place)
                return
        answer(place)

    def answer_with(self, answer: Callable[[int], None]) -> None:
        """Have ``answer(place)`` called (on the reader's thread) for each unit the other asks to
        compile in this side's stead (``ASK``), those asked before too."""
        with self._news:
            self._on_ask = answer
            asked, self._asked = self._asked, []
        for place in asked:
            answer(place)

    def granted(self, place: int) -> bool:
        """Wait for the other's answer to this side's ``ASK`` for ``place``: whether it may compile
        it (no once the other is silent for good or time is up)."""
        with self._news:
            self._news.wait_for(
                lambda: place in self._answers or self._ended,
                timeout=max(0.0, self._deadline - time.monotonic()),
            )
            return self._answers.get(place, False)

    def done(self, place: int) -> bool:
        """Whether the other has said ``place`` is done."""
        with self._news:
            return place in self._done

    def silent(self) -> bool:
        """Whether the other has ended its stream or the plan's time is up: nothing more to ask."""
        with self._news:
            return self._ended or time.monotonic() > self._deadline

    def first_ready(self, needs: Sequence[Sequence[int]]) -> int:
        """The index of the first of ``needs`` (each the places of the other's units one unit
        waits for: ``Unit.needs``) whose units are all done, once one is; ``0`` once the other is
        silent for good or time is up (then the caller compiles that one, and numba what it
        misses)."""

        def ready() -> int | None:
            return next((k for k, places in enumerate(needs) if self._done.issuperset(places)), None)

        with self._news:
            self._news.wait_for(
                lambda: self._ended or ready() is not None,
                timeout=max(0.0, self._deadline - time.monotonic()),
            )
            return ready() or 0

    def left_before(self, places: Sequence[int]) -> bool:
        """Whether the other ended its stream before saying every unit in ``places`` was done: it
        failed or was ended (a window closed, a level left while it compiled)."""
        with self._news:
            return self._ended and not self._done.issuperset(places)

    def finished(self, timeout: float) -> bool:
        """Wait until the stream ends (the other process has compiled its side) or ``timeout``."""
        self._reader.join(timeout)
        return not self._reader.is_alive()


Report = Callable[[str, int, int], None]
"""``report(plan, kernels done, kernels in the plan)``: how far a plan compiling in this process is."""

_WATCHERS: list[Report] = []


def watch(report: Report) -> Callable[[], None]:
    """Call ``report`` once a plan starts compiling in this process and again as each of its kernels
    is done on either side (from the thread that learnt it: keep it short); returns what stops it."""
    _WATCHERS.append(report)
    return lambda: _WATCHERS.remove(report)


def count_units(plan: str, total: int) -> Callable[[int], None]:
    """A ``count(place)`` of a plan's units done on either side, which tells the watchers
    (``watch``) each time; they hear ``0 of total`` at once."""
    done: set[int] = set()
    lock = threading.Lock()

    def count(place: int) -> None:
        with lock:
            done.add(place)
            so_far = len(done)
        for report in list(_WATCHERS):
            report(plan, so_far, total)

    for report in list(_WATCHERS):
        report(plan, 0, total)
    return count


Tell = Callable[[int | str], None]
"""``tell(place)``: a unit done; ``tell("WORD PLACE")``: an ``ASK`` or its answer."""


class _Claims:
    """A side's units it has started and those it gave the other (``ASK``): each unit is one or
    the other, never both, so no unit compiles in both processes (the other asks from its reader
    thread, while this side's own thread starts units)."""

    def __init__(self, units: Sequence[Unit], side: str) -> None:
        self._lock = threading.Lock()
        self._mine = {place for place, unit in enumerate(units) if unit.side == side}
        self._started: set[int] = set()
        self._given: set[int] = set()

    def start(self, place: int) -> bool:
        """Whether this side may compile ``place`` (it was not given): then it is started."""
        with self._lock:
            if place in self._given:
                return False
            self._started.add(place)
            return True

    def give(self, place: int) -> bool:
        """Whether the other may compile ``place``, this side's and not started: then it is given."""
        with self._lock:
            if place not in self._mine or place in self._started or place in self._given:
                return False
            self._given.add(place)
            return True

    def gave(self, place: int) -> bool:
        """Whether ``place`` was given the other."""
        with self._lock:
            return place in self._given


def compile_side(units: Sequence[Unit], side: str, heard: Heard, tell: Tell, alone: bool = True) -> None:
    """Compile ``side``'s units, each once the units it needs are done (``Unit.needs``; the other
    side's heard done): in order, but for one that waits on the other side, when a later one can go
    first; telling the other each one compiled (``tell(place)``). Then, its own done, it takes the
    other's last units the other has not started (``steal``). Without the other (it left before its
    side was done) it goes on ``alone``, or stops: the second process stops, since nobody waits for
    what it would compile (this one goes on: its frame needs them)."""
    theirs = [place for place, unit in enumerate(units) if unit.side != side]
    left = [place for place, unit in enumerate(units) if unit.side == side]
    claims = _Claims(units, side)
    compiled: set[int] = set()

    def answer(place: int) -> None:
        tell(f"{GRANT if claims.give(place) else DENY} {place}")

    def gone() -> bool:  # the other left before its side was done: the second process stops too
        return not alone and heard.left_before([k for k in theirs if k not in compiled])

    heard.answer_with(answer)
    while left := [place for place in left if not claims.gave(place)]:  # the other compiles those
        # the first in order whose needs are done goes next: one that waits on the other side
        # lets a later one of this side's go first, where the side would idle (the other side's
        # kernels take longer or shorter than recorded, with the host's speed, and as numba's own
        # helpers compile in whichever process first needs them)
        can = [place for place in left if not any(k in left for k in units[place].needs())]
        place = can[heard.first_ready([[k for k in units[p].needs() if k not in compiled] for p in can])]
        if gone():
            return
        if claims.start(place):  # else given the other meanwhile
            _compile(units[place], tell, place)
            compiled.add(place)
            left.remove(place)
    if not gone():
        steal(units, theirs, heard, tell, compiled)


def steal(units: Sequence[Unit], theirs: Sequence[int], heard: Heard, tell: Tell, compiled: set[int]) -> None:
    """With its own units done, a side compiles the other's it may: the last first (the other comes
    to them last), each whose needs are done, asked for and granted (``ASK``) first, until none is
    left to ask. Not a kernel the plan compiles for other signatures too, whose units must go one
    at a time in order (``Unit.after``). A cold rag doll's two sides, split as recorded, ended 0.4 and
    2.4 s apart in two runs (2026-12-07): the one that ended first idled."""
    kernels = Counter((unit.module, unit.name) for unit in units)
    refused: set[int] = set()
    while not heard.silent():
        ready = [
            place
            for place in reversed(theirs)
            if place not in refused
            and place not in compiled
            and kernels[units[place].module, units[place].name] == 1
            and not heard.done(place)
            and all(k in compiled or heard.done(k) for k in units[place].needs())
        ]
        if not ready:
            return
        place = ready[0]
        tell(f"{ASK} {place}")
        if not heard.granted(place):  # started by the other already
            refused.add(place)
            continue
        _compile(units[place], tell, place)
        compiled.add(place)


def _compile(unit: Unit, tell: Tell, place: int) -> None:
    # a stale plan (a kernel changed or renamed since): the frame compiles what it needs
    with contextlib.suppress(*STALE):
        unit.compile()
    tell(place)  # done either way: the other must not wait on it


def teller(stream: IO[str]) -> Tell:
    """A ``tell`` for ``compile_side`` that writes each message on a line of ``stream``, flushed (from
    either of a side's threads: its own, and its reader's answers)."""
    lock = threading.Lock()

    def tell(message: int | str) -> None:
        try:
            with lock:
                stream.write(f"{message}\n")
                stream.flush()
        except (OSError, ValueError):  # the other is gone: it needs no news
            pass

    return tell


@functools.cache
def compile_apart(*plans: str) -> None:
    """Compile the kernels of ``plans`` (one, or several at once: ``recorded``) in two processes when
    they are not cached: the second their ``apart`` side while this one their ``here`` side, telling
    the watchers (``watch``) how far they are, as the plan ``" + ".join(plans)`` (once a process and
    plans; a no-op when every root is cached, with no such plan, when off, or with one core to
    compile on)."""
    # a frozen application's executable is the application, not a Python to run a module with
    if os.environ.get(SWITCH, "1") == "0" or _cores() < 2 or getattr(sys, "frozen", False):
        return
    if numba.config.DISABLE_JIT:  # kernels are plain Python: nothing compiles
        return
    units = recorded(*plans)
    try:
        cached = all(unit.cached() for unit in roots(units))
    except (*STALE, OSError):  # a root the record names wrong, or a cache it cannot read: compile
        cached = False
    if not units or cached:
        return
    try:
        second = subprocess.Popen(
            [sys.executable, "-m", "weft.systems.first_start", *plans],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, SWITCH: "0"},
            text=True,
        )
    except OSError:  # no second process: the frame compiles it all here, as without a plan
        return
    assert second.stdin is not None and second.stdout is not None
    deadline = time.monotonic() + WAIT_S
    count = count_units(" + ".join(plans), len(units))
    heard = Heard(second.stdout, deadline, count)
    tell = teller(second.stdin)

    def tell_and_count(message: int | str) -> None:
        tell(message)
        if isinstance(message, int):  # a unit done, not an ask or an answer
            count(message)

    try:
        compile_side(units, HERE, heard, tell_and_count)
    except BaseException:
        second.kill()
        raise
    finally:
        with contextlib.suppress(OSError):  # the second is done already: its end of the pipe is shut
            second.stdin.close()  # nothing more to hear from this side
        if not heard.finished(max(0.0, deadline - time.monotonic())):
            second.kill()  # stuck: what it has not cached, the frame compiles
        second.wait()
        second.stdout.close()


def compile_step_apart(step: Any) -> None:
    """Before a call of ``step`` (a build of ``step_boxes``): its plan (``compile_apart``)."""
    if hasattr(step, "py_func"):  # not with NUMBA_DISABLE_JIT, where it is a plain function
        compile_apart(step.py_func.__qualname__)


def main(argv: list[str]) -> int:
    """The second process: compile the ``apart`` side of the plans ``argv``, hearing this one's
    ``here`` side on stdin and telling its own on stdout; it stops if this one leaves first."""
    heard = Heard(sys.stdin, time.monotonic() + WAIT_S)
    compile_side(recorded(*argv), APART, heard, teller(sys.stdout), alone=False)
    with contextlib.suppress(OSError):  # this one is done and gone: nobody to tell
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    # Its kernels are in the cache (numba writes each as it compiles): nothing is left to tidy up.
    # Leaving without the interpreter's teardown ends the pipe at once, where the teardown of all it
    # compiled kept the first process waiting 0.8 s more (the pipe ends when the process does:
    # closing ``sys.stdout`` leaves its file descriptor open).
    os._exit(main(sys.argv[1:]))
