"""Which ways each box is braced: by the floor under a crate, a wall beside it, or a crate braced the
same way under or beside it. No particle pushes a box into its brace.

A pinned particle (a hand's grab, a level's pin) has no mass, so a box
it meets takes all of the push, and so, nearly, does a box against a
joint a held one drags by stiff links: a crate under a dragged rag doll
was pressed 55 px into the floor, and the box solver, which lets overlap
out at a bounded speed, brought it back only after the release. As
against Box2D's mouse joint, of bounded force, what braces the box wins:
the box holds as a fixed one would, and the particle or bone yields
(``box_particles``, ``box_bones``). Free particles lose little by it:
they took all but their share of the push already (a joint of mass 1
against a 60 px crate, 98 %).

A brace is a world direction, kept as one of ``SECTORS`` sectors of a
box's bit mask, from the last box step's contact points: the direction
of a touching wall, fixed or sleeping box, or box braced that way,
however the box is turned (a tilted crate on one corner is braced
straight down). A push with any part into a brace moves the box along
the brace only (a ball rolling into a small crate shoves it along the
floor), unless the box's friction holds it there or the slide runs into
another brace.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER

SECTORS = 16
"""Sectors of the circle a brace's direction falls in (22.5 degrees each, the first centred on +x,
so the floor's and the walls' directions lie on sector centres; a power of two, so a sector wraps by
a mask)."""

HOLDING = 3
"""Passing a brace on, a box holds one that pushes it within this many sectors of its own brace
(67.5 degrees, a contact's normal rounded to its sector): a crate on a crate on the floor is braced
down, as is one on a tilted crate."""

DIRECTIONS = np.array(
    [(math.cos(k * 2.0 * math.pi / SECTORS), math.sin(k * 2.0 * math.pi / SECTORS)) for k in range(SECTORS)]
)
"""Each sector's middle direction, a unit vector."""

FREE, SLIDES, HELD = range(3)
"""How a braced box takes a push (``brace_push``): as before, along its brace only, or not at all."""

ENGAGED = 1e-9
"""A push runs into a brace when more than this of it (of a unit vector) points into it: one along
the floor is not into the floor."""

LEAST_GRIP = 0.1
"""The friction a braced box holds a push with at least: a push within 84 degrees of its brace holds
however slippery the box, so a push slides it at most ten times as far as it presses (1 / sin 6°),
not boundlessly (a hand pressing a frictionless crate nearly straight down squirted it away)."""

TOUCHING = 1.0
"""px: a contact point whose gap, after the step, is at most this braces (a crate resting on the
floor ends its steps 0 to 0.5 px into it, the soft contacts' give)."""

MOST_PASSES = 32
"""Passes over the points at most: a brace climbs a stack one box a pass at worst (points are in no
order of height), so boxes more than this high above their brace are left unbraced."""


@numba.njit(cache=True)
def brace_boxes(
    c_a: npt.NDArray[np.int64],
    c_b: npt.NDArray[np.int64],
    normal: npt.NDArray[np.float64],
    gap: npt.NDArray[np.float64],
    box_inv_mass: npt.NDArray[np.float64],
    asleep: npt.NDArray[np.bool_],
    braced: npt.NDArray[np.int64],
) -> None:
    """Set ``braced`` (a bit per sector, ``SECTORS``) for each box from the contact points ``c_a`` /
    ``c_b`` (``b`` a box, or a wall: below 0), their normals from ``a`` to ``b`` and their ``gap``.

    Point by point, in passes until nothing changes: ``a`` is braced
    along the normal where ``b`` holds along it (a wall, a box that does
    not move, or one braced that way), and ``b`` along its reverse where
    ``a`` holds so. Points of boxes no longer there (rows past the boxes'
    count, kept from a step before some were removed) are passed over.
    """
    braced[:] = 0
    n = box_inv_mass.shape[0]
    # the touching points and their normals' sectors, once: the passes only test and set bits
    touching = np.empty(c_a.shape[0], dtype=np.int64)
    ahead = np.empty(c_a.shape[0], dtype=np.int64)
    count = 0
    for k in range(c_a.shape[0]):
        if gap[k] <= TOUCHING and c_a[k] < n and c_b[k] < n:
            touching[count] = k
            ahead[count] = sector(normal[k, 0], normal[k, 1])
            count += 1
    for _ in range(MOST_PASSES):
        changed = False
        for t in range(count):
            a = c_a[touching[t]]
            b = c_b[touching[t]]
            forth = ahead[t]
            back = (forth + SECTORS // 2) & (SECTORS - 1)
            # b holds a along the normal: a wall, a box that does not move, or one braced that way
            # (written out here: as a helper of its own, the braces took four times as long)
            if not (braced[a] >> forth) & 1 and (
                b < 0 or box_inv_mass[b] == 0.0 or asleep[b] or _within(braced[b], forth)
            ):
                braced[a] |= 1 << forth
                changed = True
            if (
                b >= 0
                and not (braced[b] >> back) & 1
                and (box_inv_mass[a] == 0.0 or asleep[a] or _within(braced[a], back))
            ):
                braced[b] |= 1 << back
                changed = True
        if not changed:
            return


@numba.njit(cache=True, inline="always", **INNER)
def sector(dx: float, dy: float) -> int:
    """The sector (``SECTORS``) the world direction ``(dx, dy)`` falls in: its angle rounded to a
    sector, found by comparing slopes in its quadrant (an arctangent took a third of a brace's
    time)."""
    ax = abs(dx)
    ay = abs(dy)
    # the sector within the first quadrant, 0 (along x) to 4 (along y): the slope's bounds are
    # tan(11.25), tan(33.75), tan(56.25) and tan(78.75) degrees
    if ay <= 0.19891236737965800 * ax:
        q = 0
    elif ay <= 0.66817863791929891 * ax:
        q = 1
    elif ay <= 1.4966057626654890 * ax:
        q = 2
    elif ay <= 5.0273394921233152 * ax:
        q = 3
    else:
        q = 4
    if dx >= 0.0:
        return q if dy >= 0.0 else (SECTORS - q) & (SECTORS - 1)
    return SECTORS // 2 - q if dy >= 0.0 else SECTORS // 2 + q


@numba.njit(cache=True, inline="always", **INNER)
def brace_push(mask: int, nx: float, ny: float, friction: float) -> tuple[int, float, float]:
    """How a box braced as ``mask``, of ``friction``, takes a push along ``-(nx, ny)`` (``n``: from
    the box to what pushes it, a unit vector): ``FREE``, ``SLIDES`` along the unit ``(ux, uy)``, or
    ``HELD``.

    The brace the push runs into most takes that part of it; what is left
    slides the box along the brace, unless friction holds it there (less
    than ``friction`` times the part into the brace, as Coulomb's cone;
    ``LEAST_GRIP`` at least, so a push at a slippery box is not turned
    into a boundless slide) or it runs into another brace.
    """
    dx = -nx
    dy = -ny
    best = -1
    most = ENGAGED
    for k in range(SECTORS):
        if mask >> k & 1:
            into = dx * DIRECTIONS[k, 0] + dy * DIRECTIONS[k, 1]
            if into > most:
                best = k
                most = into
    if best < 0:
        return FREE, 0.0, 0.0
    ux = dx - most * DIRECTIONS[best, 0]
    uy = dy - most * DIRECTIONS[best, 1]
    length = math.hypot(ux, uy)
    if length <= max(friction, LEAST_GRIP) * most:
        return HELD, 0.0, 0.0
    ux /= length
    uy /= length
    for k in range(SECTORS):
        if k != best and mask >> k & 1 and ux * DIRECTIONS[k, 0] + uy * DIRECTIONS[k, 1] > ENGAGED:
            return HELD, 0.0, 0.0
    return SLIDES, ux, uy


@numba.njit(cache=True, inline="always", **INNER)
def _within(mask: int, toward: int) -> bool:
    """Whether ``mask`` has a brace within ``HOLDING`` sectors of sector ``toward``: the mask three
    times over in a row of bits, so the window round sector ``toward`` is one shift, however it
    wraps."""
    row = mask * 0x1_0001_0001  # bits k, k + 16 and k + 32 for each brace k
    return (row >> (toward + SECTORS - HOLDING)) & ((1 << (2 * HOLDING + 1)) - 1) != 0
