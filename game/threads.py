"""How many of numba's threads a frame of physics runs on: one, unless two measurably beat one here
and now.

Threads pay only in large scenes (the box kernels split their work from
``PARALLEL_BOXES`` boxes, ``PARALLEL_PAIRS`` pairs or ``SPLIT_FROM``
manifolds on, the distance constraints from ``PARALLEL_DISTANCES``:
``threaded``), and only while the machine has a core to spare. With the
other core busy (the game drawing, a browser) a frame on two threads
waits at every join for the thread the busy core runs: the
5050-box pyramid took 210 ms a frame on two threads against 8 ms on one,
and numba's waiting workers spun, taking a busy core from the game. Even
quiet, two threads cost a frame the wake of numba's worker, asleep since the
last frame: a frame's first parallel region, with nothing to do, took 45 µs
here after 0.25 ms away, 90 µs after 5 ms and 300 µs after 10 ms (a game's
frame at 60 Hz). So the step starts on one thread, tries the other count
for a frame now and then, and keeps whichever is faster (``ThreadChoice``).
The clock alone cannot see a second copy of the same scene: each copy on two threads
slows the other's joins, and one thread tried alone, sharing its core
with the other's two, is too little faster to win (the 5050-box
pyramid's 95th-percentile frame went 1.6 times up beside a copy). So
where the system counts its cores' busy time (``/proc/stat``), the step
runs on no more threads than other programs leave cores for
(``OtherLoad``). The thread count never changes a result: the kernels split their work the same way
whatever the count, so the choice, though it reads the clock, keeps every
run bit for bit the same.
"""

from __future__ import annotations

import os
import statistics
import time
from collections import deque

import numba

from weft.components import Stores
from weft.systems.kernels.box_batches import SPLIT_FROM
from weft.systems.kernels.box_contacts import PARALLEL_PAIRS
from weft.systems.kernels.box_grid import PARALLEL_BOXES
from weft.systems.kernels.distance_sides import PARALLEL_DISTANCES
from weft.systems.kernels.grid import PARALLEL_PARTICLES
from weft.systems.kernels.jit import THREADED_FROM, check_thread_count, set_thread_count, thread_count

KEPT_FRAMES = 15
"""Frames of the count in use whose median a trial is compared with."""
TRIAL_FRAMES = 7
"""Frames a trial of the other count lasts (it ends after one frame that is plainly slower)."""
WAKING_FRAMES = 2
"""The first frames of a trial, left out of its median: on more threads they wake numba's worker,
and on a virtual machine the core it runs on, from a sleep as long as the wait since the last
trial. The 80 × 50 cloth's first frames on two threads after 40 on one took 0.60 and 0.48 ms, then
0.40 and below, against 0.57 on one (2026-12-07, this machine); its five-frame trials, the first
frame in, lost to one thread about one time in four, and in a slow minute every time, so the bench
ran it on one thread (0.59 ms a frame, 2.98 times pymunk's; 0.34 on two)."""
PLAINLY_SLOWER = 2.0
"""A trial frame this many times the median of the count in use ends the trial at once."""
BETTER = 0.85
"""The trial's median must be below this share of the kept median to switch."""
FIRST_TRIAL = 20
LAST_WAIT = 1920
"""Frames between trials: ``FIRST_TRIAL`` at first, doubled after every trial that lost (so a busy
machine sees one slow frame every 32 s at most), and back to the first after a switch. A trial
faster than the count in use, though not by enough to switch, keeps the wait: its frames cost
nothing, and the next may find the machine quieter."""
CROWDED_FRAMES = 2
"""Frames in a row plainly slower than the kept median that, on several threads, start a trial of one
at once: something took a core. One such frame alone is a hiccup (a collection, the system): the
80 × 50 cloth on two threads met one every hundred frames or so on a quiet machine, and each sent it
to one thread, a third slower, for 25 frames."""


LOAD_WINDOW_S = 0.25
"""Seconds of wall time the other programs' use of the cores is averaged over: ``/proc/stat`` counts
in hundredths of a second per core, so a quarter second reads it to a tenth of a core or so."""
SPARE_CORE = 0.5
"""The share of a core other programs may keep busy for it to still count as spare: two threads
need the second core for nearly all of a frame, or each join waits for the one that lost it."""


class OtherLoad:
    """How many cores the machine's other programs kept busy lately (``cores``, or None where the
    system does not say, or has not yet: ``says``): the cores' busy time (``/proc/stat``, Linux)
    less this process's own, all its threads counted (``time.process_time``), per second of wall
    time."""

    def __init__(self, stat: str = "/proc/stat") -> None:
        self._stat = stat
        self._tick = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
        self._last = self._read()
        self.says = self._last is not None
        """Whether the system counts its cores' busy time: then ``cores`` is a figure from the
        first ``LOAD_WINDOW_S`` on."""
        self.cores: float | None = None

    def sample(self) -> None:
        """Update ``cores`` if ``LOAD_WINDOW_S`` has passed since it was last read (cheap otherwise)."""
        if self._last is None or time.perf_counter() - self._last[0] < LOAD_WINDOW_S:
            return
        now = self._read()
        if now is None:
            self._last = None
            return
        wall, busy, own = (b - a for a, b in zip(self._last, now, strict=True))
        self.cores = max(0.0, (busy - own) / wall)
        self._last = now

    def _read(self) -> tuple[float, float, float] | None:
        """Wall seconds, the cores' busy seconds and this process's CPU seconds, now."""
        try:
            with open(self._stat, "rb") as stat:
                fields = stat.readline().split()
            ticks = [int(field) for field in fields[1:9]]  # user nice system idle iowait irq softirq steal
        except (OSError, ValueError):
            return None
        if fields[:1] != [b"cpu"] or len(ticks) < 5:
            return None
        busy = sum(ticks) - ticks[3] - ticks[4]  # all but idle and waiting for the disk
        return time.perf_counter(), busy * self._tick, time.process_time()


def threaded(stores: Stores) -> bool:
    """Whether a kernel may split this scene's work across threads: a scene that runs the box
    kernels built for threads (``THREADED_FROM``) with many boxes, or many contact points (as many
    as manifolds at least, as pairs at most twice), or one with many distance constraints (a large
    cloth, relaxed in two sides at once), or many particles binned (their pairs searched in two
    halves at once, ``broadphase.splits_pair_search``: as many as last frame binned)."""
    if stores.distances.count >= PARALLEL_DISTANCES or stores.broadphase.count >= PARALLEL_PARTICLES:
        return True
    many_points = stores.contacts.count >= min(SPLIT_FROM, 2 * PARALLEL_PAIRS)
    boxes = stores.rigid.count
    return boxes >= THREADED_FROM and (boxes >= PARALLEL_BOXES or many_points)


class ThreadChoice:
    """The thread count for the next frame (``threads``) and what a frame took on it (``record``).

    Scenes with no threaded path run on one thread, and record nothing.
    Large ones start on one and try ``most`` after ``FIRST_TRIAL`` frames.
    No more threads run than other programs leave cores for (``load``, an ``OtherLoad``): on two,
    a program taking a core sends the step to one thread at once, and none is tried while it lasts.
    ``pin`` fixes the count instead (``None``: choose again).
    """

    def __init__(self, most: int | None = None, load: OtherLoad | None = None) -> None:
        self.most = numba.config.NUMBA_NUM_THREADS if most is None else most
        self.load = OtherLoad() if load is None else load
        self.pinned: int | None = None
        self.current = 1
        self._kept: deque[float] = deque(maxlen=KEPT_FRAMES)
        self._trial: list[float] = []
        self._trying = 0
        """The count on trial (0: none)."""
        self._wait = FIRST_TRIAL
        self._since = 0
        self._slow = 0
        """Frames in a row plainly slower than the kept median (``CROWDED_FRAMES``)."""

    def pin(self, count: int | None) -> None:
        """Run every frame on ``count`` threads (1 to numba's ``NUMBA_NUM_THREADS``), or choose again."""
        if count is not None:
            check_thread_count(count, "threads")
        self.pinned = count

    def threads(self, large: bool) -> int:
        """How many threads the next frame runs on (``large``: the scene is ``threaded``)."""
        if self.pinned is not None:
            return self.pinned
        if not large or self.most < 2:
            return 1
        return self._trying or self.current

    def spare(self) -> int:
        """Threads the machine has cores for now: ``most``, less the cores other programs keep busy
        (``SPARE_CORE`` of a core busy still counts as spare); ``most`` where the system does not
        say, one until it first has (a trial of two on a busy machine costs a frame of several ms:
        a quarter second of patience costs nothing)."""
        others = self.load.cores
        if others is None:
            return 1 if self.load.says else self.most
        return max(1, min(self.most, int(self.most - others + 1.0 - SPARE_CORE)))

    def record(self, large: bool, ms: float) -> None:
        """The frame just run took ``ms`` milliseconds of physics."""
        if self.pinned is not None or not large or self.most < 2:
            return
        self.load.sample()
        if not self._trying:
            if self.current > self.spare():  # another program took a core: one thread at once
                self.current, self._since, self._slow, self._wait = 1, 0, 0, FIRST_TRIAL
                self._kept.clear()
                return
            full = len(self._kept) == KEPT_FRAMES
            slow = full and self.current > 1 and ms > PLAINLY_SLOWER * statistics.median(self._kept)
            self._slow = self._slow + 1 if slow else 0
            # several threads and frames suddenly slow: something took a core, try one thread now
            crowded = self._slow >= CROWDED_FRAMES
            if crowded:
                self._kept.clear()  # the frames before are no measure of the machine now
                self._slow = 0
            self._kept.append(ms)
            self._since += 1
            if crowded:
                self._trying, self._trial = 1, []
            elif full and self._since >= self._wait:
                other = 1 if self.current > 1 else self.spare()
                if other != self.current:
                    self._trying, self._trial = other, []
                else:  # no core to spare for a trial: wait as long again
                    self._since = 0
            return
        self._trial.append(ms)
        kept = statistics.median(self._kept)
        if ms > PLAINLY_SLOWER * kept:
            self._end_trial(switch=False)
        elif len(self._trial) == TRIAL_FRAMES:
            tried = statistics.median(self._trial[WAKING_FRAMES:])
            self._end_trial(switch=tried < BETTER * kept, faster=tried < kept)

    def _end_trial(self, switch: bool, faster: bool = False) -> None:
        if switch:
            self.current = self._trying
            self._kept = deque(self._trial[WAKING_FRAMES:], maxlen=KEPT_FRAMES)
            self._wait = FIRST_TRIAL
        elif not faster:
            self._wait = min(2 * self._wait, LAST_WAIT)
        self._trying, self._since, self._trial = 0, 0, []


class numba_threads:  # lower case, as contextlib's context managers are
    """numba's kernels called from this thread run on ``count`` threads within the ``with``; the
    count the host had is put back after (it is numba's setting for the calling thread). A class, not
    a generator: the frame enters it once, and a frame taken in turns with pymunk's felt the
    generator's calls."""

    __slots__ = ("count", "previous")

    def __init__(self, count: int) -> None:
        self.count = count
        self.previous = count

    def __enter__(self) -> None:
        self.previous = thread_count()
        if self.previous != self.count:
            set_thread_count(self.count)

    def __exit__(self, *_: object) -> None:
        if self.previous != self.count:
            set_thread_count(self.previous)
