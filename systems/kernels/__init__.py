"""numba-compiled kernels: functions of contiguous arrays only, no Python objects.

Each file holds one algorithm. Kernels are deterministic (no fastmath, no
parallel reductions), so the same inputs give the same outputs bit for bit.

numba's cache checks a kernel against its own file only, but a kernel is
compiled together with the kernels it calls (``box_frame.step_box_frame``
holds the solver, the contacts and the grid). After an edit to one of
those, the old code would run on, or crash. So a digest of every kernel
file is kept beside numba's cache, and when it changes the cache is
dropped before any kernel loads (a minute of compiling once; an installed
copy never changes).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

SOURCES_STAMP = "kernel-sources.sha256"
"""The file in ``__pycache__`` holding the digest of the kernel files the cache there was built from."""


def drop_stale_cache(folder: Path) -> bool:
    """Delete numba's cache files in ``folder/__pycache__`` when the ``*.py`` files of ``folder``
    differ from those it was built from; returns whether it did (or stamped a cache anew). A folder
    it may not write to is left as it is (numba then caches elsewhere)."""
    digest = hashlib.sha256()
    for source in sorted(folder.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    cache = folder / "__pycache__"
    stamp = cache / SOURCES_STAMP
    try:
        if stamp.read_text() == digest.hexdigest():
            return False
    except OSError:
        pass  # no stamp yet
    try:
        for built in (*cache.glob("*.nbi"), *cache.glob("*.nbc")):
            built.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:
        return False
    return True


drop_stale_cache(Path(__file__).resolve().parent)
