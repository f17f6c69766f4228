"""The manifold of two boxes, or of a box and a wall: separating axes, then the incident edge clipped
to the reference face, each point with a feature key.

A manifold has up to two points. A point's feature says which box's face
was the reference (``flip``), which face, which edge of the other box met
it, and which end of that edge the point comes from, so the contact list
(``box_contacts``) recognises it next step and warm starts it. The key
leaves out whether the end was clipped, as Box2D's does: in an aligned
stack a corner sits on the side plane, and rounding clips it one step and
not the next; keyed by that, half the points of a 40-box stack started
cold each step and the stack bounced.

Normals point from body ``a`` to body ``b``; separations are negative where
the boxes overlap. Points up to ``margin`` apart are kept as speculative
contacts: the solver lets such a pair close the gap but not overlap.
"""

from __future__ import annotations

import math

import numba

from weft.systems.kernels.jit import INNER

FACE_TOLERANCE = 0.02
"""Share of the smaller half extent by which a face of box B (or A's second axis) must separate
better than the best so far to become the reference face: the choice stays put from step to step
while a stack rests, and so do the feature keys."""

FEATURES = 128
"""Feature codes per pair: ``flip · 64 + reference face · 16 + incident face · 4 + point``."""


@numba.njit(cache=True, **INNER)
def _axes(c: float, s: float) -> tuple[float, float, float, float]:
    """The x axis ``(ux, uy)`` and y axis ``(vx, vy)`` of a box turned by the angle of cosine c, sine s."""
    return c, s, -s, c


@numba.njit(cache=True, **INNER)
def _face(
    face: int, c: float, s: float, hx: float, hy: float
) -> tuple[float, float, float, float, float, float]:
    """Face ``face`` of a box (0 +x, 1 +y, 2 −x, 3 −y): outward normal, tangent, half length along the
    tangent, and the distance from the centre to the face along its normal."""
    ux, uy, vx, vy = _axes(c, s)
    if face == 0:
        return ux, uy, vx, vy, hy, hx
    if face == 1:
        return vx, vy, -ux, -uy, hx, hy
    if face == 2:
        return -ux, -uy, -vx, -vy, hy, hx
    return -vx, -vy, ux, uy, hx, hy


@numba.njit(cache=True, **INNER)
def _separation(
    nx: float, ny: float, dx: float, dy: float, c: float, s: float, hx: float, hy: float, extent: float
) -> float:
    """Gap along axis n between a box of extent ``extent`` on it (at the origin) and one at ``d``."""
    ux, uy, vx, vy = _axes(c, s)
    reach = abs(ux * nx + uy * ny) * hx + abs(vx * nx + vy * ny) * hy
    return abs(dx * nx + dy * ny) - extent - reach


@numba.njit(cache=True, **INNER)
def box_box(
    ax: float,
    ay: float,
    ac: float,
    a_s: float,
    ahx: float,
    ahy: float,
    bx: float,
    by: float,
    bc: float,
    b_s: float,
    bhx: float,
    bhy: float,
    margin: float,
) -> tuple[int, float, float, float, float, float, int, float, float, float, int]:
    """The manifold of boxes a and b (centre, cosine and sine of the angle, half extents each).

    Returns ``(count, nx, ny, x0, y0, s0, f0, x1, y1, s1, f1)``: how many
    points (0 to 2), the normal from a to b, and each point's position,
    separation and feature code. The reference face is the face of either
    box along which they separate best (favouring A, then x, by
    ``FACE_TOLERANCE``); the incident edge is the face of the other box most
    opposed to it, clipped to the reference face's sides. A point sits
    halfway between the incident corner and the reference face.
    """
    dx = bx - ax
    dy = by - ay
    a_ux, a_uy, a_vx, a_vy = _axes(ac, a_s)
    b_ux, b_uy, b_vx, b_vy = _axes(bc, b_s)
    tolerance = FACE_TOLERANCE * min(ahx, ahy, bhx, bhy)
    # the four candidate axes: A's x, A's y, B's x, B's y
    best = -math.inf
    best_axis = -1
    for axis in range(4):
        if axis == 0:
            s = _separation(a_ux, a_uy, dx, dy, bc, b_s, bhx, bhy, ahx)
        elif axis == 1:
            s = _separation(a_vx, a_vy, dx, dy, bc, b_s, bhx, bhy, ahy)
        elif axis == 2:
            s = _separation(b_ux, b_uy, dx, dy, ac, a_s, ahx, ahy, bhx)
        else:
            s = _separation(b_vx, b_vy, dx, dy, ac, a_s, ahx, ahy, bhy)
        if s > margin:
            return 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0
        if best_axis < 0 or s > best + tolerance:
            best = s
            best_axis = axis
    flip = best_axis >= 2
    # the reference box and the incident one
    if flip:
        rx, ry, rc, r_s, rhx, rhy = bx, by, bc, b_s, bhx, bhy
        ix, iy, ic, i_s, ihx, ihy = ax, ay, ac, a_s, ahx, ahy
        along_x, along_y = -dx, -dy
    else:
        rx, ry, rc, r_s, rhx, rhy = ax, ay, ac, a_s, ahx, ahy
        ix, iy, ic, i_s, ihx, ihy = bx, by, bc, b_s, bhx, bhy
        along_x, along_y = dx, dy
    # the reference face: the one of the reference box facing the other box
    ux, uy, vx, vy = _axes(rc, r_s)
    if best_axis % 2 == 0:
        ref_face = 0 if ux * along_x + uy * along_y > 0.0 else 2
    else:
        ref_face = 1 if vx * along_x + vy * along_y > 0.0 else 3
    nx, ny, tx, ty, side, depth = _face(ref_face, rc, r_s, rhx, rhy)
    # the incident face: the other box's face most opposed to the reference normal
    inc_face = numba.int64(0)  # not the constant 0, which numba compiles _face for apart (a Literal)
    lowest = math.inf
    for face in range(4):
        fx, fy, _, _, _, _ = _face(face, ic, i_s, ihx, ihy)
        d = fx * nx + fy * ny
        if d < lowest:
            lowest = d
            inc_face = face
    fx, fy, gx, gy, glen, gdist = _face(inc_face, ic, i_s, ihx, ihy)
    # the incident edge's two corners, as offsets along the reference face's tangent and normal
    face_x = rx + nx * depth
    face_y = ry + ny * depth
    cx0 = ix + fx * gdist - gx * glen - face_x
    cy0 = iy + fy * gdist - gy * glen - face_y
    cx1 = ix + fx * gdist + gx * glen - face_x
    cy1 = iy + fy * gdist + gy * glen - face_y
    t0 = cx0 * tx + cy0 * ty
    n0 = cx0 * nx + cy0 * ny
    t1 = cx1 * tx + cy1 * ty
    n1 = cx1 * nx + cy1 * ny
    code0 = 0  # the points are keyed by the end of the incident edge they come from
    code1 = 1
    # clip the edge to the reference face's two sides, |t| <= side
    for k_side in range(2):
        sign = -1.0 if k_side == 0 else 1.0
        d0 = sign * t0 - side
        d1 = sign * t1 - side
        if d0 > 0.0 and d1 > 0.0:
            return 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0
        if d0 > 0.0 or d1 > 0.0:
            f = d0 / (d0 - d1)
            t_new = t0 + f * (t1 - t0)
            n_new = n0 + f * (n1 - n0)
            if d0 > 0.0:
                t0, n0 = t_new, n_new
            else:
                t1, n1 = t_new, n_new
    key = (1 if flip else 0) * 64 + ref_face * 16 + inc_face * 4
    normal_x = -nx if flip else nx
    normal_y = -ny if flip else ny
    # halfway between each incident point and the reference face; the deeper first when only one stays
    x0 = face_x + tx * t0 + nx * 0.5 * n0
    y0 = face_y + ty * t0 + ny * 0.5 * n0
    x1 = face_x + tx * t1 + nx * 0.5 * n1
    y1 = face_y + ty * t1 + ny * 0.5 * n1
    if n0 > margin and n1 > margin:
        return 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0.0, 0.0, 0.0, 0
    if n0 > margin:
        return 1, normal_x, normal_y, x1, y1, n1, key + code1, 0.0, 0.0, 0.0, 0
    if n1 > margin:
        return 1, normal_x, normal_y, x0, y0, n0, key + code0, 0.0, 0.0, 0.0, 0
    return 2, normal_x, normal_y, x0, y0, n0, key + code0, x1, y1, n1, key + code1


@numba.njit(cache=True, **INNER)
def box_plane(
    ax: float,
    ay: float,
    ac: float,
    a_s: float,
    ahx: float,
    ahy: float,
    mx: float,
    my: float,
    offset: float,
    margin: float,
    approach: float,
    spin: float,
) -> tuple[int, float, float, float, int, float, float, float, int]:
    """The manifold of a box and the wall ``m · x >= offset`` (m points into the world).

    Returns ``(count, x0, y0, s0, f0, x1, y1, s1, f1)``: up to two corners
    within ``margin``, each keyed by its corner index, at the point halfway
    to the wall. The normal, from the box into the wall, is ``-m``.

    The two kept are the deepest now, the incident edge, as Box2D's
    polygon-versus-segment manifold has it; unless another corner will end
    the step deeper than both: it then replaces the one of the two that
    ends shallower. Where a corner ends is its separation plus its own
    approach, ``s + dt m · (v + ω × r)``, given as the box's ``approach``
    (``dt m · v``, the wall's motion taken off) and ``spin`` (``dt ω``). A
    thin card tumbling onto a wall rests on one end while the other swings
    in: kept alone, the resting end's corners let the swinging end pass the
    wall within a step (a card's centre 8.8 px past it, seen by the fuzzer).
    """
    axes = _axes(ac, a_s)
    count = 0
    x0 = y0 = s0 = x1 = y1 = s1 = 0.0
    d0 = d1 = 0.0
    f0 = f1 = 0
    for corner in range(4):
        x, y, s, d = _corner_on_plane(corner, ax, ay, axes, ahx, ahy, mx, my, offset, approach, spin)
        if s > margin:
            continue
        if count == 0:
            x0, y0, s0, d0, f0 = x, y, s, d, corner
            count = 1
        elif count == 1:
            x1, y1, s1, d1, f1 = x, y, s, d, corner
            count = 2
        elif s0 >= s1 and s < s0:  # keep the two deepest
            x0, y0, s0, d0, f0 = x, y, s, d, corner
        elif s1 > s0 and s < s1:
            x1, y1, s1, d1, f1 = x, y, s, d, corner
    if count < 2:
        return count, x0, y0, s0, f0, x1, y1, s1, f1
    swing = -1
    xs = ys = ss = 0.0
    deepest = min(d0, d1)
    for corner in range(4):
        if corner in (f0, f1):
            continue
        x, y, s, d = _corner_on_plane(corner, ax, ay, axes, ahx, ahy, mx, my, offset, approach, spin)
        if s <= margin and d < deepest:
            swing, xs, ys, ss, deepest = corner, x, y, s, d
    if swing >= 0 and d0 >= d1:
        x0, y0, s0, f0 = xs, ys, ss, swing
    elif swing >= 0:
        x1, y1, s1, f1 = xs, ys, ss, swing
    return count, x0, y0, s0, f0, x1, y1, s1, f1


@numba.njit(cache=True, **INNER)
def _corner_on_plane(
    corner: int, ax: float, ay: float, axes: tuple[float, float, float, float], ahx: float, ahy: float,
    mx: float, my: float, offset: float, approach: float, spin: float,
) -> tuple[float, float, float, float]:  # fmt: skip
    """Corner ``corner`` of the box (centre, ``axes`` from ``_axes``, half extents) against the wall:
    the point halfway to the wall, its separation now, and its separation after the step
    (``box_plane``)."""
    ux, uy, vx, vy = axes
    sx = 1.0 if corner == 0 or corner == 3 else -1.0
    sy = 1.0 if corner < 2 else -1.0
    x = ax + sx * ahx * ux + sy * ahy * vx
    y = ay + sx * ahx * uy + sy * ahy * vy
    s = mx * x + my * y - offset
    rx = sx * ahx * ux + sy * ahy * vx
    ry = sx * ahx * uy + sy * ahy * vy
    later = s + approach + spin * (mx * -ry + my * rx)
    return x - 0.5 * s * mx, y - 0.5 * s * my, s, later
