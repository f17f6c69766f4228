"""Kernels built for other kernels only (``jit.INNER``), compiled again for a test to call.

Such a kernel has no wrapper for Python to call it through, and a call
from Python crashes the interpreter. A test calls its copy here: the same
code compiled with the wrapper, without numba's cache (which keys an entry
by the function's name, not its options: the copy's entry would take the
kernel's place).
"""

from __future__ import annotations

import functools
from typing import Any

import numba


@functools.cache
def from_python(kernel: Any) -> Any:
    """``kernel`` (a numba dispatcher) compiled again so that Python can call it."""
    return numba.njit(kernel.py_func)
