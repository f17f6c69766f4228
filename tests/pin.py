"""Pin the behaviour of the shipped levels again, deliberately: ``python tests/pin.py [RUN...] [--write]``.

Runs every pinned run, or the ones named (``creature.toml``, ``tiled/example.tmj``, ``"cloth.toml +
script"``; a level also answers to its file name alone or its stem: ``creature``, ``example``;
``cloth`` names both cloth runs), and prints for each that changed its new ``state_hash`` and
``settled_frame`` and the difference of every metric against the stored values. ``--write`` stores
the new values in ``tests/golden/levels.json`` (the other runs keep theirs); commit that file with
the change that moved them, saying why. ``tests/test_golden.py`` compares.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # support/, as pytest finds it

from support.golden import PINNED, differences, measure, pinned, run_names, write


def chosen(names: list[str]) -> list[str]:
    """The pinned runs ``names`` asks for (all when empty); exits naming the known ones otherwise."""
    if not names:
        return run_names()
    known = run_names()
    picked = []
    for name in names:
        matches = [run for run in known if name in (run, Path(run).name, Path(run).stem)]
        if not matches:
            sys.exit(f"pin.py: no pinned run {name!r}; the runs are: {', '.join(known)}")
        picked += matches
    return picked


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="runs to measure (default: all)")
    parser.add_argument("--write", action="store_true", help=f"store the new values in {PINNED.name}")
    args = parser.parse_args(argv)
    stored = pinned() if PINNED.exists() else {}
    measured = {}
    for name in chosen(args.runs):
        new = measure(name)
        measured[name] = new
        old = stored.get(name, {})
        changed = differences(old, new)
        if not changed:
            print(f"{name}: unchanged ({new['state_hash'][:12]}, settled at {new['settled_frame']})")
            continue
        print(f"{name}: state_hash {new['state_hash']}, settled_frame {new['settled_frame']}")
        for line in changed:
            print(f"    {line}")
    if args.write:
        write(measured)
        print(f"written: {PINNED}")
    elif any(differences(stored.get(name, {}), new) for name, new in measured.items()):
        print("(not written: run again with --write to pin these values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
