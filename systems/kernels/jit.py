"""How kernels are compiled: for numba's threads or for one, for Python to call or for other kernels.

A kernel with a ``prange`` is compiled twice (``kernel_with_threads``): as
written, for numba's threads, and as its one-thread twin (``one_thread``),
where a ``prange`` is a plain ``range``. Both split their work the same way,
so they give the same results bit for bit; the twin is what scenes too small
for threads run (``for_boxes``). It compiles in two thirds of the time (no
parallel lowering, no thread pool code: a cold run of the 55-box pyramid
took 37 s with the threaded build, 28 s with the twin) and never wakes
numba's thread pool, whose waiting workers spin on a core a busy machine
needs. Only kernels with threads call kernels with threads, so the twin of
one is the same code with each such callee replaced by its twin; every
other kernel is shared by both builds.

A kernel only other kernels call is compiled without the wrappers Python
calls through (``INNER``).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numba
import numba.np.ufunc.parallel
from numba.core.cpu_options import ParallelOptions

ONLY_PRANGE = ParallelOptions(
    {
        "comprehension": False,
        "setitem": False,
        "inplace_binop": False,
        "reduction": False,
        "numpy": False,
        "stencil": False,
        "fusion": False,
        "prange": True,
    }
)
"""numba's parallel options for every kernel with a ``prange``: only the loops written so run on
threads. With plain ``parallel=True`` numba also turns whole-array writes and numpy calls into
threaded loops, and those ran in every scene: the 55-box pyramid started the thread pool, whose
spinning workers then took a busy machine's other core.

A ``ParallelOptions``, not the dict it is made from: numba takes a dict's keys out as it reads
them, at every compile. A dict shared by every kernel held these options for the first kernel a
process compiled, and every later kernel got plain ``parallel=True``: each ``np.zeros`` of the
claims' counters a threaded loop of its own, the pool woken and joined once more. The 80 × 50
sheet's kernel call took 20 to 40 µs longer so (2026-12-06)."""

INNER = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""numba options for a kernel only other kernels call: none of the wrappers that let Python call it
(and C) are made, a fifth of what compiling such a kernel takes (the contact solver's 5 s -> 3.9 s
of a first start; 29% of the 12 kernels of the box step and the skeletons timed for it on
2026-12-07). Called from Python, such a kernel crashes the interpreter: tests call a copy
(``tests/support/kernels.py``)."""


NO_DIVISION_CHECK = {"error_model": "numpy"}
"""numba options of a kernel whose float divisions need no zero test: numba's default error model
tests every divisor to raise ``ZeroDivisionError``, which costs a branch a division and keeps numba
from vectorising any loop with one (``distance``: 3.45 -> 3.2 ns a projection). For kernels where a
zero divisor's quotient is never used."""


def thread_count() -> int:
    """numba's thread count for the calling thread, as ``numba.get_num_threads()`` gives it.

    That function takes numba's initialisation lock (a multiprocessing lock, where processes fork)
    on every call: 11-13 µs of the 80 × 50 cloth's frame taken in turns with pymunk's, which asks it
    once a frame. Once numba has started its threading layer, the layer's own C function answers
    without it; before that, or in a numba without it, the public function does.
    """
    native = getattr(numba.np.ufunc.parallel, "_get_num_threads", None)
    return numba.get_num_threads() if native is None else int(native())


def check_thread_count(count: int, key: str) -> None:
    """Raise ``ValueError`` naming ``key`` unless ``count`` is a thread count numba has: 1 to
    ``NUMBA_NUM_THREADS``, the threads it started."""
    most = numba.config.NUMBA_NUM_THREADS
    if not 1 <= count <= most:
        raise ValueError(f"{key}: expected 1 to {most}, got {count}")


def set_thread_count(count: int) -> None:
    """Set numba's thread count for the calling thread, as ``numba.set_num_threads(count)`` does,
    without its lock once numba's threading layer has started (``thread_count``: a frame run on
    fewer threads than numba's default sets the count twice, 9 to 14 µs of the 80 × 50 cloth's frame
    on one thread taken in turns with pymunk's). Raises ``ValueError`` outside 1 to ``NUMBA_NUM_THREADS``."""
    check_thread_count(count, "thread count")
    native = getattr(numba.np.ufunc.parallel, "_set_num_threads", None)
    if native is None:
        numba.set_num_threads(count)
    else:
        native(count)


THREADED_FROM = 300
"""Boxes from which a scene runs the box kernels built for threads (fewer: their one-thread twins).
Below it no kernel splits its work: that starts at ``PARALLEL_BOXES`` (1000) boxes,
``PARALLEL_PAIRS`` (1000) pairs or ``SPLIT_FROM`` (2000) manifolds, and a box in a pile has two to
three pairs."""

_THREADED: dict[int, Any] = {}
"""Every kernel compiled for threads, by ``id``, in the order they were defined."""
_OPTIONS: dict[int, dict[str, Any]] = {}
"""The numba options each one's twin is compiled with: those it was given beside ``parallel``, and
``inline`` for an ``inline_twin``."""
_TWINS: dict[int, Any] = {}
"""Each kernel with threads' one-thread twin, by the kernel's ``id`` (``make_twins``)."""


def kernel_with_threads(
    func: Callable[..., Any] | None = None,
    *,
    own_prange: bool = True,
    inline_twin: bool = False,
    **options: Any,
) -> Any:
    """Decorator (bare, or with numba options such as ``INNER``): ``func`` compiled with its
    ``prange`` loops on numba's threads (``ONLY_PRANGE``), and given a one-thread twin
    (``one_thread``) with the same options once every kernel is defined (``make_twins``).
    ``own_prange=False`` for a kernel whose threads are all its callees': it is compiled without
    ``parallel`` (numba warns of a parallel kernel with no ``prange`` of its own), and its twin
    calls their twins. ``inline_twin=True`` for a kernel called from one place in one kernel: its
    twin is inlined there (numba's ``inline="always"``), where compiled apart its callees' code
    was optimised and made machine code once in it and once more in its caller. The kernel for
    threads stays apart: inlined, numba's parallel passes over the larger caller took longer than
    the two apart (the box step: 9.5 s -> 11.5 s)."""

    def decorate(func: Callable[..., Any]) -> Any:
        parallel = {"parallel": ONLY_PRANGE} if own_prange else {}
        kernel = numba.njit(cache=True, **parallel, **options)(func)
        _THREADED[id(kernel)] = kernel
        _OPTIONS[id(kernel)] = {**options, "inline": "always"} if inline_twin else options
        return kernel

    return decorate if func is None else decorate(func)


def make_twins() -> None:
    """Give each kernel with threads its one-thread twin (called once every kernel module is
    imported, with numba's cache folder set to ours: the twins are cached beside their kernels)."""
    for kernel in list(_THREADED.values()):
        _twin(kernel)


def one_thread(kernel: Any) -> Any:
    """The one-thread twin of a kernel with threads (``kernel_with_threads``)."""
    return _TWINS[id(kernel)]


def for_boxes(kernel: Any, boxes: int) -> Any:
    """The build of a kernel with threads that a scene of ``boxes`` boxes runs: as written from
    ``THREADED_FROM`` boxes, else its one-thread twin."""
    return kernel if boxes >= THREADED_FROM else _TWINS[id(kernel)]


def has_threads(kernel: Any) -> bool:
    """Whether ``kernel`` is one compiled for threads (``kernel_with_threads``)."""
    return id(kernel) in _THREADED


def _twin(kernel: Any) -> Any:
    if id(kernel) in _TWINS:
        return _TWINS[id(kernel)]
    func = getattr(kernel, "py_func", None)
    if func is None:  # NUMBA_DISABLE_JIT: kernels are plain Python, where a prange is a range
        _TWINS[id(kernel)] = kernel
        return kernel
    scope = dict(func.__globals__)
    copy = types.FunctionType(func.__code__, scope, func.__name__, func.__defaults__, func.__closure__)
    # a name of its own: numba's cache keys an entry by the function's name and code, not its options
    copy.__qualname__ = f"{func.__qualname__}_one_thread"
    copy.__doc__ = func.__doc__
    copy.__module__ = func.__module__
    copy.__annotations__ = func.__annotations__
    twin = numba.njit(cache=True, **_OPTIONS[id(kernel)])(copy)
    _TWINS[id(kernel)] = twin
    # numba reads a kernel's globals when it compiles it (later): its callees with threads become
    # their twins (its own name too)
    for name, value in func.__globals__.items():
        if has_threads(value):
            scope[name] = _twin(value)
    return twin
