"""Record which box kernels a cold box step compiles: ``python tests/first_start.py [--write]``.

Runs ``weft run LEVEL --frames 1`` with an empty numba cache for a level of
each build of the box step (the 55-box pyramid runs the one-thread twins,
the large pyramid the build for threads), in-process only
(``WEFT_COMPILE_APART=0``), and logs numba's compile events: which of our
kernels compile, for which argument types, inside which, and for how long.
From that it writes ``systems/first_start.txt`` (``--write``; else prints
it): the step; the solver, which the second process compiles; and what
this one compiles meanwhile, callees first. Of the solver's own callees,
the last it reaches go to this process too, while that evens the two
processes' recorded seconds. Re-record after changing what the box step
passes to its kernels: ``tests/test_first_start.py`` fails until then.
Takes a few minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "systems" / "first_start.txt"
LEVELS = {"step_boxes_one_thread": "pyramid.toml", "step_boxes": "large_pyramid.toml"}
"""A level for each build of the box step."""

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
        entry["end"] = sum("seconds" in e for e in log)
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


def lines_for(build: str, log: list[dict]) -> list[str]:
    """``build``'s record lines: the step, the solver apart, the rest here (balanced, callees first)."""
    step = next(entry for entry in log if entry["name"] == build and not entry["inside"])
    solver = next(
        entry for entry in log if entry["name"].startswith("solve_boxes") and step["id"] in entry["inside"]
    )
    in_solver = {entry["id"] for entry in log if solver["id"] in entry["inside"]}

    def own_seconds(entry: dict) -> float:  # its time less its callees'
        callees = [e for e in log if e["inside"] and e["inside"][-1] == entry["id"]]
        return entry["seconds"] - sum(e["seconds"] for e in callees)

    here = [
        e for e in log if own(e) and e["id"] not in in_solver and e["id"] not in (step["id"], solver["id"])
    ]
    apart_seconds = solver["seconds"]
    here_seconds = sum(own_seconds(e) for e in here)
    # the solver's direct callees, the last it reaches first: each moves here while that evens the two
    moved = []
    for callee in sorted(
        (e for e in log if e["inside"] and e["inside"][-1] == solver["id"] and own(e)), key=lambda e: -e["id"]
    ):
        if here_seconds + callee["seconds"] > apart_seconds - callee["seconds"]:
            break
        subtree = [e for e in log if e["id"] == callee["id"] or callee["id"] in e["inside"]]
        moved += sorted((e for e in subtree if own(e)), key=lambda e: e["end"])
        here_seconds += callee["seconds"]
        apart_seconds -= callee["seconds"]

    def line(role: str, entry: dict) -> str:
        return "\t".join([build, role, entry["module"], entry["name"], entry["signature"]])

    ordered_here = moved + sorted(here, key=lambda e: e["end"])
    print(
        f"{build}: {LEVELS[build]} compiled in {sum(e['seconds'] for e in log if not e['inside']):.1f} s; "
        f"second process {apart_seconds:.1f} s, this one {here_seconds:.1f} s before the step's own "
        f"{own_seconds(step):.1f} s",
        file=sys.stderr,
    )
    return [line("step", step), line("apart", solver), *(line("here", e) for e in ordered_here)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"store the record in {RECORD.name}")
    args = parser.parse_args(argv)
    lines = [
        "# the box kernels a cold box step compiles (systems/first_start.py); tests/first_start.py --write"
    ]
    for build, level in LEVELS.items():
        lines += lines_for(build, compile_log(ROOT / "levels" / level))
    text = "\n".join(lines) + "\n"
    if args.write:
        RECORD.write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
