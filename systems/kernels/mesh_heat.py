"""Heat on a triangle mesh: the cotangent Laplacian, lumped masses, and a screened Poisson solve.

Bone heat (Baran and Popović 2007, "Automatic rigging and animation of 3D
characters") finds a bone's weight ``w`` on a mesh as the steady state of
heat that each vertex draws from its nearest visible bone ``p`` (1 for
that bone, 0 for the others) through a conductance ``h``:

    (L + M·H) w = M·H p,

with ``L`` the cotangent Laplacian (the finite-element stiffness of linear
triangles: ``L_ij = -½ (cot α_ij + cot β_ij)`` over the two angles opposite
edge ij, ``L_ii = -Σ_j L_ij``), ``M`` the lumped vertex areas (a third of
each triangle's area per corner) and ``H = diag(h)``. ``L`` is symmetric
positive semi-definite on any triangulation and ``M·H`` is positive, so the
system is symmetric positive definite and conjugate gradients solve it.
Because ``L`` sums to zero along each row and the ``p`` of all bones sum to
1, the solutions of all bones sum to 1 at every vertex: a partition of unity
that is as smooth as the mesh lets heat spread, and only spreads through the
mesh (never across a gap in it).
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DEGENERATE = 1e-12
"""A triangle whose doubled area is below this times its longest edge squared has no angles to speak
of: it adds nothing to the Laplacian or the masses (its cotangents would be infinite)."""

SOLVE_TOLERANCE = 1e-10
"""Conjugate gradients stop when the residual is this small relative to the right-hand side: weights
good to about 1e-10, far below the 1e-6 a skin's weights are checked to."""


def cotangent_laplacian(
    vertices: FloatArray, triangles: npt.NDArray[np.integer]
) -> tuple[IntArray, IntArray, FloatArray, FloatArray]:
    """The cotangent Laplacian as compressed rows ``(indptr, columns, values)``, and lumped masses ``(v,)``.

    ``vertices`` ``(v, 2)``; ``triangles`` ``(t, 3)``, either winding. Rows
    list their columns in increasing order; duplicates are summed in a fixed
    order (``np.bincount``), so the result is the same bit for bit every time.
    A vertex in no triangle (or only in degenerate ones) has an empty row and
    mass 0.
    """
    n = len(vertices)
    tris = np.asarray(triangles, dtype=np.int64).reshape(-1, 3)
    corners = vertices[tris]  # (t, 3, 2)
    edges = corners[:, [2, 0, 1]] - corners[:, [1, 2, 0]]  # edge k is opposite corner k
    lengths2 = np.einsum("tki,tki->kt", edges, edges)
    u = corners[:, 1] - corners[:, 0]
    w = corners[:, 2] - corners[:, 0]
    area2 = np.abs(u[:, 0] * w[:, 1] - u[:, 1] * w[:, 0])
    keep = area2 > DEGENERATE * lengths2.max(axis=0, initial=0.0)
    tris, corners, area2 = tris[keep], corners[keep], area2[keep]
    rows, cols, vals = [], [], []
    for k in range(3):
        # the angle at corner k is opposite the edge joining the other two corners
        i, j = tris[:, (k + 1) % 3], tris[:, (k + 2) % 3]
        a = corners[:, (k + 1) % 3] - corners[:, k]
        b = corners[:, (k + 2) % 3] - corners[:, k]
        half_cot = 0.5 * np.einsum("ti,ti->t", a, b) / area2
        rows += [i, j, i, j]
        cols += [j, i, i, j]
        vals += [-half_cot, -half_cot, half_cot, half_cot]
    keys = np.concatenate(rows) * n + np.concatenate(cols) if rows else np.zeros(0, dtype=np.int64)
    unique, inverse = np.unique(keys, return_inverse=True)
    values = np.bincount(inverse, weights=np.concatenate(vals) if vals else None, minlength=len(unique))
    columns = unique % n
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(unique // n, minlength=n), out=indptr[1:])
    mass = np.bincount(tris.ravel(), weights=np.repeat(area2 / 6.0, 3), minlength=n)
    return indptr, columns.astype(np.int64), values.astype(np.float64), mass


@numba.njit(cache=True)
def solve_screened(
    indptr: IntArray,
    columns: IntArray,
    values: FloatArray,
    screen: FloatArray,
    rhs: FloatArray,
    out: FloatArray,
    tolerance: float,
    max_steps: int,
) -> int:
    """Solve ``(L + diag(screen)) x = rhs[:, b]`` for every column ``b`` into ``out[:, b]``; return the most
    steps a column took.

    Conjugate gradients with the diagonal as preconditioner (Jacobi), from
    ``x = 0``, until ``|r| <= tolerance·|rhs|`` or ``max_steps``. ``L`` is in
    compressed rows; ``screen`` ``(v,)`` must be positive where ``L``'s row is
    empty. Dot products are summed in index order: the same bits every run.
    Shapes: ``indptr`` ``(v + 1,)``; ``columns``, ``values`` ``(nnz,)``;
    ``rhs``, ``out`` ``(v, b)``.
    """
    n = rhs.shape[0]
    diag = screen.copy()
    for i in range(n):
        for e in range(indptr[i], indptr[i + 1]):
            if columns[e] == i:
                diag[i] += values[e]
    x = np.empty(n)
    r = np.empty(n)
    z = np.empty(n)
    d = np.empty(n)
    q = np.empty(n)
    most = 0
    for b in range(rhs.shape[1]):
        norm_b = 0.0
        for i in range(n):
            x[i] = 0.0
            r[i] = rhs[i, b]
            norm_b += r[i] * r[i]
        steps = 0
        if norm_b > 0.0:
            limit = tolerance * tolerance * norm_b
            rz = 0.0
            for i in range(n):
                z[i] = r[i] / diag[i]
                d[i] = z[i]
                rz += r[i] * z[i]
            while steps < max_steps:
                dq = 0.0
                for i in range(n):
                    s = screen[i] * d[i]
                    for e in range(indptr[i], indptr[i + 1]):
                        s += values[e] * d[columns[e]]
                    q[i] = s
                    dq += d[i] * s
                alpha = rz / dq
                rr = 0.0
                for i in range(n):
                    x[i] += alpha * d[i]
                    r[i] -= alpha * q[i]
                    rr += r[i] * r[i]
                steps += 1
                if rr <= limit:
                    break
                rz_next = 0.0
                for i in range(n):
                    z[i] = r[i] / diag[i]
                    rz_next += r[i] * z[i]
                beta = rz_next / rz
                rz = rz_next
                for i in range(n):
                    d[i] = z[i] + beta * d[i]
        for i in range(n):
            out[i, b] = x[i]
        most = max(most, steps)
    return most


def bone_heat(
    vertices: FloatArray,
    triangles: npt.NDArray[np.integer],
    nearest: IntArray,
    conductance: FloatArray,
    bones: int,
) -> FloatArray:
    """``(v, bones)``: each bone's heat, ``(L + M·H) w = M·H p`` with ``p`` one-hot on ``nearest`` ``(v,)``.

    ``conductance`` ``(v,)`` is ``h`` (1/px², positive). A vertex with no
    area (in no triangle that has one) takes the smallest area of the others,
    so it still draws heat from its own nearest bone. Bones nobody is nearest
    to stay at 0 and are not solved for.
    """
    n = len(vertices)
    heat = np.zeros((n, bones))
    if n == 0:
        return heat
    indptr, columns, values, mass = cotangent_laplacian(vertices, triangles)
    positive = mass[mass > 0.0]
    mass = np.where(mass > 0.0, mass, positive.min() if len(positive) else 1.0)
    screen = mass * conductance
    used = np.unique(nearest)
    rhs = np.zeros((n, len(used)))
    rhs[np.arange(n), np.searchsorted(used, nearest)] = screen
    solved = np.zeros_like(rhs)
    # conjugate gradients end in n steps in exact arithmetic; these systems take a few times the mesh's
    # diameter in vertices (measured: 127 steps for the rag doll's 1092 vertices)
    steps = max(100, 4 * int(math.sqrt(n)) + n // 4)
    solve_screened(indptr, columns, values, screen, rhs, solved, SOLVE_TOLERANCE, steps)
    heat[:, used] = solved
    return heat
