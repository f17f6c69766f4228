"""The level fuzzer's mutations counted for a before/after table (issue 19's closing note).

The same mutants (one mutation each, of the kinds ``tests/test_fuzz_levels.py`` makes, seeded by
level, kind and index) of the same level files, validated and, when valid, run 30 frames, one by
one in a worker process watched for its resident memory (4 GB) and time (90 s). Run it with the
Python of the checkout to measure (its own ``weft``), on one set of level files for both::

    python tests/support/level_fuzz_table.py LEVELS_DIR PER_KIND OUT.jsonl

Each line of OUT is ``{"level", "kind", "index", "outcome"}``; an outcome is "rejected",
"valid-ran" or "fail: ..." (a traceback, a problem not on one line naming the file, NaN, memory,
a hang). The worker lives on between mutants, so its memory is what it holds after all of them so
far: rerun a memory or time failure alone before counting it.

The mutation values are written out here rather than imported from ``test_fuzz_levels``: the
harness runs unchanged against an older checkout, whose test file holds other values.
"""

from __future__ import annotations

import copy
import json
import math
import multiprocessing as mp
import random
import sys
import tomllib
import traceback
from pathlib import Path
from typing import Any

KINDS = ["replace", "number", "delete", "unknown", "kind", "hostile", "repeat", "pile"]
BAD_VALUES: list[Any] = [
    "x",
    "",
    True,
    False,
    [],
    [1, 2, 3],
    {},
    {"a": 1},
    0,
    -1,
    -1e9,
    1e9,
    10**9,
    1e308,
    -1e308,
    math.nan,
    math.inf,
    -math.inf,
    0.5,
    20000,
    400,
]
NUMBERS = [0.0, -0.0, 1e-300, 5e-324, 2.2e-308, -5.0, 3.0, 1e6, 1e12, math.nan, math.inf]


def deep(n: int) -> Any:
    value: Any = 1
    for _ in range(n):
        value = [value]
    return value


HOSTILE_VALUES: list[Any] = [
    "/dev/zero",
    "/etc/passwd",
    "../../outside.png",
    "line\nbreak",
    "tab\tand\rreturn",
    deep(70),
]
MISSPELT = {
    "cloth": "clth",
    "balls": "ball",
    "boxes": "box",
    "creature": "creatures",
    "skeleton": "skeletons",
}
FRAMES = 30
TIMEOUT = 90.0
MEMORY = 4 * 1024**3


def key_paths(data: Any, prefix: tuple = ()) -> list[tuple]:
    paths = []
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else []
    for key, value in items:
        path = (*prefix, key)
        paths.append(path)
        paths += key_paths(value, path)
    return paths


def value_at(data: Any, path: tuple) -> Any:
    for key in path:
        data = data[key]
    return data


def mutate(raw: dict[str, Any], kind: str, rng: random.Random) -> dict[str, Any] | None:
    """One mutation of ``kind``, or None when the level has nothing it applies to."""
    data = copy.deepcopy(raw)
    paths = key_paths(data)
    if kind == "unknown":
        tables = [p for p in [(), *paths] if isinstance(value_at(data, p), dict)]
        table = value_at(data, rng.choice(tables))
        table[rng.choice(["colour", "iteratons", "zzz", "gravty", "mass_kg"])] = 1
        return data
    if kind == "kind":
        present = [k for k in MISSPELT if k in data]
        if not present:
            return None
        name = rng.choice(present)
        data[MISSPELT[name]] = data.pop(name)
        return data
    if kind == "repeat":
        bodies = [
            k for k in MISSPELT if isinstance(data.get(k), list) and data[k] and isinstance(data[k][0], dict)
        ]
        if not bodies:
            return None
        name = rng.choice(bodies)
        data[name] = [{**copy.deepcopy(data[name][0]), "name": f"copy{k}"} for k in range(100)]
        return data
    if kind == "pile":  # a box set made movable and copied 20 to 100 times at its own place
        if not isinstance(data.get("boxes"), list) or not data["boxes"]:
            return None
        k = rng.randrange(len(data["boxes"]))
        if not isinstance(data["boxes"][k], dict):
            return None
        table = {**data["boxes"][k], "fixed": False}
        copies = [{**copy.deepcopy(table), "name": f"pile{n}"} for n in range(rng.choice([20, 64, 100]))]
        data["boxes"][k : k + 1] = copies
        return data
    if kind == "number":
        paths = [
            p
            for p in paths
            if isinstance(value_at(data, p), int | float) and not isinstance(value_at(data, p), bool)
        ]
        if not paths:
            return None
    path = rng.choice(paths)
    parent = value_at(data, path[:-1])
    if kind == "replace":
        parent[path[-1]] = copy.deepcopy(rng.choice(BAD_VALUES))
    elif kind == "hostile":
        parent[path[-1]] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    elif kind == "number":
        value = parent[path[-1]]
        parent[path[-1]] = rng.choice(NUMBERS) * (1 if rng.random() < 0.5 else value)
    elif kind == "delete":
        del parent[path[-1]]
    return data


def check(raw: dict[str, Any], source: str) -> str:
    """The outcome: "rejected", "valid-ran", or a failure ("traceback: ...", "not one line", "nan")."""
    import numpy as np

    from weft.game.level import LevelError
    from weft.game.level.load import validate
    from weft.game.simulation import Simulation

    path = Path(source)
    try:
        level = validate(raw, path)
    except LevelError as error:
        for problem in error.problems:
            line = str(problem)
            if "\n" in line or path.name not in line:
                return "fail: not one line naming the file"
        return "rejected" if error.problems else "fail: no problem listed"
    except MemoryError:
        return "fail: memory (validate)"
    except Exception as error:
        return f"fail: traceback (validate) {type(error).__name__}"
    try:
        sim = Simulation(level)
        sim.step(FRAMES)
        stores = sim.stores
        ok = np.isfinite(stores.particles.pos[: stores.particles.count]).all()
        ok = ok and np.isfinite(stores.rigid.pos[: stores.rigid.count]).all()
        ok = ok and math.isfinite(sim.metrics()["max_stretch"])
        sim.close()
    except MemoryError:
        return "fail: memory (run)"
    except Exception as error:
        return f"fail: traceback (run) {type(error).__name__}: {str(error)[:80]}"
    return "valid-ran" if ok else "fail: nan"


def worker(conn: Any) -> None:
    while True:
        task = conn.recv()
        if task is None:
            return
        try:
            conn.send(check(*task))
        except BaseException as error:
            conn.send(f"fail: {type(error).__name__} {traceback.format_exc(limit=1)[-80:]}")


def rss(pid: int) -> int:
    """Resident bytes of process ``pid`` (0 when gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return 0
    return 0


class Pool:
    def __init__(self) -> None:
        self.start()

    def start(self) -> None:
        self.parent, child = mp.Pipe()
        self.process = mp.get_context("fork").Process(target=worker, args=(child,), daemon=True)
        self.process.start()

    def run(self, raw: dict[str, Any], source: str) -> str:
        try:
            self.parent.send((raw, source))
        except Exception as error:
            return f"fail: unsendable {type(error).__name__}"
        waited = 0.0
        while waited < TIMEOUT:
            if self.parent.poll(0.1):
                try:
                    return self.parent.recv()
                except EOFError:
                    self.restart()
                    return "fail: worker died (crash)"
            waited += 0.1
            if rss(self.process.pid) > MEMORY:
                self.restart()
                return "fail: memory (over 4 GB resident)"
        self.restart()
        return f"fail: hang (>{TIMEOUT:g} s)"

    def restart(self) -> None:
        self.process.kill()
        self.process.join()
        self.start()


def main() -> None:
    levels, per_kind, out = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    pool = Pool()
    with out.open("w") as sink:
        for level in sorted(levels.glob("*.toml")):
            raw = tomllib.loads(level.read_text())
            for kind in KINDS:
                for index in range(per_kind):
                    rng = random.Random(f"{level.name}:{kind}:{index}")
                    mutant = mutate(raw, kind, rng)
                    if mutant is None:
                        continue
                    outcome = pool.run(mutant, str(level))
                    sink.write(
                        json.dumps({"level": level.name, "kind": kind, "index": index, "outcome": outcome})
                        + "\n"
                    )
                    sink.flush()


if __name__ == "__main__":
    main()
