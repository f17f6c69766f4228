"""Counters two threads share inside one parallel region: claims, and counts waited on.

A pass of the cloth in two sides ends in a join: numba's ``prange`` starts
the thread pool, runs a side on each thread and waits for both, and the
next pass starts the pool again. Twenty passes a frame are twenty starts
and joins, about 2 µs each, and each waits for the slower thread. Worse,
a thread the system has not woken yet (a worker asleep between frames, or
the other core taken by another program) holds every join it is part of.

Here the threads start once a call and share an int64 array of counters
instead (``new_counters``). Work is cut in items; a thread takes an item
by claiming its slot (``claim``: the first to add one to it has it), and
says how far a stream of items has got by adding one to a count
(``count_one``). An item that reads what another wrote waits until that
count is reached (``wait_until``). A thread only ever waits for a count
that an item already claimed will reach, that is for a thread that is
running: a worker that wakes late finds the first items claimed and
claims the next; one that never comes leaves the caller to do the lot, as
on one thread. Each item computes the same numbers whoever takes it, so
the results are the same bit for bit on one thread or two.

Counts are read with acquire and added to with sequentially consistent
atomics (LLVM's ``load atomic`` and ``atomicrmw``), so what a thread wrote
before it counted is what the other reads after its wait. A wait spins: it
waits for an item another running thread is in the middle of (a few
microseconds), never for a thread to arrive. On x86 each turn of the spin
is a ``pause``, which lets a sibling hyperthread run and leaves the loop
without a pipeline flush.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import numpy.typing as npt
from llvmlite import binding, ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

LINE = 8
"""Slots a cache line holds (64 bytes): counts that different threads add to are this far apart, so
one thread counting does not take the line the other's wait is reading."""

_X86 = binding.get_process_triple().startswith(("x86_64", "i386", "i686"))


def _slot_pointer(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
    """A pointer to ``counters[slot]`` (the first two arguments)."""
    array_type, slot_type = sig.args[0], sig.args[1]
    counters = context.make_array(array_type)(context, builder, args[0])
    index = context.cast(builder, args[1], slot_type, types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, counters, [index])


def _check(counters: Any, slot: Any) -> None:
    if not (isinstance(counters, types.Array) and counters.ndim == 1 and counters.dtype == types.int64):
        raise TypingError(f"claims: the counters must be a 1-d int64 array, not {counters}")
    if not counters.mutable:
        raise TypingError("claims: the counters must be writable")
    if not isinstance(slot, types.Integer):
        raise TypingError(f"claims: a slot is an integer, not {slot}")


@intrinsic
def _add_one(typingctx: Any, counters: types.Array, slot: types.Integer) -> tuple[types.Signature, Any]:
    """Add one to ``counters[slot]`` atomically; returns what it held before."""
    _check(counters, slot)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        pointer = _slot_pointer(context, builder, sig, args)
        return builder.atomic_rmw("add", pointer, ir.Constant(ir.IntType(64), 1), "seq_cst")

    return types.int64(counters, slot), codegen


@intrinsic
def _read(typingctx: Any, counters: types.Array, slot: types.Integer) -> tuple[types.Signature, Any]:
    """``counters[slot]``, read with acquire."""
    _check(counters, slot)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        return builder.load_atomic(_slot_pointer(context, builder, sig, args), "acquire", 8)

    return types.int64(counters, slot), codegen


@intrinsic
def spin_pause(typingctx: Any) -> tuple[types.Signature, Any]:
    """One turn of a spin: x86's ``pause``, nothing elsewhere."""

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        if _X86:
            pause = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(ir.VoidType(), []), "llvm.x86.sse2.pause"
            )
            builder.call(pause, [])
        return context.get_dummy_value()

    return types.none(), codegen


@numba.njit(cache=True, inline="always")
def new_counters(slots: int) -> npt.NDArray[np.int64]:
    """``slots`` counters, all zero: nothing claimed, nothing counted."""
    return np.zeros(slots, dtype=np.int64)


@numba.njit(cache=True, inline="always")
def claim(counters: npt.NDArray[np.int64], slot: int) -> bool:
    """Whether the calling thread is the first to claim ``slot`` (then the item is its own)."""
    return _add_one(counters, slot) == 0


@numba.njit(cache=True, inline="always")
def count_one(counters: npt.NDArray[np.int64], slot: int) -> None:
    """Add one to the count in ``slot``: everything the thread wrote before is seen by a thread
    whose ``wait_until`` then finds the new count."""
    _add_one(counters, slot)


@numba.njit(cache=True, inline="always")
def wait_until(counters: npt.NDArray[np.int64], slot: int, count: int) -> None:
    """Spin until the count in ``slot`` is at least ``count``."""
    while _read(counters, slot) < count:
        spin_pause()


def _plain_add_one(counters: Any, slot: int) -> int:
    counters[slot] += 1
    return int(counters[slot] - 1)


def _plain_read(counters: Any, slot: int) -> int:
    return int(counters[slot])


def _plain_spin_pause() -> None:
    return None


if numba.config.DISABLE_JIT:  # kernels run as plain Python, on one thread: plain counts do
    _add_one, _read, spin_pause = _plain_add_one, _plain_read, _plain_spin_pause
