"""Two rigid distance projections at once, in the core's two-lane vector registers.

A projection (``distance.relax_rigid_distances``) needs one square root and
one division, and the core has one unit for both. The two-lane forms
``sqrtpd`` and ``divpd`` take about the same time for two numbers as the
scalar forms for one, and a point's x and y fit one register, so two
projections that share no point cost little more than one: 2.8 to 3.0 ns a
thread instead of 4.7 one at a time on the 80 × 50 sheet (``project_two``;
measured 2026-12-04, where earlier sessions measured 2.4 to 2.6 against
3.3 to 3.5 on the same machine).

numba does not write that code itself: its loop vectoriser needs a loop
whose iterations are independent, which a Gauss-Seidel pass is not, and
its vectoriser of straight-line code (SLP) has been off by default since
it miscompiled (numba pull request 8852). So the pair is written here as
LLVM IR, in a numba intrinsic: the operations of the scalar projection,
lane by lane, in the same order. IEEE arithmetic rounds each lane as it
would round the number alone, so a pair projected at once ends exactly
where the two projected one after the other would (tests hold it to
that, bit for bit).
"""

from __future__ import annotations

from typing import Any

import numba
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

TINY = 1e-12
"""px: a thread shorter than this has no direction to push along: it is projected with ``s = 0``,
which leaves its ends where they were (``relax_rigid_distances``)."""

_TWO = ir.VectorType(ir.DoubleType(), 2)
_LANE = ir.IntType(32)


@intrinsic
def project_two(
    typingctx: Any,
    pos: types.Array,
    inv_mass: types.Array,
    ends: types.UniTuple,
    rest: types.UniTuple,
) -> tuple[types.Signature, Any]:
    """Project two alive threads that share no point at once; returns whether it did.

    ``pos`` is the ``(N, 2)`` C-contiguous float64 positions, ``inv_mass``
    ``(N,)`` float64; ``ends`` the particle indices ``(a0, b0, a1, b1)``,
    ``rest`` the two rest lengths. When a thread has ``w_a + w_b <= 0`` (both
    ends pinned), nothing is written and it returns False: the caller then
    projects the two one by one, as the scalar kernel would. A thread
    shorter than ``TINY`` gets ``s = 0`` in its lane, as in the scalar
    kernel: a select, where a branch on the square root's result took 4%
    of a pass.

    Each inverse mass is loaded into both lanes at once (``vmovddup`` from
    memory, no shuffle): the two sums are then scalar in each lane, and the
    ends' weights are ready to scale their ``(x, y)`` moves (2% of a pass
    against building the pairs of masses and spreading them again).
    """
    for name, array, ndim in (("pos", pos, 2), ("inv_mass", inv_mass, 1)):
        if not (isinstance(array, types.Array) and array.ndim == ndim and array.dtype == types.float64):
            raise TypingError(f"project_two: {name} must be a {ndim}-d float64 array, not {array}")
    if pos.layout != "C":
        raise TypingError(f"project_two: pos must be C-contiguous, not {pos}")
    signature = types.boolean(pos, inv_mass, ends, rest)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        positions, masses, end_tuple, rest_tuple = args
        index_type = sig.args[2].dtype
        indices = [
            context.cast(builder, builder.extract_value(end_tuple, k), index_type, types.intp)
            for k in range(4)
        ]
        point_data = context.make_array(sig.args[0])(context, builder, positions).data
        mass_array = context.make_array(sig.args[1])(context, builder, masses)

        def row(k: int) -> Any:
            """A pointer to particle ``ends[k]``'s (x, y), as one two-lane value."""
            first = builder.gep(point_data, [builder.shl(indices[k], ir.Constant(indices[k].type, 1))])
            return builder.bitcast(first, _TWO.as_pointer())

        def lanes(first: Any, second: Any) -> Any:
            """Two scalars as the two lanes of one value."""
            pair = builder.insert_element(ir.Constant(_TWO, ir.Undefined), first, _lane(0))
            return builder.insert_element(pair, second, _lane(1))

        def mass(k: int) -> Any:
            """Particle ``ends[k]``'s inverse mass in both lanes."""
            pointer = cgutils.get_item_pointer(context, builder, sig.args[1], mass_array, [indices[k]])
            one = builder.insert_element(ir.Constant(_TWO, ir.Undefined), builder.load(pointer), _lane(0))
            return spread(one, 0)

        def spread(pair: Any, lane: int) -> Any:
            """One lane of ``pair`` in both lanes."""
            return builder.shuffle_vector(pair, pair, ir.Constant(ir.VectorType(_LANE, 2), [lane, lane]))

        def either(flags: Any) -> Any:
            return builder.or_(
                builder.extract_element(flags, _lane(0)), builder.extract_element(flags, _lane(1))
            )

        wa = [mass(0), mass(2)]  # each thread's end a, both lanes
        wb = [mass(1), mass(3)]
        sums = [builder.fadd(wa[k], wb[k]) for k in range(2)]
        w = builder.shuffle_vector(sums[0], sums[1], ir.Constant(ir.VectorType(_LANE, 2), [0, 2]))
        pinned = either(builder.fcmp_unordered("<=", w, ir.Constant(_TWO, [0.0, 0.0])))
        with builder.if_then(builder.not_(pinned), likely=True):
            rows = [row(k) for k in range(4)]
            points = [builder.load(pointer, align=8) for pointer in rows]  # a0, b0, a1, b1
            d = [builder.fsub(points[0], points[1]), builder.fsub(points[2], points[3])]  # (dx, dy) each
            square = [builder.fmul(v, v) for v in d]
            # dx² + dy² of each thread, one per lane
            xs = builder.shuffle_vector(square[0], square[1], ir.Constant(ir.VectorType(_LANE, 2), [0, 2]))
            ys = builder.shuffle_vector(square[0], square[1], ir.Constant(ir.VectorType(_LANE, 2), [1, 3]))
            sqrt = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_TWO, [_TWO]), "llvm.sqrt.v2f64"
            )
            length = builder.call(sqrt, [builder.fadd(xs, ys)])
            short = builder.fcmp_ordered("<", length, ir.Constant(_TWO, [TINY, TINY]))
            # s = (rest - |d|) / ((w_a + w_b) |d|), 0 where short; then p_a += w_a (s d), p_b -= w_b (s d)
            rests = lanes(builder.extract_value(rest_tuple, 0), builder.extract_value(rest_tuple, 1))
            s = builder.fdiv(builder.fsub(rests, length), builder.fmul(w, length))
            s = builder.select(short, ir.Constant(_TWO, [0.0, 0.0]), s)
            for lane in range(2):
                sd = builder.fmul(spread(s, lane), d[lane])
                a, b = 2 * lane, 2 * lane + 1
                builder.store(builder.fadd(points[a], builder.fmul(wa[lane], sd)), rows[a], align=8)
                builder.store(builder.fsub(points[b], builder.fmul(wb[lane], sd)), rows[b], align=8)
        return builder.not_(pinned)

    return signature, codegen


def _lane(k: int) -> ir.Constant:
    return ir.Constant(_LANE, k)


def _one_by_one(pos: Any, inv_mass: Any, ends: Any, rest: Any) -> bool:
    """``project_two`` where kernels run as plain Python (``NUMBA_DISABLE_JIT``), which cannot run an
    intrinsic: it projects nothing and says so, and the caller projects the two one by one, which
    gives the same bits."""
    return False


if numba.config.DISABLE_JIT:
    project_two = _one_by_one
