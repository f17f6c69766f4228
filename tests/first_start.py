"""Record the plans of ``systems/first_start.py``: ``python tests/first_start.py [--write]``.

Runs ``weft run LEVEL --frames 1`` for every shipped level with an empty
numba cache, in one process (``WEFT_COMPILE_APART=0``), and logs numba's
compile events: which of our kernels compile, for which argument types,
inside which, and for how long. From each log it makes a plan
(``plan_lines``) for the level when it took ``SPLIT_FROM_S`` or more, and
for the box step's build the pyramid (one-thread twins) and the large
pyramid (the build for threads) run. ``--write`` stores them in
``systems/first_start.txt`` (else they are printed). Re-record after
changing what a level's systems pass to their kernels:
``tests/test_first_start.py`` fails until then. Takes about ten minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from weft.systems.first_start import RECORD

ROOT = Path(__file__).resolve().parents[1]
BUILDS = {"step_boxes_one_thread": "pyramid.toml", "step_boxes": "large_pyramid.toml"}
"""A level for each build of the box step (its plan serves any scene with boxes)."""
SPLIT_FROM_S = 8.0
"""A shipped level whose kernels compile in this long or more (one process) gets a plan of its own."""
HEADER = "the kernels a cold start compiles, split in two processes (systems/first_start.py)"

LOGGER = """
import json, sys, time
from numba.core import event
log, stack = [], []
class Log(event.Listener):
    def on_start(self, ev):
        func = ev.data["dispatcher"].py_func
        stack.append(len(log))
        log.append({"module": func.__module__, "name": func.__qualname__,
                    "signature": repr(tuple(ev.data["args"])), "inside": [log[k]["id"] for k in stack[:-1]],
                    "id": len(log), "start": time.perf_counter()})
    def on_end(self, ev):
        entry = log[stack.pop()]
        entry["seconds"] = time.perf_counter() - entry.pop("start")
event.register("numba:compile", Log())
from weft.game.cli import main
main(["run", sys.argv[1], "--frames", "1"])
print(json.dumps(log), file=sys.stderr)
"""


def compile_log(level: Path) -> list[dict]:
    """The compile events of a cold one-frame run of ``level`` (every kernel compiled in-process)."""
    with tempfile.TemporaryDirectory(prefix="weft-record-") as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache, "WEFT_COMPILE_APART": "0"}
        done = subprocess.run(
            [sys.executable, "-c", LOGGER, str(level)],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(done.stderr.strip().splitlines()[-1])


def own(entry: dict) -> bool:
    return entry["module"].startswith("weft.")


def callees(entry: dict, log: list[dict]) -> list[dict]:
    """Our kernels ``entry`` compiled directly, in the order it reached them."""
    return [e for e in log if e["inside"] and e["inside"][-1] == entry["id"] and own(e)]


def plan_lines(plan: str, log: list[dict]) -> list[str]:
    """``plan``'s record lines from a cold compile log: the kernels split over two processes.

    Each of our kernels the frame compiled at the top is a job, except the
    box step, whose own callees are jobs (the solver always in the second
    process) and which compiles after both (``after``). Jobs go, the
    longest first, to the process with less to do; then the solver's last
    callees move here while that evens the two."""
    tops = [entry for entry in log if not entry["inside"] and own(entry)]
    step = next((entry for entry in tops if entry["name"].startswith("step_boxes")), None)
    jobs = [entry for entry in tops if entry is not step]
    apart, here, after, solver_callees = [], [], [], []
    if step is not None:
        solver = next(entry for entry in callees(step, log) if entry["name"].startswith("solve_boxes"))
        apart.append(solver)
        jobs += [entry for entry in callees(step, log) if entry is not solver]
        after.append(step)
        solver_callees = callees(solver, log)[::-1]
    loads = {"apart": sum(entry["seconds"] for entry in apart), "here": 0.0}
    for job in sorted(jobs, key=lambda entry: -entry["seconds"]):
        side = "here" if loads["here"] <= loads["apart"] else "apart"
        (here if side == "here" else apart).append(job)
        loads[side] += job["seconds"]
    moved = []
    for callee in solver_callees:
        if loads["here"] + callee["seconds"] > loads["apart"] - callee["seconds"]:
            break
        moved.append(callee)
        loads["here"] += callee["seconds"]
        loads["apart"] -= callee["seconds"]
    total = sum(entry["seconds"] for entry in tops)
    last = sum(entry["seconds"] - sum(e["seconds"] for e in callees(entry, log)) for entry in after)
    print(
        f"{plan}: {total:.1f} s in one process; second process {loads['apart']:.1f} s, this one "
        f"{loads['here']:.1f} s, then {last:.1f} s",
        file=sys.stderr,
    )

    def line(role: str, entry: dict) -> str:
        seconds = f"{entry['seconds']:.2f}"
        return "\t".join([plan, role, seconds, entry["module"], entry["name"], entry["signature"]])

    return [
        *(line("apart", entry) for entry in apart),
        *(line("here", entry) for entry in moved + here),
        *(line("after", entry) for entry in after),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"store the record in {RECORD.name}")
    args = parser.parse_args(argv)
    lines = [f"# {HEADER}"]
    for level in sorted((ROOT / "levels").glob("*.toml")):
        log = compile_log(level)
        builds = [build for build, name in BUILDS.items() if name == level.name]
        if sum(entry["seconds"] for entry in log if not entry["inside"]) >= SPLIT_FROM_S:
            lines += plan_lines(f"level {level.name}", log)
        for build in builds:
            lines += plan_lines(build, log)
    text = "\n".join(lines) + "\n"
    if args.write:
        RECORD.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
