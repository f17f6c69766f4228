"""A batch's four lanes solved at once, in the core's four-wide vector registers.

A pass of the contact solver (``box_contact_solver._solve``) works a batch
of ``LANES`` manifolds that share no moving box. Written as a loop over the
lanes, each lane is a chain of about 150 instructions (both normal impulses
as a 2 × 2 block, then each point's friction), and the core's window of
instructions in flight holds about two of them: the four chains are
independent, but the core sees too little of them at once to overlap them.
Here the four lanes are one chain of vector instructions, each doing the
four lanes' same step (Box2D v3 solves its contacts so, four or eight
"wide"): the batch's constants are laid out lane beside lane
(``(batches, 2, FIELDS, LANES)``), so each field is one vector load, and
only the bodies' velocities are gathered and scattered.

numba does not write that code itself (its straight-line vectoriser is off,
and a loop of four turns is unrolled before its loop vectoriser sees it),
so it is written here as LLVM IR, in a numba intrinsic, like
``two_projections``: the operations of the scalar lane, in the same order,
each on four lanes. IEEE arithmetic rounds each lane as it would round the
number alone, and every branch of the scalar code (which case of the block
holds, which bias applies, the clamps) becomes a select of the value the
scalar code would have taken, so each lane ends with exactly the bits the
lane loop gives (tests hold it to that). Lanes not owed this pass (an empty
lane, or fewer passes) keep their impulses; a body is written back only
from an owed lane and only when it moves: a fixed body (the walls) may sit
in several lanes of a batch, and takes no impulse.

Under ``NUMBA_DISABLE_JIT`` an intrinsic cannot run: ``VECTOR_LANES`` is
False and the pass runs its lanes one by one, to the same bits.
"""

from __future__ import annotations

from typing import Any

import numba
from llvmlite import ir
from numba import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

from weft.systems.kernels.box_batches import LANES

VECTOR_LANES = not numba.config.DISABLE_JIT
"""Whether ``solve_lanes`` can run (not where kernels run as plain Python)."""

_WIDE = ir.VectorType(ir.DoubleType(), LANES)
_WIDE_INT = ir.VectorType(ir.IntType(64), LANES)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)

_ARRAYS = (
    ("body", 2, types.float64),
    ("inverse", 2, types.float64),
    ("con", 4, types.float64),
    ("impulse", 4, types.float64),
    ("gap", 3, types.float64),
    ("soft", 3, types.float64),
    ("mu", 2, types.float64),
    ("lane_a", 2, types.int64),
    ("lane_b", 2, types.int64),
    ("passes", 2, types.int64),
)


@intrinsic
def solve_lanes(
    typingctx: Any,
    body: types.Array,
    inverse: types.Array,
    con: types.Array,
    impulse: types.Array,
    gap: types.Array,
    soft: types.Array,
    mu: types.Array,
    lane_a: types.Array,
    lane_b: types.Array,
    passes: types.Array,
    t: types.Integer,
    it: types.Integer,
    use_soft: types.Boolean,
    use_baumgarte: types.Boolean,
    rules: types.UniTuple,
) -> tuple[types.Signature, Any]:
    """One pass over batch ``t``'s four lanes, those owed pass ``it`` (``passes``), at once: each
    lane's normals as ``_normals`` solves them (bias by ``use_soft``, ``use_baumgarte`` and ``rules``
    ``(inv_h, slop, share, push_speed)``, as ``_target``), then each point's friction (``_friction``).

    The arrays are the solver's (``box_contact_solver.Batches``, ``body``, ``inverse``, ``gap``), all
    C-contiguous: ``body`` ``(bodies, 3)``, ``inverse`` ``(bodies, 2)``, ``con`` ``(batches, 2,
    FIELDS, LANES)``, ``impulse`` ``(batches, 2, 2, LANES)``, ``gap`` and ``soft`` ``(batches, 2,
    LANES)``, ``mu``, ``lane_a``, ``lane_b`` and ``passes`` ``(batches, LANES)``.
    """
    given = (body, inverse, con, impulse, gap, soft, mu, lane_a, lane_b, passes)
    for (name, ndim, dtype), array in zip(_ARRAYS, given, strict=True):
        if not (isinstance(array, types.Array) and array.ndim == ndim and array.dtype == dtype):
            raise TypingError(f"solve_lanes: {name} must be a {ndim}-d {dtype} array, not {array}")
        if array.layout != "C":
            raise TypingError(f"solve_lanes: {name} must be C-contiguous, not {array}")
    if not (isinstance(rules, types.UniTuple) and rules.count == 4 and rules.dtype == types.float64):
        raise TypingError(f"solve_lanes: rules must be four floats, not {rules}")
    signature = types.none(*given, t, it, use_soft, use_baumgarte, rules)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        # the point's fields and the block's bound live with the scalar solver, which imports this
        from weft.systems.kernels.box_contact_solver import (
            CROSS_K,
            FIELDS,
            MAX_CONDITION,
            NORMAL_K,
            NX,
            NY,
            RNA,
            RNB,
            RTA,
            RTB,
            TANGENT_MASS,
        )

        data = [context.make_array(sig.args[k])(context, builder, args[k]).data for k in range(len(_ARRAYS))]
        body_data, inverse_data, con_data, impulse_data, gap_data, soft_data, mu_data = data[:7]
        a_data, b_data, passes_data = data[7:]
        batch = context.cast(builder, args[10], sig.args[10], types.int64)
        pass_index = context.cast(builder, args[11], sig.args[11], types.int64)
        soft_on = context.cast(builder, args[12], sig.args[12], types.boolean)
        baumgarte_on = context.cast(builder, args[13], sig.args[13], types.boolean)
        inv_h, slop, share, push_speed = (builder.extract_value(args[14], k) for k in range(4))

        def const(value: float) -> Any:
            return ir.Constant(_WIDE, [value] * LANES)

        def spread(scalar: Any) -> Any:
            """A scalar in all four lanes."""
            wide = builder.insert_element(ir.Constant(_WIDE, ir.Undefined), scalar, ir.Constant(_I32, 0))
            return builder.shuffle_vector(wide, wide, ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES))

        def at(*terms: int | Any) -> Any:
            """``((t · d1 + i1) · d2 + i2) ...``: the flat offset of a row of LANES in a batch array,
            from ``t`` and (dimension, index) pairs, times LANES."""
            offset = batch
            for size, index in terms:
                offset = builder.add(builder.mul(offset, ir.Constant(_I64, size)), ir.Constant(_I64, index))
            return builder.mul(offset, ir.Constant(_I64, LANES))

        def wide_row(pointer: Any, *terms: Any) -> Any:
            return builder.bitcast(builder.gep(pointer, [at(*terms)]), _WIDE.as_pointer())

        def load(pointer: Any) -> Any:
            return builder.load(pointer, align=8)

        def field(p: int, name: int) -> Any:
            return load(wide_row(con_data, (2, p), (FIELDS, name)))

        def impulse_row(p: int, kind: int) -> Any:
            return wide_row(impulse_data, (2, p), (2, kind))

        lanes_a = load(builder.bitcast(builder.gep(a_data, [at()]), _WIDE_INT.as_pointer()))
        lanes_b = load(builder.bitcast(builder.gep(b_data, [at()]), _WIDE_INT.as_pointer()))
        owed_passes = load(builder.bitcast(builder.gep(passes_data, [at()]), _WIDE_INT.as_pointer()))
        owed = builder.icmp_signed("<", spread_int(builder, pass_index), owed_passes)

        def gather(indices: Any, pointer: Any, width: int, column: int) -> Any:
            """``pointer[indices[lane] * width + column]`` in each lane."""
            wide = ir.Constant(_WIDE, ir.Undefined)
            for lane in range(LANES):
                index = builder.extract_element(indices, ir.Constant(_I32, lane))
                flat = builder.add(builder.mul(index, ir.Constant(_I64, width)), ir.Constant(_I64, column))
                value = builder.load(builder.gep(pointer, [flat]))
                wide = builder.insert_element(wide, value, ir.Constant(_I32, lane))
            return wide

        vax, vay, wa = (gather(lanes_a, body_data, 3, k) for k in range(3))
        vbx, vby, wb = (gather(lanes_b, body_data, 3, k) for k in range(3))
        ma, ia = (gather(lanes_a, inverse_data, 2, k) for k in range(2))
        mb, ib = (gather(lanes_b, inverse_data, 2, k) for k in range(2))

        add, sub, mul, div = builder.fadd, builder.fsub, builder.fmul, builder.fdiv
        select = builder.select
        zero = const(0.0)

        def less(x: Any, y: Any) -> Any:
            return builder.fcmp_ordered("<", x, y)

        def greater(x: Any, y: Any) -> Any:
            return builder.fcmp_ordered(">", x, y)

        def largest(acc: Any, value: Any) -> Any:
            """numba's ``max(acc, value)``: ``value`` where ``value > acc``, else ``acc``."""
            return select(greater(value, acc), value, acc)

        def smallest(acc: Any, value: Any) -> Any:
            """numba's ``min(acc, value)``."""
            return select(less(value, acc), value, acc)

        def either(x: Any, y: Any) -> Any:
            return builder.or_(x, y)

        def negate(flags: Any) -> Any:
            return builder.xor(flags, ir.Constant(ir.VectorType(ir.IntType(1), LANES), [1] * LANES))

        # _target, each point: the bias b and softness γ at its gap
        soft_rate = load(wide_row(soft_data, (2, 0)))
        soft_gamma = load(wide_row(soft_data, (2, 1)))
        inv_h_wide, slop_wide = spread(inv_h), spread(slop)
        share_rate = spread(builder.fmul(share, inv_h))
        least = spread(builder.fneg(push_speed))

        def target(p: int) -> tuple[Any, Any]:
            s = load(wide_row(gap_data, (2, p)))
            apart = greater(s, zero)
            soft_bias = largest(mul(soft_rate, s), least)
            closed = add(s, slop_wide)
            baumgarte_bias = select(less(closed, zero), largest(mul(share_rate, closed), least), zero)
            pushed = select(soft_on, soft_bias, select(baumgarte_on, baumgarte_bias, zero))
            give = select(soft_on, soft_gamma, zero)
            return select(apart, mul(s, inv_h_wide), pushed), select(apart, zero, give)

        b0, g0 = target(0)
        b1, g1 = target(1)

        # _block: both normal impulses
        nx, ny = field(0, NX), field(0, NY)
        k00, k11, k01 = field(0, NORMAL_K), field(1, NORMAL_K), field(0, CROSS_K)
        rna0, rnb0, rna1, rnb1 = field(0, RNA), field(0, RNB), field(1, RNA), field(1, RNB)
        use0, use1 = greater(k00, zero), greater(k11, zero)
        normal0, normal1 = impulse_row(0, 0), impulse_row(1, 0)
        old0, old1 = load(normal0), load(normal1)
        dvx, dvy = sub(vbx, vax), sub(vby, vay)
        along = add(mul(dvx, nx), mul(dvy, ny))
        vn0 = add(along, sub(mul(wb, rnb0), mul(wa, rna0)))
        vn1 = add(along, sub(mul(wb, rnb1), mul(wa, rna1)))
        one = const(1.0)
        a00 = mul(k00, add(one, g0))
        a11 = mul(k11, add(one, g1))
        det = sub(mul(a00, a11), mul(k01, k01))
        block = builder.and_(builder.and_(use0, use1), less(mul(a00, a00), mul(const(MAX_CONDITION), det)))
        r0 = sub(sub(add(mul(k00, old0), mul(k01, old1)), vn0), b0)
        r1 = sub(sub(add(mul(k01, old0), mul(k11, old1)), vn1), b1)
        inv_det = div(one, det)
        both0 = mul(sub(mul(a11, r0), mul(k01, r1)), inv_det)
        both1 = mul(sub(mul(a00, r1), mul(k01, r0)), inv_det)
        first0 = div(r0, a00)
        second1 = div(r1, a11)
        use_both = negate(either(less(both0, zero), less(both1, zero)))
        use_first = negate(either(less(first0, zero), less(sub(mul(k01, first0), r1), zero)))
        use_second = negate(either(less(second1, zero), less(sub(mul(k01, second1), r0), zero)))
        block0 = select(use_both, both0, select(use_first, first0, zero))
        block1 = select(use_both, both1, select(use_first, zero, select(use_second, second1, zero)))
        # one point (or two too close to solve as a block): one after the other
        alone0 = select(use0, largest(div(sub(mul(old0, k00), add(vn0, b0)), a00), zero), old0)
        vn1_after = select(use0, add(vn1, mul(sub(alone0, old0), k01)), vn1)
        alone1 = select(use1, largest(div(sub(mul(old1, k11), add(vn1_after, b1)), a11), zero), old1)
        x0 = select(owed, select(block, block0, alone0), old0)
        x1 = select(owed, select(block, block1, alone1), old1)
        builder.store(x0, normal0, align=8)
        builder.store(x1, normal1, align=8)
        d0, d1 = sub(x0, old0), sub(x1, old1)
        total = add(d0, d1)
        vax = sub(vax, mul(total, mul(ma, nx)))
        vay = sub(vay, mul(total, mul(ma, ny)))
        wa = sub(wa, mul(ia, add(mul(d0, rna0), mul(d1, rna1))))
        vbx = add(vbx, mul(total, mul(mb, nx)))
        vby = add(vby, mul(total, mul(mb, ny)))
        wb = add(wb, mul(ib, add(mul(d0, rnb0), mul(d1, rnb1))))

        # _friction, each point
        lane_mu = load(wide_row(mu_data))
        for p, normal in ((0, x0), (1, x1)):
            fx, fy = field(p, NX), field(p, NY)
            rta, rtb = field(p, RTA), field(p, RTB)
            vt = add(sub(mul(sub(vbx, vax), fy), mul(sub(vby, vay), fx)), sub(mul(wb, rtb), mul(wa, rta)))
            tangent = impulse_row(p, 1)
            old = load(tangent)
            limit = mul(lane_mu, normal)
            clamped = smallest(largest(sub(old, mul(field(p, TANGENT_MASS), vt)), builder.fneg(limit)), limit)
            new = select(owed, clamped, old)
            builder.store(new, tangent, align=8)
            step = sub(new, old)
            vax = sub(vax, mul(step, mul(ma, fy)))
            vay = add(vay, mul(step, mul(ma, fx)))
            wa = sub(wa, mul(step, mul(ia, rta)))
            vbx = add(vbx, mul(step, mul(mb, fy)))
            vby = sub(vby, mul(step, mul(mb, fx)))
            wb = add(wb, mul(step, mul(ib, rtb)))

        # the velocities back, from owed lanes, to the bodies that move
        def scatter(indices: Any, pointer: Any, values: tuple[Any, Any, Any], moves: Any) -> None:
            for lane in range(LANES):
                k = ir.Constant(_I32, lane)
                with builder.if_then(builder.extract_element(moves, k), likely=True):
                    base = builder.mul(builder.extract_element(indices, k), ir.Constant(_I64, 3))
                    for column, value in enumerate(values):
                        flat = builder.add(base, ir.Constant(_I64, column))
                        builder.store(builder.extract_element(value, k), builder.gep(pointer, [flat]))

        def moving(inv_mass: Any, inv_inertia: Any) -> Any:
            fixed = builder.and_(
                builder.fcmp_ordered("==", inv_mass, zero), builder.fcmp_ordered("==", inv_inertia, zero)
            )
            return builder.and_(owed, negate(fixed))

        scatter(lanes_a, body_data, (vax, vay, wa), moving(ma, ia))
        scatter(lanes_b, body_data, (vbx, vby, wb), moving(mb, ib))
        return context.get_dummy_value()

    return signature, codegen


def spread_int(builder: ir.IRBuilder, scalar: Any) -> Any:
    """A 64-bit integer in all four lanes."""
    wide = builder.insert_element(ir.Constant(_WIDE_INT, ir.Undefined), scalar, ir.Constant(_I32, 0))
    return builder.shuffle_vector(wide, wide, ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES))
