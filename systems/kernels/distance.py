"""Gauss-Seidel relaxation of distance constraints (PBD, and XPBD when compliant).

One pass projects every alive constraint once, in index order
(``relax_distances``, ``relax_rigid_distances``). A large world is relaxed
in two sides at once (``relax_rigid_sides``, ``relax_sides``): the
constraints whose two ends are both below a particle index, those whose
ends are both at or above it, and then the seam of those that join the two
(``distance_sides``). The sides share no particle, so they give the same
numbers on one thread or two; the order changes only in that the seam
comes last. There, a run of threads that share no point and join
consecutive points (a sheet's row) is one vector loop (``distance_rows``:
1.6-1.9 ns a thread against the pairs' 2.75, the same bits).

Where the time goes (80 × 50 sheet, 7870 threads, this machine at about
3.7 GHz): a pass takes 2.8 to 3.0 ns a thread, one at a time 4.7. Of the
pair's time (``two_projections``, below) the square root and the division
are about 1 ns a thread: with them replaced by multiplications it takes
1.9 ns, and a pass that only loads and stores what a pass does takes 1.7.
Consecutive threads of a row share no point (``build_cloth``), so the core
is not waiting on the thread before: interleaving two independent streams
of pairs in one loop changed nothing (2.89 against 2.90 ns). Each extra
operation on a pair shows: a test of the new positions against the walls
in the pass took it from 3.0 to 4.6 ns, and a branch on the square root's
result (a too-short thread) cost 4% where a select costs 1%.

Rejected, measured on that sheet:

- graph colouring into four sets of independent threads: 3.55 ns a
  projection against 3.5 (the row order already lets the core overlap
  them), and a pass would no longer carry the pins' hold down the sheet;
- batches of 4 to 64 independent threads whose square roots and divisions
  numba vectorises as loops: 4.4 to 5.0 ns, the gathers and scatters
  through scratch cost more than the packed divider saves;
- inverse weights per thread precomputed once a frame (no inverse-mass
  loads, no pinned test): 3.4 ns, the division stays;
- the square root and division in single precision: 4.8 ns, the
  conversions cost more than the cheaper divider saves;
- a kept flag for each pair of threads that share no point (made with the
  cut), instead of four tests a pair: 7% of a pass, for a second path;
- Jakobsen's square-root-free projection ``s = (r² - d²) / ((r² + d²) w)``:
  2.9 ns one at a time, but a different formula, weaker the more a thread
  is stretched;
- four threads at once (``llvm.sqrt.v4f64`` and a four-lane division, the
  same bits, with a kept flag for each four that share no point): 3.00 ns
  against the pairs' 3.04. A thread's ends are next touched 39 threads or
  more later, so the pass is not waiting on itself, and the four-lane
  forms take as long per number as the two-lane ones (Zen 4, 2026-12).
- Newton steps for ``1/|d|`` from ``1/rest`` in place of the root and the
  division, each end's share of the weight kept a frame: 4.1, 5.2 and 6.2
  ns a thread for one, two and three steps against 2.94, and after one
  step 1765 of the 7870 threads ended outside the stretch the exact
  projection keeps;
- a pair with both ends of a thread pinned taken by a select as well
  (``s = 0`` in its lane), not sent one by one: 2.84 ns against 2.77.

numba's default error model tests every float division for a zero divisor
to raise ``ZeroDivisionError``; here a zero divisor's quotient is never used
(``w > 0`` is checked first, and a thread shorter than ``TINY`` takes
``s = 0`` instead), so the kernels use numpy's model (``jit.NO_DIVISION_CHECK``),
which divides without the test (3.45 -> 3.2 ns a projection, and the test
kept numba from vectorising any loop with a division).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.distance_rows import ANY, projected_ends, relax_row
from weft.systems.kernels.distance_sides import PARTS, SEAM_PART
from weft.systems.kernels.jit import INNER, NO_DIVISION_CHECK, kernel_with_threads
from weft.systems.kernels.two_projections import TINY, project_two

EQUAL = 0  # DistanceMode.EQUAL: held to its rest length both ways
MAX_ONLY = 1  # DistanceMode.MAX_ONLY: a rope, it pulls but never pushes


@numba.njit(cache=True)
def needs_general(compliance: npt.NDArray[np.float64], mode: npt.NDArray[np.uint8]) -> bool:
    """Whether any constraint is compliant or pull-only: then only ``relax_distances`` relaxes them
    right (one loop, where two numpy tests took 8 µs a frame for the sheet)."""
    general = False
    for c in range(compliance.shape[0]):
        general |= (compliance[c] != 0.0) | (mode[c] != EQUAL)
    return general


@numba.njit(cache=True, **NO_DIVISION_CHECK)
def relax_rigid_distances(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
) -> None:
    """One PBD pass when every constraint is rigid and two-way: ``relax_distances`` with compliance 0.

    The same projection, ``p_i += w_i s d``, ``p_j -= w_j s d`` with
    ``d = p_i - p_j`` and ``s = (rest - |d|) / ((w_i + w_j) |d|)``, without
    reading the compliance, multiplier and mode arrays (1.5 times as fast
    on a cloth), and bit-identical to the general kernel (a test holds them to it).

    Constraints go two at a time, ``2p`` and ``2p + 1``: when both are
    alive and movable and share no point, they are projected at once
    (``project_two``: the same numbers, in about three quarters of the
    time), else one after the other. ``pos`` must be C-contiguous ``(N, 2)``.
    """
    m = i.shape[0]
    for p in range(m // 2):
        # unsigned indices: numba then skips its negative-index test (15% of a pair's time)
        c = np.uint64(2) * np.uint64(p)
        d = c + np.uint64(1)
        a0, b0, a1, b1 = i[c], j[c], i[d], j[d]
        apart = a0 != a1 and a0 != b1 and b0 != a1 and b0 != b1
        if (
            alive[c]
            and alive[d]
            and apart
            and project_two(pos, inv_mass, (a0, b0, a1, b1), (rest[c], rest[d]))
        ):
            continue
        for k in (c, d):
            if alive[k]:
                _project_one(pos, inv_mass, i[k], j[k], rest[k])
    if m % 2 and alive[m - 1]:
        _project_one(pos, inv_mass, i[m - 1], j[m - 1], rest[m - 1])


@numba.njit(cache=True, inline="always", **NO_DIVISION_CHECK, **INNER)
def _project_one(
    pos: npt.NDArray[np.float64], inv_mass: npt.NDArray[np.float64], a: int, b: int, rest: float
) -> None:
    """One rigid projection of the alive thread from ``a`` to ``b``, in place."""
    pos[a, 0], pos[a, 1], pos[b, 0], pos[b, 1] = projected_ends(
        pos[a, 0], pos[a, 1], pos[b, 0], pos[b, 1], inv_mass[a], inv_mass[b], rest, True
    )


@numba.njit(cache=True, **NO_DIVISION_CHECK)
def relax_distances(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    compliance: npt.NDArray[np.float64],
    lam: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    mode: npt.NDArray[np.uint8],
    dt: float,
) -> None:
    """One Gauss-Seidel pass over the alive constraints, in index order.

    For ``C = |p_i - p_j| - rest`` and ``n = (p_i - p_j) / |p_i - p_j|``,
    XPBD (Macklin, Müller, Chentanez 2016) gives, with ``α̃ = compliance / dt²``,

        Δλ = (-C - α̃ λ) / (w_i + w_j + α̃),   p_i += w_i Δλ n,   p_j -= w_j Δλ n

    and accumulates ``λ`` over the iterations of a substep. With compliance 0
    this is plain PBD projection (Jakobsen 2001): each end moves its
    inverse-mass share of the error, and a pinned end (w = 0) stays put.
    Shapes: ``pos`` ``(N, 2)``; every constraint array ``(M,)``.
    """
    inv_dt2 = 1.0 / (dt * dt)
    for c in range(i.shape[0]):
        if not alive[c]:
            continue
        a = i[c]
        b = j[c]
        wa = inv_mass[a]
        wb = inv_mass[b]
        w = wa + wb
        if w == 0.0:
            continue
        dx = pos[a, 0] - pos[b, 0]
        dy = pos[a, 1] - pos[b, 1]
        length = math.sqrt(dx * dx + dy * dy)
        error = length - rest[c]
        if mode[c] == MAX_ONLY and error <= 0.0:
            continue
        alpha = compliance[c] * inv_dt2
        if length < TINY:  # coincident points have no direction to push along: s = 0 moves neither
            s = 0.0
        elif alpha == 0.0:
            s = (rest[c] - length) / (w * length)
        else:
            dlam = (-error - alpha * lam[c]) / (w + alpha)
            lam[c] += dlam
            s = dlam / length
        sx = s * dx
        sy = s * dy
        pos[a, 0] += wa * sx
        pos[a, 1] += wa * sy
        pos[b, 0] -= wb * sx
        pos[b, 1] -= wb * sy


@kernel_with_threads(**NO_DIVISION_CHECK)
def relax_rigid_sides(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    runs: npt.NDArray[np.int64],
    parts: npt.NDArray[np.int64],
) -> None:
    """``relax_rigid_distances`` in two sides at once, then the seam (``distance_sides``).

    ``runs`` ``(R, 3)`` are ranges ``[first, last)`` of constraint indices and their shape
    (``distance_rows``), each relaxed in index order, part after part (``distance_sides.PARTS``:
    side 0's are rows ``parts[0]`` to ``parts[2]`` of it, side 1's from there to ``parts[4]``, the
    seam's to ``parts[5]``).
    """
    for side in numba.prange(2):
        relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[2 * side] : parts[2 * side + 2]])
    relax_rigid_runs(pos, inv_mass, i, j, rest, alive, runs[parts[SEAM_PART] : parts[PARTS]])


@kernel_with_threads(**NO_DIVISION_CHECK)
def relax_sides(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    compliance: npt.NDArray[np.float64],
    lam: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    mode: npt.NDArray[np.uint8],
    dt: float,
    runs: npt.NDArray[np.int64],
    parts: npt.NDArray[np.int64],
) -> None:
    """``relax_distances`` in two sides at once, then the seam (runs and parts as for
    ``relax_rigid_sides``)."""
    for side in numba.prange(2):
        runs_of_side = runs[parts[2 * side] : parts[2 * side + 2]]
        _relax_runs(pos, inv_mass, i, j, rest, compliance, lam, alive, mode, dt, runs_of_side)
    _relax_runs(
        pos, inv_mass, i, j, rest, compliance, lam, alive, mode, dt, runs[parts[SEAM_PART] : parts[PARTS]]
    )


@numba.njit(cache=True, **INNER, **NO_DIVISION_CHECK)
def relax_rigid_runs(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    runs: npt.NDArray[np.int64],
) -> None:
    """Each run in turn: a row of threads that share no point as one vector loop (``relax_row``),
    any other through the whole-pass kernel on its slices."""
    flat = pos.reshape(-1)
    _relax_runs_in_turn(pos, flat, flat, inv_mass, i, j, rest, alive, runs)


@numba.njit(cache=True, **INNER, **NO_DIVISION_CHECK)
def _relax_runs_in_turn(
    pos: npt.NDArray[np.float64],
    top: npt.NDArray[np.float64],
    bottom: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    runs: npt.NDArray[np.int64],
) -> None:
    """``relax_rigid_runs``' loop, given the positions flattened twice (``top``, ``bottom``: the
    rows' loops are inlined here, and vectorised only where their two runs of points come from two
    arguments, ``relax_row``). A run that is no row goes through the whole-pass kernel on slices (a
    loop over a range that may start anywhere took 15% longer: each index then needs numba's
    negative-index test)."""
    for r in range(runs.shape[0]):
        first, last, shape = runs[r, 0], runs[r, 1], runs[r, 2]
        if shape != ANY:
            a, b = np.uint64(i[first]), np.uint64(j[first])
            relax_row(top, bottom, inv_mass, rest, alive, a, b, np.uint64(first), np.uint64(last - first))
            continue
        relax_rigid_distances(
            pos, inv_mass, i[first:last], j[first:last], rest[first:last], alive[first:last]
        )


@numba.njit(cache=True, **INNER, **NO_DIVISION_CHECK)
def _relax_runs(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    i: npt.NDArray[np.uint32],
    j: npt.NDArray[np.uint32],
    rest: npt.NDArray[np.float64],
    compliance: npt.NDArray[np.float64],
    lam: npt.NDArray[np.float64],
    alive: npt.NDArray[np.bool_],
    mode: npt.NDArray[np.uint8],
    dt: float,
    runs: npt.NDArray[np.int64],
) -> None:
    """``relax_rigid_runs`` for the general kernel."""
    for r in range(runs.shape[0]):
        first, last = runs[r, 0], runs[r, 1]
        relax_distances(
            pos, inv_mass, i[first:last], j[first:last], rest[first:last], compliance[first:last],
            lam[first:last], alive[first:last], mode[first:last], dt,
        )  # fmt: skip
