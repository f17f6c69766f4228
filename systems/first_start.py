"""A first start's box kernels compiled in two processes at once: the solver in a second one.

With numba's cache empty, the first box step compiles ``step_boxes`` and
every kernel it calls, one after the other: 40 s of the 55-box pyramid's
50 s cold ``run`` here, the solver (``solve_boxes``) alone 27 s. numba
compiles a kernel's callees while it types the kernel (it needs their
return types), so nothing splits that work inside one process, and it
holds the interpreter throughout. But a callee another process has
compiled and cached loads in milliseconds when its caller compiles.

So on the first box step of a build (``for_boxes``: the one-thread twin or
the build for threads) whose step is not cached yet, a second process
compiles the solver (``python -m weft.systems.first_start BUILD``) while
this one compiles every other box kernel of the step, then waits for it:
the step then compiles with both loaded. Which kernels, and for which
argument types, is read off a cold compile of the pyramid levels and kept
in ``first_start.txt`` (``python tests/first_start.py --write``;
``tests/test_first_start.py`` fails when it no longer matches what the
step compiles). A stale or failed second process only costs the time it
took: this one then compiles what is missing, as before.

Off when there is one core to compile on, when ``WEFT_COMPILE_APART=0``,
and in the second process itself.
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

from numba.core import types

from weft.systems.kernels.jit import one_thread

RECORD = Path(__file__).with_name("first_start.txt")
"""The box kernels a cold box step compiles, by build: ``build, role, module, name, signature`` a line
(tab-separated), callees before their callers; roles ``step`` (the build's ``step_boxes``), ``apart``
(the solver, compiled by the second process) and ``here`` (the rest, compiled by this one)."""

SWITCH = "WEFT_COMPILE_APART"
"""Set to ``0`` to compile every kernel in the process that needs it (one core, or to measure)."""

_TYPES = {name: getattr(types, name) for name in dir(types) if not name.startswith("_")} | {
    "bool": types.boolean
}
"""The names a numba signature's ``repr`` uses (``bool`` is numba's ``boolean``)."""


@dataclass(frozen=True)
class Unit:
    """One kernel compiled for one signature, as ``RECORD`` lists it."""

    build: str
    role: str
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
        return tuple(
            eval(self.signature, {"__builtins__": {}}, _TYPES)
        )  # our own file, numba type names only

    def cached(self) -> bool:
        """Whether numba's cache holds this kernel for this signature (read, not loaded)."""
        kernel = self.kernel()
        return kernel._cache.load_overload(self.argument_types(), kernel.targetctx) is not None

    def compile(self) -> None:
        """Compile it (or load it from the cache) for its signature."""
        self.kernel().compile(self.argument_types())


def recorded(build: str) -> list[Unit]:
    """``RECORD``'s units of ``build`` (a step's name: ``step_boxes`` or ``step_boxes_one_thread``)."""
    lines = RECORD.read_text(encoding="utf-8").splitlines()
    units = [Unit(*line.split("\t")) for line in lines if line and not line.startswith("#")]
    return [unit for unit in units if unit.build == build]


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@functools.cache
def compile_step_apart(step: Any) -> None:
    """Before the first call of ``step`` (a build of ``step_boxes``) in this process: when it is not
    cached, the solver compiled in a second process while this one compiles the step's other
    kernels (once a process and build; a no-op when cached, off, or with one core)."""
    if os.environ.get(SWITCH, "1") == "0" or _cores() < 2 or not hasattr(step, "py_func"):
        return
    units = recorded(step.py_func.__qualname__)
    steps = [unit for unit in units if unit.role == "step"]
    if not steps or steps[0].cached():
        return
    environment = {**os.environ, SWITCH: "0"}
    solver = subprocess.Popen(
        [sys.executable, "-m", "weft.systems.first_start", steps[0].build],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
    )
    try:
        for unit in units:
            if unit.role == "here":
                unit.compile()
    except BaseException:
        solver.kill()
        raise
    finally:
        solver.wait()


def main(argv: list[str]) -> int:
    """The second process: compile ``argv[0]``'s ``apart`` units (the solver and what it calls)."""
    for unit in recorded(argv[0]):
        if unit.role == "apart":
            unit.compile()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
