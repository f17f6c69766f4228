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
from weft.systems.kernels.box_points import (
    BASE,
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

VECTOR_LANES = not numba.config.DISABLE_JIT
"""Whether ``solve_lanes`` can run (not where kernels run as plain Python)."""

_WIDE = ir.VectorType(ir.DoubleType(), LANES)
_WIDE_INT = ir.VectorType(ir.IntType(64), LANES)
_FLAGS = ir.VectorType(ir.IntType(1), LANES)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)


class _Lanes:
    """Four-lane operations on batch ``batch`` of the solver's arrays, for an intrinsic's codegen:
    rows of a batch array as vectors, bodies gathered and scattered, and numba's scalar semantics
    (``max``, ``min``, comparisons) lane by lane."""

    def __init__(self, context: Any, builder: ir.IRBuilder, batch: Any) -> None:
        self.context = context
        self.builder = builder
        self.batch = batch

    def data(self, array_type: types.Array, value: Any) -> Any:
        """An array argument's data pointer."""
        return self.context.make_array(array_type)(self.context, self.builder, value).data

    def const(self, value: float) -> Any:
        return ir.Constant(_WIDE, [value] * LANES)

    def spread(self, scalar: Any, wide: ir.VectorType = _WIDE) -> Any:
        """A scalar in all four lanes."""
        builder = self.builder
        one = builder.insert_element(ir.Constant(wide, ir.Undefined), scalar, ir.Constant(_I32, 0))
        return builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(_I32, LANES), [0] * LANES))

    def row(self, pointer: Any, *terms: tuple[int, int], wide: ir.VectorType = _WIDE) -> Any:
        """A pointer to the row of ``LANES`` of batch ``batch`` at ``terms`` ((size, index) of each
        dimension after the first) in a C-contiguous batch array: ``array[batch, i1, i2, :]``."""
        builder = self.builder
        offset = self.batch
        for size, index in terms:
            offset = builder.add(builder.mul(offset, ir.Constant(_I64, size)), ir.Constant(_I64, index))
        offset = builder.mul(offset, ir.Constant(_I64, LANES))
        return builder.bitcast(builder.gep(pointer, [offset]), wide.as_pointer())

    def load(self, pointer: Any) -> Any:
        return self.builder.load(pointer, align=8)

    def store(self, value: Any, pointer: Any) -> None:
        self.builder.store(value, pointer, align=8)

    def gather(self, indices: Any, pointer: Any, width: int, column: int) -> Any:
        """``pointer[indices[lane] * width + column]`` in each lane (a column of a ``(rows, width)``
        array, at each lane's row)."""
        builder = self.builder
        wide = ir.Constant(_WIDE, ir.Undefined)
        for lane in range(LANES):
            index = builder.extract_element(indices, ir.Constant(_I32, lane))
            flat = builder.add(builder.mul(index, ir.Constant(_I64, width)), ir.Constant(_I64, column))
            wide = builder.insert_element(
                wide, builder.load(builder.gep(pointer, [flat])), ir.Constant(_I32, lane)
            )
        return wide

    def scatter(self, indices: Any, pointer: Any, values: tuple[Any, ...], lanes: Any) -> None:
        """Each of ``lanes``' values into its row of a ``(rows, len(values))`` array, column by column."""
        builder = self.builder
        for lane in range(LANES):
            k = ir.Constant(_I32, lane)
            with builder.if_then(builder.extract_element(lanes, k), likely=True):
                base = builder.mul(builder.extract_element(indices, k), ir.Constant(_I64, len(values)))
                for column, value in enumerate(values):
                    flat = builder.add(base, ir.Constant(_I64, column))
                    builder.store(builder.extract_element(value, k), builder.gep(pointer, [flat]))

    def moves(self, inv_mass: Any, inv_inertia: Any) -> Any:
        """The lanes whose body takes impulses (not both inverses zero: ``load_bodies``' ``fixed``)."""
        builder = self.builder
        zero = self.const(0.0)
        fixed = builder.and_(
            builder.fcmp_ordered("==", inv_mass, zero), builder.fcmp_ordered("==", inv_inertia, zero)
        )
        return self.negate(fixed)

    def less(self, x: Any, y: Any) -> Any:
        return self.builder.fcmp_ordered("<", x, y)

    def greater(self, x: Any, y: Any) -> Any:
        return self.builder.fcmp_ordered(">", x, y)

    def largest(self, acc: Any, value: Any) -> Any:
        """numba's ``max(acc, value)``: ``value`` where ``value > acc``, else ``acc``."""
        return self.builder.select(self.greater(value, acc), value, acc)

    def smallest(self, acc: Any, value: Any) -> Any:
        """numba's ``min(acc, value)``: ``value`` where ``value < acc``, else ``acc``."""
        return self.builder.select(self.less(value, acc), value, acc)

    def negate(self, flags: Any) -> Any:
        return self.builder.xor(flags, ir.Constant(_FLAGS, [1] * LANES))


def _check_arrays(name: str, expected: tuple[tuple[str, int, Any], ...], given: tuple[Any, ...]) -> None:
    """A typing error unless each array is C-contiguous with the dimensions and dtype expected."""
    for (label, ndim, dtype), array in zip(expected, given, strict=True):
        if not (isinstance(array, types.Array) and array.ndim == ndim and array.dtype == dtype):
            raise TypingError(f"{name}: {label} must be a {ndim}-d {dtype} array, not {array}")
        if array.layout != "C":
            raise TypingError(f"{name}: {label} must be C-contiguous, not {array}")


_SOLVE_ARRAYS = (
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
    _check_arrays("solve_lanes", _SOLVE_ARRAYS, given)
    if not (isinstance(rules, types.UniTuple) and rules.count == 4 and rules.dtype == types.float64):
        raise TypingError(f"solve_lanes: rules must be four floats, not {rules}")
    signature = types.none(*given, t, it, use_soft, use_baumgarte, rules)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:

        v = _Lanes(context, builder, context.cast(builder, args[10], sig.args[10], types.int64))
        data = [v.data(sig.args[k], args[k]) for k in range(len(_SOLVE_ARRAYS))]
        body_data, inverse_data, con_data, impulse_data, gap_data, soft_data, mu_data = data[:7]
        a_data, b_data, passes_data = data[7:]
        pass_index = context.cast(builder, args[11], sig.args[11], types.int64)
        soft_on, baumgarte_on = args[12], args[13]
        inv_h, slop, share, push_speed = (builder.extract_value(args[14], k) for k in range(4))
        add, sub, mul, div, select = builder.fadd, builder.fsub, builder.fmul, builder.fdiv, builder.select
        less, greater, largest, smallest, negate = v.less, v.greater, v.largest, v.smallest, v.negate
        zero, one = v.const(0.0), v.const(1.0)

        def field(p: int, name: int) -> Any:
            return v.load(v.row(con_data, (2, p), (FIELDS, name)))

        lanes_a = v.load(v.row(a_data, wide=_WIDE_INT))
        lanes_b = v.load(v.row(b_data, wide=_WIDE_INT))
        owed = builder.icmp_signed(
            "<", v.spread(pass_index, _WIDE_INT), v.load(v.row(passes_data, wide=_WIDE_INT))
        )
        vax, vay, wa = (v.gather(lanes_a, body_data, 3, k) for k in range(3))
        vbx, vby, wb = (v.gather(lanes_b, body_data, 3, k) for k in range(3))
        ma, ia = (v.gather(lanes_a, inverse_data, 2, k) for k in range(2))
        mb, ib = (v.gather(lanes_b, inverse_data, 2, k) for k in range(2))

        # _target, each point: the bias b and softness γ at its gap
        soft_rate = v.load(v.row(soft_data, (2, 0)))
        soft_gamma = v.load(v.row(soft_data, (2, 1)))
        inv_h_wide, slop_wide = v.spread(inv_h), v.spread(slop)
        share_rate = v.spread(builder.fmul(share, inv_h))
        least = v.spread(builder.fneg(push_speed))

        def target(p: int) -> tuple[Any, Any]:
            s = v.load(v.row(gap_data, (2, p)))
            apart = greater(s, zero)
            soft_bias = largest(mul(soft_rate, s), least)
            closed = add(s, slop_wide)
            baumgarte_bias = select(less(closed, zero), largest(mul(share_rate, closed), least), zero)
            pushed = select(soft_on, soft_bias, select(baumgarte_on, baumgarte_bias, zero))
            give = select(soft_on, soft_gamma, zero)
            return select(apart, mul(s, inv_h_wide), pushed), select(apart, zero, give)

        b0, g0 = target(0)
        b1, g1 = target(1)

        # _block: both normal impulses, every case computed and the one the scalar code takes kept
        nx, ny = field(0, NX), field(0, NY)
        k00, k11, k01 = field(0, NORMAL_K), field(1, NORMAL_K), field(0, CROSS_K)
        rna0, rnb0, rna1, rnb1 = field(0, RNA), field(0, RNB), field(1, RNA), field(1, RNB)
        use0, use1 = greater(k00, zero), greater(k11, zero)
        normal0, normal1 = v.row(impulse_data, (2, 0), (2, 0)), v.row(impulse_data, (2, 1), (2, 0))
        old0, old1 = v.load(normal0), v.load(normal1)
        dvx, dvy = sub(vbx, vax), sub(vby, vay)
        along = add(mul(dvx, nx), mul(dvy, ny))
        vn0 = add(along, sub(mul(wb, rnb0), mul(wa, rna0)))
        vn1 = add(along, sub(mul(wb, rnb1), mul(wa, rna1)))
        a00 = mul(k00, add(one, g0))
        a11 = mul(k11, add(one, g1))
        det = sub(mul(a00, a11), mul(k01, k01))
        block = builder.and_(builder.and_(use0, use1), less(mul(a00, a00), mul(v.const(MAX_CONDITION), det)))
        r0 = sub(sub(add(mul(k00, old0), mul(k01, old1)), vn0), b0)
        r1 = sub(sub(add(mul(k01, old0), mul(k11, old1)), vn1), b1)
        inv_det = div(one, det)
        both0 = mul(sub(mul(a11, r0), mul(k01, r1)), inv_det)
        both1 = mul(sub(mul(a00, r1), mul(k01, r0)), inv_det)
        first0 = div(r0, a00)
        second1 = div(r1, a11)
        use_both = negate(builder.or_(less(both0, zero), less(both1, zero)))
        use_first = negate(builder.or_(less(first0, zero), less(sub(mul(k01, first0), r1), zero)))
        use_second = negate(builder.or_(less(second1, zero), less(sub(mul(k01, second1), r0), zero)))
        block0 = select(use_both, both0, select(use_first, first0, zero))
        block1 = select(use_both, both1, select(use_first, zero, select(use_second, second1, zero)))
        # one point (or two too close to solve as a block): one after the other
        alone0 = select(use0, largest(div(sub(mul(old0, k00), add(vn0, b0)), a00), zero), old0)
        vn1_after = select(use0, add(vn1, mul(sub(alone0, old0), k01)), vn1)
        alone1 = select(use1, largest(div(sub(mul(old1, k11), add(vn1_after, b1)), a11), zero), old1)
        x0 = select(owed, select(block, block0, alone0), old0)
        x1 = select(owed, select(block, block1, alone1), old1)
        v.store(x0, normal0)
        v.store(x1, normal1)
        d0, d1 = sub(x0, old0), sub(x1, old1)
        total = add(d0, d1)
        vax = sub(vax, mul(total, mul(ma, nx)))
        vay = sub(vay, mul(total, mul(ma, ny)))
        wa = sub(wa, mul(ia, add(mul(d0, rna0), mul(d1, rna1))))
        vbx = add(vbx, mul(total, mul(mb, nx)))
        vby = add(vby, mul(total, mul(mb, ny)))
        wb = add(wb, mul(ib, add(mul(d0, rnb0), mul(d1, rnb1))))

        # _friction, each point, bounded by what its normal impulse ended the pass with
        lane_mu = v.load(v.row(mu_data))
        for p, normal in ((0, x0), (1, x1)):
            fx, fy = field(p, NX), field(p, NY)
            rta, rtb = field(p, RTA), field(p, RTB)
            vt = add(sub(mul(sub(vbx, vax), fy), mul(sub(vby, vay), fx)), sub(mul(wb, rtb), mul(wa, rta)))
            tangent = v.row(impulse_data, (2, p), (2, 1))
            old = v.load(tangent)
            limit = mul(lane_mu, normal)
            clamped = smallest(largest(sub(old, mul(field(p, TANGENT_MASS), vt)), builder.fneg(limit)), limit)
            new = select(owed, clamped, old)
            v.store(new, tangent)
            step = sub(new, old)
            vax = sub(vax, mul(step, mul(ma, fy)))
            vay = add(vay, mul(step, mul(ma, fx)))
            wa = sub(wa, mul(step, mul(ia, rta)))
            vbx = add(vbx, mul(step, mul(mb, fy)))
            vby = sub(vby, mul(step, mul(mb, fx)))
            wb = add(wb, mul(step, mul(ib, rtb)))

        # the velocities back, from owed lanes, to the bodies that move
        v.scatter(lanes_a, body_data, (vax, vay, wa), builder.and_(owed, v.moves(ma, ia)))
        v.scatter(lanes_b, body_data, (vbx, vby, wb), builder.and_(owed, v.moves(mb, ib)))
        return context.get_dummy_value()

    return signature, codegen


_WARM_ARRAYS = (
    ("body", 2, types.float64),
    ("inverse", 2, types.float64),
    ("con", 4, types.float64),
    ("impulse", 4, types.float64),
    ("lane_a", 2, types.int64),
    ("lane_b", 2, types.int64),
)


@intrinsic
def warm_lanes(
    typingctx: Any,
    body: types.Array,
    inverse: types.Array,
    con: types.Array,
    impulse: types.Array,
    lane_a: types.Array,
    lane_b: types.Array,
    t: types.Integer,
) -> tuple[types.Signature, Any]:
    """Batch ``t``'s warm start, its four lanes at once, as ``_warm_start_range`` applies it: both
    points' impulses summed from zero, then each moving body's velocities written once."""
    given = (body, inverse, con, impulse, lane_a, lane_b)
    _check_arrays("warm_lanes", _WARM_ARRAYS, given)
    signature = types.none(*given, t)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        v = _Lanes(context, builder, context.cast(builder, args[6], sig.args[6], types.int64))
        body_data, inverse_data, con_data, impulse_data, a_data, b_data = (
            v.data(sig.args[k], args[k]) for k in range(len(_WARM_ARRAYS))
        )
        add, sub, mul = builder.fadd, builder.fsub, builder.fmul
        px = py = turn_a = turn_b = v.const(0.0)
        for p in range(2):
            normal = v.load(v.row(impulse_data, (2, p), (2, 0)))
            tangent = v.load(v.row(impulse_data, (2, p), (2, 1)))

            def field(name: int, p: int = p) -> Any:
                return v.load(v.row(con_data, (2, p), (FIELDS, name)))

            nx, ny = field(NX), field(NY)
            px = add(px, add(mul(normal, nx), mul(tangent, ny)))
            py = add(py, sub(mul(normal, ny), mul(tangent, nx)))
            turn_a = add(turn_a, add(mul(normal, field(RNA)), mul(tangent, field(RTA))))
            turn_b = add(turn_b, add(mul(normal, field(RNB)), mul(tangent, field(RTB))))
        for lanes_data, sign, turn in ((a_data, sub, turn_a), (b_data, add, turn_b)):
            lanes = v.load(v.row(lanes_data, wide=_WIDE_INT))
            inv_mass, inv_inertia = v.gather(lanes, inverse_data, 2, 0), v.gather(lanes, inverse_data, 2, 1)
            vx, vy, w = (v.gather(lanes, body_data, 3, k) for k in range(3))
            moved = (
                sign(vx, mul(inv_mass, px)),
                sign(vy, mul(inv_mass, py)),
                sign(w, mul(inv_inertia, turn)),
            )
            v.scatter(lanes, body_data, moved, v.moves(inv_mass, inv_inertia))
        return context.get_dummy_value()

    return signature, codegen


_MEASURE_ARRAYS = (
    ("con", 4, types.float64),
    ("delta", 2, types.float64),
    ("gap", 3, types.float64),
    ("lane_a", 2, types.int64),
    ("lane_b", 2, types.int64),
)


@intrinsic
def measure_lanes(
    typingctx: Any,
    con: types.Array,
    delta: types.Array,
    gap: types.Array,
    lane_a: types.Array,
    lane_b: types.Array,
    t: types.Integer,
) -> tuple[types.Signature, Any]:
    """Batch ``t``'s gaps now, its four lanes at once, as ``_gap`` measures them (``delta``
    ``(bodies, 4)``: each body's move and the cosine and sine of its turn)."""
    given = (con, delta, gap, lane_a, lane_b)
    _check_arrays("measure_lanes", _MEASURE_ARRAYS, given)
    signature = types.none(*given, t)

    def codegen(context: Any, builder: ir.IRBuilder, sig: types.Signature, args: tuple[Any, ...]) -> Any:
        v = _Lanes(context, builder, context.cast(builder, args[5], sig.args[5], types.int64))
        con_data, delta_data, gap_data, a_data, b_data = (
            v.data(sig.args[k], args[k]) for k in range(len(_MEASURE_ARRAYS))
        )
        add, sub, mul = builder.fadd, builder.fsub, builder.fmul
        lanes_a = v.load(v.row(a_data, wide=_WIDE_INT))
        lanes_b = v.load(v.row(b_data, wide=_WIDE_INT))
        moved_a = [v.gather(lanes_a, delta_data, 4, k) for k in range(4)]
        moved_b = [v.gather(lanes_b, delta_data, 4, k) for k in range(4)]
        for p in range(2):

            def field(name: int, p: int = p) -> Any:
                return v.load(v.row(con_data, (2, p), (FIELDS, name)))

            # an anchor r turned by (c, s) lies c (r · n) + s (r × n) along n, and r · n = -(r × t)
            moved = add(
                mul(sub(moved_b[0], moved_a[0]), field(NX)), mul(sub(moved_b[1], moved_a[1]), field(NY))
            )
            turned_b = sub(mul(moved_b[3], field(RNB)), mul(moved_b[2], field(RTB)))
            turned_a = sub(mul(moved_a[3], field(RNA)), mul(moved_a[2], field(RTA)))
            v.store(add(add(moved, sub(turned_b, turned_a)), field(BASE)), v.row(gap_data, (2, p)))
        return context.get_dummy_value()

    return signature, codegen
