"""Pressure soft bodies: a ring kept inflated, pressed by the cursor, its perimeter held, its legs placed."""

from __future__ import annotations

import math

import numba
import numpy as np
import numpy.typing as npt

from weft.systems.kernels.jit import INNER


@numba.njit(cache=True)
def ring_area(pos: npt.NDArray[np.float64], ring: npt.NDArray[np.int64]) -> float:
    """Area enclosed by the ring (shoelace formula), positive for counter-clockwise order."""
    area = 0.0
    m = ring.shape[0]
    for k in range(m):
        i = ring[k]
        j = ring[(k + 1) % m]
        area += pos[i, 0] * pos[j, 1] - pos[j, 0] * pos[i, 1]
    return 0.5 * area


@numba.njit(cache=True, **INNER)
def ring_perimeter(pos: npt.NDArray[np.float64], ring: npt.NDArray[np.int64]) -> float:
    """Length of the closed ring, px."""
    total = 0.0
    m = ring.shape[0]
    for k in range(m):
        i = ring[k]
        j = ring[(k + 1) % m]
        total += math.hypot(pos[j, 0] - pos[i, 0], pos[j, 1] - pos[i, 1])
    return total


@numba.njit(cache=True)
def relax_ring(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    ring: npt.NDArray[np.int64],
    rest: float,
    target_area: float,
    pressure: float,
    smoothing: float,
) -> None:
    """One Jacobi pass over a ring: pull-only edges, pressure and smoothing, averaged at each point.

    Every correction comes from the same positions and is applied at
    once, each point moving by the mean of what its constraints ask, so
    the result does not depend on the order of the points: a
    Gauss-Seidel sweep round a ring twists it, and the body would roll.

    - An edge longer than ``rest`` moves each end half the excess towards
      the other; a shorter one asks nothing (squashing is free).
    - Pressure moves each point ``pressure · (target - A) / P`` px along the
      unit normal of the chord between its neighbours (moving every point
      by ``d`` grows the shoelace area ``A`` by about ``d · P``). The target
      is beyond what the ring's perimeter can enclose, so the push never
      stops: the ring stays taut, and squashing it pushes harder.
    - Smoothing (a vote of weight ``smoothing``) pulls each point to where
      it would sit if the ring were, locally, a regular polygon over its
      two neighbours: ``tan(π/m) · chord/2`` outward from the chord's middle.
      Pressure acts along the chord and cannot see a point poking in or out
      between its neighbours; without this the ring rests slightly wavy,
      and in more than one way. No shape is stored: the pull follows the
      chord as it is.
    """
    m = ring.shape[0]
    shift = np.zeros((m, 2))
    votes = np.zeros(m)
    for k in range(m):
        kn = (k + 1) % m
        a = ring[k]
        b = ring[kn]
        dx = pos[b, 0] - pos[a, 0]
        dy = pos[b, 1] - pos[a, 1]
        length = math.hypot(dx, dy)
        # a slack edge still votes, for nothing: counting only stretched edges would give a point
        # beside a slack one a larger share of the pressure, and the ring would zigzag
        votes[k] += 1.0
        votes[kn] += 1.0
        if length > rest:
            half = 0.5 * (length - rest) / length
            shift[k, 0] += half * dx
            shift[k, 1] += half * dy
            shift[kn, 0] -= half * dx
            shift[kn, 1] -= half * dy
    deficit = target_area - ring_area(pos, ring)
    perimeter = ring_perimeter(pos, ring)
    push = pressure * deficit / perimeter if deficit > 0.0 and perimeter > 1e-9 else 0.0
    bulge = 0.5 * math.tan(math.pi / m)
    for k in range(m):
        a = ring[(k - 1) % m]
        b = ring[(k + 1) % m]
        i = ring[k]
        tx = pos[b, 0] - pos[a, 0]
        ty = pos[b, 1] - pos[a, 1]
        chord = math.hypot(tx, ty)
        if chord < 1e-9:
            continue
        nx = ty / chord  # the chord turned a quarter clockwise: outward for a counter-clockwise ring
        ny = -tx / chord
        if push > 0.0:
            shift[k, 0] += push * nx
            shift[k, 1] += push * ny
            votes[k] += 1.0
        if smoothing > 0.0:
            gx = 0.5 * (pos[a, 0] + pos[b, 0]) + bulge * chord * nx - pos[i, 0]
            gy = 0.5 * (pos[a, 1] + pos[b, 1]) + bulge * chord * ny - pos[i, 1]
            shift[k, 0] += smoothing * gx
            shift[k, 1] += smoothing * gy
            votes[k] += smoothing
    for k in range(m):
        i = ring[k]
        if votes[k] > 0.0 and inv_mass[i] > 0.0:
            pos[i, 0] += shift[k, 0] / votes[k]
            pos[i, 1] += shift[k, 1] / votes[k]


@numba.njit(cache=True)
def press_out(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    ring: npt.NDArray[np.int64],
    cx: float,
    cy: float,
    move_x: float,
    move_y: float,
    reach: float,
    skin: float,
    grip: float,
) -> bool:
    """Push every ring point whose bead (radius ``skin``) overlaps the finger, a disc of radius ``reach``
    at (cx, cy), out until it touches it, leaving it no faster away from the finger than the finger
    itself moves; return whether the finger touches the skin.

    The finger is a kinematic disc that moved ``(move_x, move_y)`` px this substep. Its contact is
    inelastic and one-sided, as a kinematic body's is in a velocity solver: the point goes to
    ``reach + skin`` from the centre (the drawn skin meets the disc's rim), then its Verlet velocity
    ``v = pos - prev`` loses whatever the push added beyond the finger's own motion along the normal
    ``n``, ``v -= max(0, (v - u)·n) n``. So a point pushed back in by the pressure each pass gains
    no speed from it, and a finger that moves carries the skin it touches at its own speed, no
    faster. Touching counts points that reach the rim (the pressure pushes a held skin into the
    finger every pass), so a finger resting on a body counts as pressing in every frame.
    """
    pressed = False
    for k in range(ring.shape[0]):
        i = ring[k]
        if inv_mass[i] == 0.0:
            continue
        dx = pos[i, 0] - cx
        dy = pos[i, 1] - cy
        dist = math.hypot(dx, dy)
        rim = reach + skin
        if dist >= rim:
            continue
        pressed = True
        if dist < 1e-9:  # under the very centre of the finger: push straight down
            dx, dy, dist = 0.0, -1.0, 1.0
        nx = dx / dist
        ny = dy / dist
        pos[i, 0] = cx + nx * rim
        pos[i, 1] = cy + ny * rim
        # the velocity relative to the finger: its normal part may only close, its sliding part the
        # grip takes ``grip`` of
        rx = pos[i, 0] - prev[i, 0] - move_x
        ry = pos[i, 1] - prev[i, 1] - move_y
        away = rx * nx + ry * ny
        slide_x = rx - away * nx
        slide_y = ry - away * ny
        if away > 0.0:
            prev[i, 0] += away * nx
            prev[i, 1] += away * ny
        prev[i, 0] += grip * slide_x
        prev[i, 1] += grip * slide_y
    return pressed


@numba.njit(cache=True)
def hold_perimeter(
    pos: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    ring: npt.NDArray[np.int64],
    rest: float,
) -> None:
    """Project the ring back onto ``perimeter <= rest`` (one global constraint, all points at once).

    For ``C = P - P0`` the gradient at a point is the difference of the
    unit vectors of its two edges; the PBD step moves every point by
    ``-C / Σ|∇C|² · ∇C``, up to four times, as the perimeter is not linear
    (four bring a ring squashed by a press back within 0.01% of it). Every
    point moves at once, so the result does not depend on their order.
    """
    m = ring.shape[0]
    grad = np.empty((m, 2))
    for _ in range(4):
        excess = ring_perimeter(pos, ring) - rest
        if excess <= 0.0:
            return
        norm2 = 0.0
        for k in range(m):
            i = ring[k]
            a = ring[(k - 1) % m]
            b = ring[(k + 1) % m]
            inx = pos[i, 0] - pos[a, 0]
            iny = pos[i, 1] - pos[a, 1]
            outx = pos[b, 0] - pos[i, 0]
            outy = pos[b, 1] - pos[i, 1]
            lin = max(math.hypot(inx, iny), 1e-12)
            lout = max(math.hypot(outx, outy), 1e-12)
            grad[k, 0] = inx / lin - outx / lout
            grad[k, 1] = iny / lin - outy / lout
            norm2 += grad[k, 0] ** 2 + grad[k, 1] ** 2
        if norm2 < 1e-12:
            return
        scale = excess / norm2
        for k in range(m):
            i = ring[k]
            if inv_mass[i] > 0.0:
                pos[i, 0] -= scale * grad[k, 0]
                pos[i, 1] -= scale * grad[k, 1]


@numba.njit(cache=True)
def part_rings(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    inv_mass: npt.NDArray[np.float64],
    ring_a: npt.NDArray[np.int64],
    ring_b: npt.NDArray[np.int64],
    gap: float,
) -> bool:
    """Move two soft bodies apart, each as a whole, where a point of one ring is inside the other.

    Their skins' beads keep two rings apart, but a ring the hand drags through another (the hand
    holds with no bound on its force) can end with points, or all of itself, inside the other,
    where no bead meets a bead: nothing pushed them out, and the bodies stayed nested. Here each
    point inside the other ring's polygon (crossing number) is followed along the line between
    the rings' centres (``d``, from b's to a's; where they coincide, up for the lighter) to the
    last place it crosses that ring: the rings must part by the farthest of those, plus ``gap``
    (the beads' radii, so the skins then just touch). Each ring moves by the other's share of
    their mass, along ``d`` or against it; a ring holding a point that never moves (inverse mass
    0: held or pinned) stays, and the other takes all of it. Positions and previous positions
    move alike: the bodies are set apart, not flung. Returns whether they were moved.
    """
    lo_a, hi_a = _bounds(pos, ring_a)
    lo_b, hi_b = _bounds(pos, ring_b)
    if (
        lo_a[0] > hi_b[0] + gap
        or lo_b[0] > hi_a[0] + gap
        or lo_a[1] > hi_b[1] + gap
        or lo_b[1] > hi_a[1] + gap
    ):
        return False
    w_a = _inverse_mass(inv_mass, ring_a)
    w_b = _inverse_mass(inv_mass, ring_b)
    ca = _centre(pos, ring_a)
    cb = _centre(pos, ring_b)
    dx, dy = ca[0] - cb[0], ca[1] - cb[1]
    length = math.hypot(dx, dy)
    if length > 1e-6:
        dx, dy = dx / length, dy / length
    else:  # one centred in the other: the lighter comes out upwards (sent down, it went into the floor)
        dx, dy = 0.0, 1.0 if w_a >= w_b else -1.0
    apart = max(_exit(pos, ring_a, ring_b, dx, dy), _exit(pos, ring_b, ring_a, -dx, -dy))
    if apart < 0.0:
        return False
    apart += gap
    share_a = 0.5 if w_a + w_b == 0.0 else w_a / (w_a + w_b)
    _shift(pos, prev, ring_a, share_a * apart * dx, share_a * apart * dy)
    _shift(pos, prev, ring_b, -(1.0 - share_a) * apart * dx, -(1.0 - share_a) * apart * dy)
    return True


@numba.njit(cache=True, inline="always", **INNER)
def _bounds(
    pos: npt.NDArray[np.float64], ring: npt.NDArray[np.int64]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The ring's points' lowest and highest x and y."""
    x0 = x1 = pos[ring[0], 0]
    y0 = y1 = pos[ring[0], 1]
    for k in range(1, ring.shape[0]):
        x, y = pos[ring[k], 0], pos[ring[k], 1]
        x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
    return (x0, y0), (x1, y1)


@numba.njit(cache=True, inline="always", **INNER)
def _centre(pos: npt.NDArray[np.float64], ring: npt.NDArray[np.int64]) -> tuple[float, float]:
    """The mean of the ring's points."""
    x = y = 0.0
    for k in range(ring.shape[0]):
        x += pos[ring[k], 0]
        y += pos[ring[k], 1]
    return x / ring.shape[0], y / ring.shape[0]


@numba.njit(cache=True, inline="always")
def _exit(
    pos: npt.NDArray[np.float64],
    points: npt.NDArray[np.int64],
    ring: npt.NDArray[np.int64],
    dx: float,
    dy: float,
) -> float:
    """How far the points of ``points`` inside ``ring``'s polygon must move along (dx, dy) to be out of
    it: the farthest last crossing of that ring along the ray from each (-1 where none is inside).

    A point is inside where a ray from it crosses the polygon's edges an odd number of times; the
    ray along (dx, dy) is that ray, so one loop over the edges gives both the count and the crossings:
    for the edge from ``p`` to ``q`` and the ray ``c + t u``, ``t = cross(p - c, e) / cross(u, e)`` and
    ``s = cross(p - c, u) / cross(u, e)`` with ``e = q - p``, a crossing where ``t > 0`` and ``0 <= s < 1``.
    """
    farthest = -1.0
    m = ring.shape[0]
    for k in range(points.shape[0]):
        cx, cy = pos[points[k], 0], pos[points[k], 1]
        crossings = 0
        last = 0.0
        for e in range(m):
            p, q = ring[e], ring[(e + 1) % m]
            ex, ey = pos[q, 0] - pos[p, 0], pos[q, 1] - pos[p, 1]
            denominator = dx * ey - dy * ex
            if denominator == 0.0:
                continue  # an edge along the ray: its ends' edges count the crossing
            wx, wy = pos[p, 0] - cx, pos[p, 1] - cy
            t = (wx * ey - wy * ex) / denominator
            along = (wx * dy - wy * dx) / denominator
            if t > 0.0 and 0.0 <= along < 1.0:
                crossings += 1
                last = max(last, t)
        if crossings % 2 == 1:
            farthest = max(farthest, last)
    return farthest


@numba.njit(cache=True, inline="always", **INNER)
def _inverse_mass(inv_mass: npt.NDArray[np.float64], ring: npt.NDArray[np.int64]) -> float:
    """One over the ring's mass: 0 where a point of it never moves (inverse mass 0)."""
    mass = 0.0
    for k in range(ring.shape[0]):
        w = inv_mass[ring[k]]
        if w == 0.0:
            return 0.0
        mass += 1.0 / w
    return 1.0 / mass


@numba.njit(cache=True, inline="always", **INNER)
def _shift(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    ring: npt.NDArray[np.int64],
    x: float,
    y: float,
) -> None:
    """Move the ring's points and their previous positions by (x, y)."""
    for k in range(ring.shape[0]):
        i = ring[k]
        pos[i, 0] += x
        pos[i, 1] += y
        prev[i, 0] += x
        prev[i, 1] += y


@numba.njit(cache=True)
def set_spin(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    index: npt.NDArray[np.int64],
    spin: float,
) -> None:
    """Give particles ``index`` the spin ``spin`` (radians per step, counter-clockwise) about their centre,
    keeping their centre's velocity and every motion but the spin.

    With ``r_i`` each particle's offset from the centre and ``u_i`` its Verlet velocity relative to
    the centre's, the body spins at ``ω = Σ r_i × u_i / Σ |r_i|²`` (the least-squares rigid turn);
    each velocity gains ``(spin - ω) ẑ × r_i``, which sums to nothing, so the centre's velocity is
    kept exactly, and so are the wobbles that are not a turn.
    """
    n = index.shape[0]
    cx = 0.0
    cy = 0.0
    vx = 0.0
    vy = 0.0
    for k in range(n):
        i = index[k]
        cx += pos[i, 0]
        cy += pos[i, 1]
        vx += pos[i, 0] - prev[i, 0]
        vy += pos[i, 1] - prev[i, 1]
    cx /= n
    cy /= n
    vx /= n
    vy /= n
    moment = 0.0
    inertia = 0.0
    for k in range(n):
        i = index[k]
        rx = pos[i, 0] - cx
        ry = pos[i, 1] - cy
        ux = pos[i, 0] - prev[i, 0] - vx
        uy = pos[i, 1] - prev[i, 1] - vy
        moment += rx * uy - ry * ux
        inertia += rx * rx + ry * ry
    if inertia < 1e-12:
        return
    change = spin - moment / inertia
    for k in range(n):
        i = index[k]
        # v += change · (-ry, rx), so prev -= the same
        prev[i, 0] += change * (pos[i, 1] - cy)
        prev[i, 1] -= change * (pos[i, 0] - cx)


@numba.njit(cache=True, **INNER)
def _limit(angle: float, low: float, high: float, tone: float) -> float:
    """``angle`` moved into [low, high] when outside it, then ``tone`` of the way to the middle.

    Without the pull to the middle any angle in the range would do, and a
    creature could stand in many poses (and slowly do the splits); with it
    the standing pose is one, as a leg's muscles would hold it.
    """
    if angle < low:
        angle = low
    elif angle > high:
        angle = high
    return angle + tone * (0.5 * (low + high) - angle)


@numba.njit(cache=True, **INNER)
def _outside(value: float, low: float, high: float) -> float:
    """How far ``value`` must move to lie in [low, high] (positive: up, negative: down)."""
    if value < low:
        return low - value
    if value > high:
        return high - value
    return 0.0


@numba.njit(cache=True, **INNER)
def _stood_on(velocity: float, push: float) -> float:
    """A ring point's velocity (px a step, along one axis) after its legs pushed it ``push`` px off a wall.

    The wall takes the velocity into it, up to the push, and gives none back: a fall is stopped, as a
    floor stops it, but a body pushed down by a finger (by positions, not speed) is not thrown up. Taken
    whole, the push became speed: held under a finger a body built up 630 px/s, and popped when let go.
    """
    if push > 0.0:
        return min(velocity + push, max(velocity, 0.0))
    if push < 0.0:
        return max(velocity + push, min(velocity, 0.0))
    return velocity


@numba.njit(cache=True, **INNER)
def _off_pegs(x: float, y: float, foot_radius: float, pegs: npt.NDArray[np.float64]) -> tuple[float, float]:
    """The move that takes a foot of ``foot_radius`` at ``(x, y)`` out of the deepest of ``pegs`` it
    is in (rows of x, y and radius), along the peg's normal; ``(0, 0)`` when it is in none. A foot on
    a peg's centre goes up."""
    deepest = 0.0
    push_x = 0.0
    push_y = 0.0
    for k in range(pegs.shape[0]):
        dx = x - pegs[k, 0]
        dy = y - pegs[k, 1]
        reach = pegs[k, 2] + foot_radius
        distance = math.hypot(dx, dy)
        depth = reach - distance
        if depth <= deepest:
            continue
        deepest = depth
        if distance > 0.0:
            push_x, push_y = dx / distance * depth, dy / distance * depth
        else:
            push_x, push_y = 0.0, depth
    return push_x, push_y


@numba.njit(cache=True)
def place_legs(
    pos: npt.NDArray[np.float64],
    prev: npt.NDArray[np.float64],
    ring: npt.NDArray[np.int64],
    root_a: npt.NDArray[np.int64],
    root_b: npt.NDArray[np.int64],
    root_t: npt.NDArray[np.float64],
    knee: npt.NDArray[np.int64],
    foot: npt.NDArray[np.int64],
    length: npt.NDArray[np.float64],
    knee_range: npt.NDArray[np.float64],
    foot_range: npt.NDArray[np.float64],
    down_x: float,
    down_y: float,
    foot_radius: float,
    pegs: npt.NDArray[np.float64],
    left: float,
    bottom: float,
    right: float,
    top: float,
    friction: float,
    tone: float,
) -> None:
    """Put each knee one segment from its root and each foot one from its knee, within their angle limits.

    The root lies on the ring between two ring points (``root_t`` of the
    way from a to b). The knee's direction is measured from the body's
    down axis ``(down_x, down_y)`` and kept in ``knee_range`` (radians,
    counter-clockwise positive); the foot's is measured from the upper
    segment and kept in ``foot_range``. A point outside its range goes to
    the nearest limit, so the ranges turn with the body (Jakobsen 2001's
    particle ragdoll; follow-the-leader: the legs hang from the body); then
    it turns ``tone`` of the way to the middle of its range.

    The legs also stand: if a foot would end outside the walls, or inside
    one of ``pegs`` (rows of x, y and radius: the circles that never move),
    the whole creature moves by what brings every foot back out (for a peg,
    along its normal; of the feet's moves, the largest each way). The move takes
    the body's velocity into the wall and makes none (``_stood_on``), so it
    cancels the body's fall as a floor under the feet would, and the walls'
    ``friction`` takes that share of the body's sliding along them (without
    it the body skates on its feet).
    Knees and feet get the ring's mean velocity: they move with the body,
    and their placement never turns into speed of their own.
    """
    legs = knee.shape[0]
    targets = np.empty((legs, 4))
    down = math.atan2(down_y, down_x)
    push_x = 0.0
    push_y = 0.0
    for leg in range(legs):
        a = root_a[leg]
        b = root_b[leg]
        t = root_t[leg]
        rx = pos[a, 0] + (pos[b, 0] - pos[a, 0]) * t
        ry = pos[a, 1] + (pos[b, 1] - pos[a, 1]) * t
        k = knee[leg]
        f = foot[leg]
        # the upper segment: from the body's down axis
        upper = math.atan2(pos[k, 1] - ry, pos[k, 0] - rx) - down
        upper = math.atan2(math.sin(upper), math.cos(upper))
        upper = _limit(upper, knee_range[2 * leg], knee_range[2 * leg + 1], tone) + down
        kx = rx + length[leg] * math.cos(upper)
        ky = ry + length[leg] * math.sin(upper)
        # the lower segment: from the upper one
        lower = math.atan2(pos[f, 1] - ky, pos[f, 0] - kx) - upper
        lower = math.atan2(math.sin(lower), math.cos(lower))
        lower = _limit(lower, foot_range[2 * leg], foot_range[2 * leg + 1], tone) + upper
        fx = kx + length[leg] * math.cos(lower)
        fy = ky + length[leg] * math.sin(lower)
        targets[leg, 0] = kx
        targets[leg, 1] = ky
        targets[leg, 2] = fx
        targets[leg, 3] = fy
        # the largest push any foot needs, each way
        dx = _outside(fx, left + foot_radius, right - foot_radius)
        dy = _outside(fy, bottom + foot_radius, top - foot_radius)
        off_x, off_y = _off_pegs(fx + dx, fy + dy, foot_radius, pegs)
        dx += off_x
        dy += off_y
        push_x = dx if abs(dx) > abs(push_x) else push_x
        push_y = dy if abs(dy) > abs(push_y) else push_y
    keep_x = 1.0 - friction if push_y != 0.0 else 1.0  # standing on a floor (or ceiling): slide less along x
    keep_y = 1.0 - friction if push_x != 0.0 else 1.0
    vx = 0.0
    vy = 0.0
    for k in range(ring.shape[0]):
        i = ring[k]
        step_x = _stood_on(pos[i, 0] - prev[i, 0], push_x) * keep_x
        step_y = _stood_on(pos[i, 1] - prev[i, 1], push_y) * keep_y
        pos[i, 0] += push_x
        pos[i, 1] += push_y
        prev[i, 0] = pos[i, 0] - step_x
        prev[i, 1] = pos[i, 1] - step_y
        vx += pos[i, 0] - prev[i, 0]
        vy += pos[i, 1] - prev[i, 1]
    vx /= ring.shape[0]
    vy /= ring.shape[0]
    for leg in range(legs):
        for point, column in ((knee[leg], 0), (foot[leg], 2)):
            pos[point, 0] = targets[leg, column] + push_x
            pos[point, 1] = targets[leg, column + 1] + push_y
            prev[point, 0] = pos[point, 0] - vx
            prev[point, 1] = pos[point, 1] - vy
