"""Record the plans of ``systems/first_start.py``: ``python tests/first_start.py [--write]``.

Runs ``weft run LEVEL --frames RECORDED_FRAMES`` for every shipped level with an empty
numba cache, in one process (``WEFT_COMPILE_APART=0``), and logs numba's
compile events: which of our kernels compile, for which argument types,
inside which, for how long, and which of ours each calls. From each log it
schedules a plan (``plan_lines``) for the level when it took
``SPLIT_FROM_S`` or more (with its ``level_features``, for levels alike that
have no plan) and then its play plan (what the level built afresh and
played once compiles besides: ``play_once``, as a preparation plays it),
and for the box step's build the pyramid (one-thread twins) and the large
pyramid (the build for threads) run.
``--write`` stores them in ``systems/first_start.txt`` (else they are
printed). Re-record after changing what a level's systems pass to their
kernels: ``tests/test_first_start.py`` fails until then. Takes about ten
minutes.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from weft.game.simulation import Simulation
from weft.game.warmup import level_features
from weft.systems.first_start import APART, FEATURES, HERE, PLAY, RECORD, RECORDED_FRAMES

ROOT = Path(__file__).resolve().parents[1]
BUILDS = {"step_boxes_one_thread": "pyramid.toml", "step_boxes": "large_pyramid.toml"}
"""A level for each build of the box step (its plan serves any scene with boxes)."""
SPLIT_FROM_S = 2.0
"""A shipped level whose kernels compile in this long or more (one process) gets a plan of its own."""
SECOND_STARTS_S = 0.8
"""How long the second process takes to start compiling here (Python, numba, our kernels' modules)."""
LOAD_S = 0.02
"""Loading a callee the other process compiled from numba's cache, about."""
HEADER = "the kernels a cold start compiles, split in two processes (systems/first_start.py)"

LOGGER = """
import json, sys, time
from numba.core import event, ir, types
log, stack = [], []

def calls(result):
    found = set()
    for expr, signature in result.fndesc.calltypes.items():
        if isinstance(expr, ir.Expr) and expr.op == "call":
            called = result.fndesc.typemap.get(expr.func.name)
            if isinstance(called, types.Dispatcher):
                func = called.dispatcher.py_func
                found.add((func.__module__, func.__qualname__, repr(tuple(signature.args))))
    return sorted(found)

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
        result = ev.data["dispatcher"].overloads.get(tuple(ev.data["args"]))
        entry["calls"] = [] if result is None else calls(result)

event.register("numba:compile", Log())
from weft.game.cli import main
main(["run", sys.argv[1], "--frames", sys.argv[2]])
ran = len(log)
# what a level's preparation compiles besides (weft.game.warmup.prepare_physics): played once
from weft.game.simulation import Simulation
from weft.game.warmup import play_once
sim = Simulation.load(sys.argv[1])
play_once(sim)
sim.close()
for entry in log:
    entry["played"] = entry["id"] >= ran
print(json.dumps(log), file=sys.stderr)
"""


def compile_log(level: Path) -> list[dict]:
    """The compile events of a cold run of ``level``, ``RECORDED_FRAMES`` long (all in one process)."""
    with tempfile.TemporaryDirectory(prefix="weft-record-") as cache:
        environment = {**os.environ, "NUMBA_CACHE_DIR": cache, "WEFT_COMPILE_APART": "0"}
        done = subprocess.run(
            [sys.executable, "-c", LOGGER, str(level), str(RECORDED_FRAMES)],
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        )
    return json.loads(done.stderr.strip().splitlines()[-1])


def own(entry: dict) -> bool:
    return entry["module"].startswith("weft.")


def key(entry: dict) -> tuple[str, str, str]:
    return entry["module"], entry["name"], entry["signature"]


def callees(entry: dict, log: list[dict]) -> list[dict]:
    """Our kernels ``entry`` compiled directly, in the order it reached them."""
    return [e for e in log if e["inside"] and e["inside"][-1] == entry["id"] and own(e)]


def below(entry: dict, log: list[dict]) -> list[dict]:
    """``entry`` and every kernel of ours compiled inside it, in the log's order."""
    return [e for e in log if own(e) and (e is entry or entry["id"] in e["inside"])]


def plan_lines(plan: str, entries: list[dict], log: list[dict], base: list[dict] | None = None) -> list[str]:
    """``plan``'s record lines: ``entries`` (kernels of ``log``) scheduled over two processes, after
    ``base`` (a play plan's level plan, whose places its own go on from: ``first_start.recorded``).

    Each kernel costs what it took less its callees (``own_seconds``), and
    can compile once every kernel of the plan it calls has (``entry["calls"]``).
    In turn, of the kernels whose callees are placed, the one with the
    longest chain of callers above it goes to the side where it would
    finish first (list scheduling by critical path): the box step and the
    solver it calls end every box level's chain, so what leads to them goes
    first and the rest fills in around it."""
    units = {key(entry): entry for entry in entries}
    before = [key(entry) for entry in base or []]
    own_seconds = {
        key(entry): entry["seconds"] - sum(e["seconds"] for e in callees(entry, log)) for entry in entries
    }
    calls = {key(entry): [tuple(c) for c in entry["calls"] if tuple(c) in units] for entry in entries}
    earlier = {key(entry): [tuple(c) for c in entry["calls"] if tuple(c) in before] for entry in entries}
    callers = {unit: [other for other in units if unit in calls[other]] for unit in units}

    @functools.cache
    def chain(unit: tuple[str, str, str]) -> float:
        return own_seconds[unit] + max((chain(c) for c in callers[unit]), default=0.0)

    # after a level plan (``base``) the second process is running already
    free = {HERE: 0.0, APART: 0.0 if base else SECOND_STARTS_S}
    placed: dict[tuple[str, str, str], tuple[str, float]] = {}
    order = []
    while len(order) < len(units):
        ready = [unit for unit in units if unit not in placed and all(c in placed for c in calls[unit])]
        unit = max(ready, key=chain)

        def finish(side: str, unit: tuple[str, str, str] = unit) -> float:
            begin = max([free[side]] + [placed[c][1] + LOAD_S for c in calls[unit] if placed[c][0] != side])
            return begin + own_seconds[unit]

        side = min(free, key=finish)
        placed[unit] = side, finish(side)
        free[side] = placed[unit][1]
        order.append(unit)
    loads = {side: sum(own_seconds[u] for u in order if placed[u][0] == side) for side in free}
    print(
        f"{plan}: {sum(own_seconds.values()):.1f} s in one process; on two, done at "
        f"{max(free.values()):.1f} s (this one compiles {loads[HERE]:.1f} s, the second "
        f"{loads[APART]:.1f} s)",
        file=sys.stderr,
    )
    place = {unit: k for k, unit in enumerate(before)} | {
        unit: len(before) + k for k, unit in enumerate(order)
    }

    def line(unit: tuple[str, str, str]) -> str:
        called = ",".join(str(place[c]) for c in sorted(calls[unit] + earlier[unit], key=place.get)) or "-"
        module, name, signature = unit
        return "\t".join([plan, placed[unit][0], f"{own_seconds[unit]:.2f}", called, module, name, signature])

    return [line(unit) for unit in order]


def _plan_order(lines: list[str], plan: str, entries: list[dict]) -> list[dict]:
    """``entries`` in the order ``plan``'s lines put them (its places)."""
    by_key = {key(entry): entry for entry in entries}
    placed = [line.split("\t") for line in lines if line.startswith(plan + "\t")]
    return [by_key[(fields[4], fields[5], fields[6])] for fields in placed]


def features(level: Path) -> str:
    """``level_features`` of ``level`` as built (a level of one's own alike borrows its plan)."""
    sim = Simulation.load(level)
    try:
        return level_features(sim)
    finally:
        sim.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"store the record in {RECORD.name}")
    args = parser.parse_args(argv)
    lines = [f"# {HEADER}"]
    for level in sorted((ROOT / "levels").glob("*.toml")):
        log = compile_log(level)
        builds = [build for build, name in BUILDS.items() if name == level.name]
        frames = [entry for entry in log if not entry["played"]]
        if sum(entry["seconds"] for entry in frames if not entry["inside"]) >= SPLIT_FROM_S:
            lines.append("\t".join([FEATURES, f"level {level.name}", features(level)]))
            ran = [entry for entry in frames if own(entry)]
            lines += plan_lines(f"level {level.name}", ran, log)
            played = [entry for entry in log if entry["played"] and own(entry)]
            if played:
                order = _plan_order(lines, f"level {level.name}", ran)
                lines += plan_lines(f"{PLAY}{level.name}", played, log, order)
        for build in builds:
            step = next(entry for entry in log if entry["name"] == build and not entry["inside"])
            lines += plan_lines(build, below(step, log), log)
    text = "\n".join(lines) + "\n"
    if args.write:
        RECORD.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
