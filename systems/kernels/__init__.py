"""numba-compiled kernels: functions of contiguous arrays only, no Python objects.

Each file holds one algorithm. Kernels are deterministic (no fastmath, no
parallel reductions), so the same inputs give the same outputs bit for bit.

Where numba caches them: in a folder of the user's cache named by a digest
of every kernel file (``~/.cache/weft/kernels/<digest>``, or under
``$NUMBA_CACHE_DIR`` when that is set), never inside the package, which may
be an installed, read-only copy. numba checks a cached kernel against its
own file only, but a kernel is compiled together with the kernels it calls
(``box_step.step_boxes`` holds the solver, the contacts and the grid):
after an edit to one of those, the old code would run on, or crash. A
folder per digest makes any edit a fresh cache (a minute of compiling
once); the oldest folders beyond ``KEPT_CACHES`` are removed.

Every kernel module is imported here, with numba's cache folder set to ours
for the time it takes to decorate them, and the setting put back: a host
game's own numba functions keep caching where it told numba to.

How long numba's waiting workers spin is bounded here too, before numba
starts them (``bound_worker_spin``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import MutableMapping
from pathlib import Path

import numba

from weft.folders import user_cache

WORKER_SPIN = 10_000
"""``GOMP_SPINCOUNT``: turns of a spin (each an x86 ``pause``) an OpenMP worker of numba's makes
waiting for work before it sleeps, about 0.3 ms here. GNU OpenMP's own default, 300 000, kept the
worker of a frame run on two threads spinning 5 to 6 ms after it (measured: the process's CPU time
over a 50 ms sleep after an 80 × 50 cloth frame), a core taken from the game's drawing or a browser
for a third of every 1/60 s frame; with the spin unbounded (``OMP_WAIT_POLICY=active``) it never
stops. Shorter spins cost the two-thread frames more: the worker is then asleep when a frame starts,
and waking it (a virtual machine's sleeping core here) takes tens of microseconds. At 1000, 3000,
10 000, 30 000 and the default the cloth's two-thread frame took 0.63, 0.56, 0.56, 0.56 and 0.49 ms,
the 5050-box pyramid's 6.6 (at 3000), 5.7 and 5.3 ms; the spin burned 0.13, 0.14, 0.27, 0.94 and
5.4 ms after each frame. Intel TBB's layer (no spin setting) did as 10 000 here, 0.57 ms, burning
1 ms, and is one more library to install."""

KEPT_CACHES = 4
"""Cache folders kept, the newest by use: a few versions or checkouts side by side, 7 MB each."""


def sources_digest(folder: Path) -> str:
    """The sha256 of the names and contents of the ``*.py`` files of ``folder``."""
    digest = hashlib.sha256()
    for source in sorted(folder.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def cache_folder(sources: Path, base: Path) -> Path:
    """The cache folder for the kernels in ``sources``: ``base/<first 16 hex of their digest>``,
    created and marked as just used; older siblings beyond ``KEPT_CACHES`` are deleted. A ``base``
    that cannot be written is left alone (numba then caches in its own fallback folder)."""
    folder = base / sources_digest(sources)[:16]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)  # the newest by use, so pruning spares it
    except OSError:
        return folder
    siblings = sorted((p for p in base.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime)
    for stale in siblings[:-KEPT_CACHES]:
        if stale != folder:
            shutil.rmtree(stale, ignore_errors=True)
    return folder


def bound_worker_spin(environ: MutableMapping[str, str]) -> None:
    """Bound numba's OpenMP workers' spin to ``WORKER_SPIN`` (``GOMP_SPINCOUNT`` in ``environ``)
    unless the user chose a wait already (``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` set). GNU
    OpenMP reads it once, when numba first starts its workers: a host game that ran threaded numba
    code before importing Weft keeps the wait it had."""
    if "GOMP_SPINCOUNT" not in environ and "OMP_WAIT_POLICY" not in environ:
        environ["GOMP_SPINCOUNT"] = str(WORKER_SPIN)


def _base() -> Path:
    configured = os.environ.get("NUMBA_CACHE_DIR")
    return Path(configured) / "weft" if configured else user_cache("kernels")


CACHE_DIR = cache_folder(Path(__file__).resolve().parent, _base())
"""Where numba keeps this copy's compiled kernels."""
READY_MARK = CACHE_DIR / "prepared"
"""Written once every shipped level has stepped with this cache folder (``weft warmup``): every
kernel is compiled and cached."""

bound_worker_spin(os.environ)
_host_cache_dir = numba.config.CACHE_DIR
numba.config.CACHE_DIR = str(CACHE_DIR)
try:
    from weft.systems.kernels import (  # noqa: F401  decorated now, so cached in CACHE_DIR
        bone_circles,
        bone_weights,
        bones,
        bounds,
        box_batches,
        box_bones,
        box_braces,
        box_contact_solver,
        box_contacts,
        box_grid,
        box_integrate,
        box_manifold,
        box_memory,
        box_mouse,
        box_overlaps,
        box_particles,
        box_sleep,
        box_softness,
        box_solver,
        box_step,
        cells,
        circle_contacts,
        claims,
        cloth_step,
        distance,
        distance_loop,
        distance_sides,
        dual_quaternions,
        fold_shade,
        force_fields,
        grid,
        inside_walls,
        jit,
        joint_limits,
        measure,
        mesh_heat,
        pins,
        skinning,
        softbody,
        sweep,
        tear,
        verlet,
    )

    jit.make_twins()
finally:
    numba.config.CACHE_DIR = _host_cache_dir
