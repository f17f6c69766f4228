"""A first start's kernels compiled in two processes at once, on both cores.

With numba's cache empty, a level's first frame compiles every kernel it
calls, one after the other, holding the interpreter: 50 s for the 55-box
pyramid here, 40 s of it the box step (``step_boxes``) with all it calls,
the solver (``solve_boxes``) alone 27 s. numba compiles a kernel's callees
while it types the kernel (it needs their return types), so nothing splits
that work inside one process. But a kernel another process has compiled
and cached loads in milliseconds when its caller compiles.

So when a plan's kernels are not cached yet, a second process
(``python -m weft.systems.first_start PLAN``) compiles part of them while
this one compiles the rest, and this one then compiles what needs both
(the box step, over the solver the second process made). The plans are
read off cold compiles of the shipped levels and kept in
``first_start.txt`` (``python tests/first_start.py --write``;
``tests/test_first_start.py`` fails when one no longer matches what the
levels compile): one for each build of the box step (``for_boxes``),
which the boxes system runs before its first step in any scene, and one
for each shipped level that takes long, which ``run`` and ``warmup`` run
before its first frame. A stale plan or a failed second process costs
only the time it took: the frame then compiles what is missing, as
before.

Off when there is one core to compile on, when ``WEFT_COMPILE_APART=0``,
in the second process itself, and in a frozen application (whose
executable is not a Python that runs modules).
"""

from __future__ import annotations

import functools
import importlib
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
from numba.core import types

from weft.systems.kernels.jit import one_thread

RECORD = Path(__file__).with_name("first_start.txt")
"""The kernels cold starts compile, by plan: ``plan, role, seconds, module, name, signature`` a line
(tab-separated). A plan is a build of the box step (``step_boxes``, ``step_boxes_one_thread``: any
scene with boxes) or a shipped level (``level NAME``); its roles are ``apart`` (the second process
compiles it), ``here`` (this one, meanwhile) and ``after`` (this one, once both are done); the
seconds are what it took in one process when recorded."""

WAIT_S = 600.0
"""The longest this process waits for the second one (a cold plan takes 10-40 s here, two minutes on
a busy machine): past it the second process is ended and the frame compiles what is missing."""

SWITCH = "WEFT_COMPILE_APART"
"""Set to ``0`` to compile every kernel in the process that needs it (one core, or to measure)."""

_TYPES = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")} | {
    "bool": types.boolean
}
"""The names a numba signature's ``repr`` uses (``bool`` is numba's ``boolean``)."""


@dataclass(frozen=True)
class Unit:
    """One kernel compiled for one signature, as ``RECORD`` lists it."""

    plan: str
    role: str
    seconds: float
    module: str
    name: str
    signature: str

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
        """Whether numba's cache holds this kernel for this signature (read, not loaded)."""
        kernel = self.kernel()
        return kernel._cache.load_overload(self.argument_types(), kernel.targetctx) is not None

    def compile(self) -> None:
        """Compile it (or load it from the cache) for its signature."""
        self.kernel().compile(self.argument_types())


def _units() -> list[Unit]:
    units = []
    for line in RECORD.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            plan, role, seconds, *kernel = line.split("\t")
            units.append(Unit(plan, role, float(seconds), *kernel))
    return units


def recorded(plan: str) -> list[Unit]:
    """``RECORD``'s units of ``plan``, in the order each process compiles them."""
    return [unit for unit in _units() if unit.plan == plan]


def plans() -> list[str]:
    """The names of ``RECORD``'s plans, sorted."""
    return sorted({unit.plan for unit in _units()})


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@functools.cache
def compile_apart(plan: str) -> None:
    """Compile ``plan``'s kernels in two processes when they are not cached: the second compiles its
    ``apart`` units while this one compiles its ``here`` units, then this one its ``after`` units
    (once a process and plan; a no-op when its longest kernel is cached, with no such plan, when
    off, or with one core to compile on)."""
    # a frozen application's executable is the application, not a Python to run a module with
    if os.environ.get(SWITCH, "1") == "0" or _cores() < 2 or getattr(sys, "frozen", False):
        return
    if numba.config.DISABLE_JIT:  # kernels are plain Python: nothing compiles
        return
    units = recorded(plan)
    if not units or max(units, key=lambda unit: unit.seconds).cached():
        return
    try:
        second = subprocess.Popen(
            [sys.executable, "-m", "weft.systems.first_start", plan],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, SWITCH: "0"},
        )
    except OSError:  # no second process: the frame compiles it all here, as without a plan
        return
    try:
        for unit in units:
            if unit.role == "here":
                unit.compile()
    except BaseException:
        second.kill()
        raise
    finally:
        try:
            second.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:  # stuck: what it has not cached, the frame compiles
            second.kill()
            second.wait()
    for unit in units:
        if unit.role == "after":
            unit.compile()


def compile_step_apart(step: Any) -> None:
    """Before a call of ``step`` (a build of ``step_boxes``): its plan (``compile_apart``)."""
    if hasattr(step, "py_func"):  # not with NUMBA_DISABLE_JIT, where it is a plain function
        compile_apart(step.py_func.__qualname__)


def main(argv: list[str]) -> int:
    """The second process: compile the ``apart`` units of plan ``argv[0]``."""
    for unit in recorded(argv[0]):
        if unit.role == "apart":
            unit.compile()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
