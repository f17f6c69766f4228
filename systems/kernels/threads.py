"""How kernels use threads: only where a loop is written as ``prange``, and only in large scenes."""

from __future__ import annotations

ONLY_PRANGE = {
    "comprehension": False,
    "setitem": False,
    "inplace_binop": False,
    "reduction": False,
    "numpy": False,
    "stencil": False,
    "fusion": False,
    "prange": True,
}
"""numba's parallel options for every kernel with a ``prange``: only the loops written so run on
threads. With plain ``parallel=True`` numba also turns whole-array writes and numpy calls into
threaded loops, and those ran in every scene: the 55-box pyramid started the thread pool, whose
spinning workers then took a busy machine's other core."""
