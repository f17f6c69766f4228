"""Work items taken in order by whichever thread comes for the next: phases without a join.

A pass of the cloth in two sides ends in a join: numba's ``prange`` starts
the thread pool, runs a side on each thread and waits for both, and the
next pass starts the pool again. Twenty passes a frame are twenty starts
and joins, about 2 µs each, and each waits for the slower thread. Worse,
a thread the system has not woken yet (a worker asleep between frames, or
the other core taken by another program) holds every join it is part of.

Here the whole frame's work is one numbered list of items, cut in phases
(two sides, then the seam, twenty times over), and each thread takes the
next number from one shared counter (``next_item``: an atomic
fetch-and-add) until the list is done. An item of a phase waits only
until every item before its phase is finished (``wait_for``, on a second
counter that each finished item adds one to, ``item_done``), which can only
be items a running thread has already taken: so nothing waits for a
thread that has not come. A thread that wakes late finds the first items
done and joins in at the current phase; one that never comes leaves the
caller to do the lot, as on one thread. Each item computes the same
numbers whoever takes it, and the phases keep their order, so the results
are the same bit for bit on one thread or two.

The counters are read with acquire and added to with sequentially
consistent atomics (LLVM's ``load atomic`` and ``atomicrmw``), so the
positions one thread wrote in an item are what the other reads after its
wait. A wait spins: it waits for an item another running thread is in
the middle of (a few microseconds), never for a thread to arrive. On x86
each turn of the spin is a ``pause``, which lets a sibling hyperthread
run and leaves the loop without a pipeline flush.
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

TAKEN = 0
"""Slot of the counters that holds the number of the next item to take."""
DONE = 8
"""Slot that counts the items finished: a cache line (64 bytes) from ``TAKEN``, so a thread taking
an item does not take the line the other thread's wait is reading."""
SLOTS = 16
"""Length of a counters array (``new_counters``)."""

_X86 = binding.get_process_triple().startswith(("x86_64", "i386", "i686"))


def _slot_pointer(context: Any, builder: ir.IRBuilder, array_type: types.Array, array: Any, slot: int) -> Any:
    """A pointer to ``counters[slot]``."""
    counters = context.make_array(array_type)(context, builder, array)
    index = context.get_constant(types.intp, slot)
    return cgutils.get_item_pointer(context, builder, array_type, counters, [index])


def _check(counters: Any) -> None:
    if not (isinstance(counters, types.Array) and counters.ndim == 1 and counters.dtype == types.int64):
        raise TypingError(f"claims: the counters must be a 1-d int64 array, not {counters}")
    if not counters.mutable:
        raise TypingError("claims: the counters must be writable")


@intrinsic
def next_item(typingctx: Any, counters: types.Array) -> tuple[types.Signature, Any]:
    """Take the next item: its number (``counters[TAKEN]``, one added to it atomically)."""
    _check(counters)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        pointer = _slot_pointer(context, builder, sig.args[0], args[0], TAKEN)
        return builder.atomic_rmw("add", pointer, ir.Constant(ir.IntType(64), 1), "seq_cst")

    return types.int64(counters), codegen


@intrinsic
def item_done(typingctx: Any, counters: types.Array) -> tuple[types.Signature, Any]:
    """Count one more item finished (``counters[DONE]``): everything the thread wrote before is
    seen by a thread whose ``items_done`` reads the new count."""
    _check(counters)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        pointer = _slot_pointer(context, builder, sig.args[0], args[0], DONE)
        builder.atomic_rmw("add", pointer, ir.Constant(ir.IntType(64), 1), "seq_cst")
        return context.get_dummy_value()

    return types.none(counters), codegen


@intrinsic
def items_done(typingctx: Any, counters: types.Array) -> tuple[types.Signature, Any]:
    """How many items are finished (``counters[DONE]``, read with acquire)."""
    _check(counters)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        pointer = _slot_pointer(context, builder, sig.args[0], args[0], DONE)
        return builder.load_atomic(pointer, "acquire", 8)

    return types.int64(counters), codegen


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
def wait_for(counters: npt.NDArray[np.int64], count: int) -> None:
    """Spin until ``count`` items are finished: every item numbered below ``count`` when items are
    taken in order and none starts before the phases below it are done."""
    while items_done(counters) < count:
        spin_pause()


@numba.njit(cache=True, inline="always")
def new_counters() -> npt.NDArray[np.int64]:
    """Counters for one list of items: none taken, none done."""
    return np.zeros(SLOTS, dtype=np.int64)


def _plain_next_item(counters: Any) -> int:
    counters[TAKEN] += 1
    return int(counters[TAKEN] - 1)


def _plain_item_done(counters: Any) -> None:
    counters[DONE] += 1


def _plain_items_done(counters: Any) -> int:
    return int(counters[DONE])


def _plain_spin_pause() -> None:
    return None


if numba.config.DISABLE_JIT:  # kernels run as plain Python, on one thread: plain counts do
    next_item, item_done, items_done = _plain_next_item, _plain_item_done, _plain_items_done
    spin_pause = _plain_spin_pause
