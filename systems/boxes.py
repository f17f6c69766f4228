"""The rigid step: the boxes' contacts and solver once a particle substep, sleeping once a frame, and
waking them."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from weft.components import CORRECTIONS, Grab, RigidStore, Stores
from weft.components.growth import grow
from weft.components.tools import NOTHING
from weft.systems import world
from weft.systems.bounds import inside_walls
from weft.systems.box_pairs import list_pairs_with_skin
from weft.systems.first_start import compile_step_apart
from weft.systems.kernels.box_batches import CAPACITY
from weft.systems.kernels.box_contacts import MANIFOLD_COLUMNS, table_size
from weft.systems.kernels.box_memory import plan_sizes, work_sizes
from weft.systems.kernels.box_mouse import (
    ANCHOR_X,
    ANCHOR_Y,
    DAMPING_RATIO,
    HERTZ,
    MAX_FORCE,
    SPRING_FIELDS,
    TARGET_X,
    TARGET_Y,
)
from weft.systems.kernels.box_sleep import fall_asleep, wake_island
from weft.systems.kernels.box_step import ASLEEP, GROW, RELIST, step_boxes
from weft.systems.kernels.jit import THREADED_FROM, for_boxes, thread_count
from weft.systems.schedule import Step, System
from weft.systems.world import by_entity

SPECULATIVE_SLOPS = 4.0
"""Contacts are found this many slops (at least ``MIN_SPECULATIVE`` px) before the boxes touch,
plus how far they can move in the step: the solver then stops them at touching instead of letting
them sink in first."""

MIN_SPECULATIVE = 0.5


def wake(store: RigidStore, body: int) -> None:
    """Wake the island ``body`` fell asleep with."""
    wake_island(body, store.asleep, store.island, store.sleep_time)


def wake_islands(store: RigidStore, bodies: npt.NDArray[np.int64]) -> None:
    """Wake ``bodies`` and every box that fell asleep with any of them (``wake`` for many at once)."""
    n = store.count
    islands = store.island[bodies]
    woken = np.isin(store.island[:n], islands[islands >= 0])
    woken[bodies] = True
    store.asleep[:n][woken] = False
    store.island[:n][woken] = -1
    store.sleep_time[:n][woken] = 0.0


def wake_all(store: RigidStore) -> None:
    """Wake every box (the world changed under them: gravity turned, walls moved)."""
    n = store.count
    store.asleep[:n] = False
    store.island[:n] = -1
    store.sleep_time[:n] = 0.0


def wall_planes(walls: tuple[float, float, float, float]) -> npt.NDArray[np.float64]:
    """The four ``walls`` (left, bottom, right, top) as ``(inward normal x, y, offset)`` rows:
    floor, ceiling, left, right."""
    left, bottom, right, top = walls
    return np.array([[0.0, 1.0, bottom], [0.0, -1.0, -top], [1.0, 0.0, left], [-1.0, 0.0, -right]])


class BoxStepSystem(System):
    """Steps every box once per particle substep: contacts, the solver, then (once a frame) sleeping.

    The solver runs ``ceil(substeps / particle substeps)`` substeps of its
    own per call, so a frame gets about ``[world.rigid] substeps`` of them
    whatever the particles need. Gravity turning, a solver setting or a
    set's friction or iterations changing (``RigidStore.revision``) or the
    walls moving wake every box: the world they settled in changed.
    """

    name = "boxes"
    needs = ("boxes",)

    def __init__(self) -> None:
        self._rules: tuple[object, ...] | None = None
        """Gravity, the store's revision and the solver settings the boxes last moved under."""
        self._floats = np.zeros(0)
        self._ints = np.zeros(0, dtype=np.int64)
        self._plan_floats = np.zeros(0)
        self._plan_ints = np.zeros(0, dtype=np.int64)
        """The solver's working memory and its batches, kept from frame to frame (``solve_boxes``)."""
        self._frame: tuple[object, ...] = ()
        self._planes = np.zeros((4, 3))
        self._solver: tuple[float | int, ...] = ()
        self._reach = self._wall_margin = 0.0
        """The rules, the walls and the step the last call ran under, and what the kernel takes made
        from them: the walls' planes (``wall_planes``), the solver's settings, the contact margins."""
        self._spring = np.zeros(SPRING_FIELDS)
        self._spring_body = NOTHING
        """The mouse spring the solver pulls with (``box_mouse``) and the box it holds: its impulse
        carries over while the same box is held."""
        self._fitted: tuple[int, ...] = ()
        self._fitted_to: Stores | None = None
        """The counts and the stores ``_fit`` last sized the arrays for."""

    def process(self, step: Step) -> None:
        stores = world.stores()
        store = stores.rigid
        n = store.count
        if n == 0:
            return
        settings = world.settings()
        rigid = settings.rigid
        rules = (settings.gravity, store.revision, *vars(rigid).values())
        if rules != self._rules or settings.wall_velocity != (0.0, 0.0):
            if self._rules is not None or not rigid.sleeping:
                # sleepers settled under the old rules (or moving walls): show the new. Only sleeping
                # puts boxes to sleep, so with it off they stay awake until it is on again.
                wake_all(store)
            self._rules = rules
        spring_body = self._hold_spring(store)
        spring = self._spring
        if spring_body != NOTHING:
            wake(store, spring_body)
        walls = settings.walls
        frame = (rules, walls, settings.wall_velocity, step.dt, step.substeps)
        if frame != self._frame:
            self._frame = frame
            self._planes = wall_planes(walls)
            self._solver = (
                *settings.gravity,
                *settings.wall_velocity,
                step.dt,
                max(1, math.ceil(rigid.substeps / step.substeps)),
                rigid.iterations,
                CORRECTIONS.index(rigid.correction),
                rigid.slop,
                rigid.percent,
                rigid.contact_hertz,
                rigid.damping_ratio,
                rigid.push_speed,
            )
            self._reach = 0.5 * max(MIN_SPECULATIVE, SPECULATIVE_SLOPS * rigid.slop)
            self._wall_margin = self._reach + math.hypot(*settings.wall_velocity) * step.dt
        grid, contacts = stores.box_grid, stores.contacts
        fresh_pairs = False
        step_kernel = for_boxes(step_boxes, n)
        compile_step_apart(step_kernel)  # a first start: the solver compiles in a second process
        # the threads this frame runs on (Physics.step sets them; a small scene's twin runs on one
        # and never asks numba, which would start its thread pool)
        threads = thread_count() if n >= THREADED_FROM else 1
        solver = (*self._solver, threads)
        while True:
            self._fit(stores)
            done, found = step_kernel(
                n,
                (store.pos, store.angle, store.vel, store.omega, store.half, store.inv_mass,
                 store.inv_inertia, store.friction, store.restitution, store.iterations, store.asleep),
                (grid.turn, grid.moving, grid.margin, grid.pair_a, grid.pair_b, grid.listed_pos,
                 grid.listed_angle, grid.listed_margin, grid.listed_moving, grid.manifold),
                grid.pair_count,
                fresh_pairs,
                (contacts.start, contacts.a, contacts.b, contacts.key, contacts.point, contacts.normal,
                 contacts.separation, contacts.gap, contacts.normal_impulse, contacts.tangent_impulse,
                 contacts.last_key, contacts.last_normal, contacts.last_tangent, contacts.last_start,
                 contacts.table),
                contacts.count,
                contacts.groups,
                (self._floats, self._ints, self._plan_floats, self._plan_ints),
                self._planes,
                self._reach,
                self._wall_margin,
                spring,
                spring_body,
                solver,
            )  # fmt: skip
            if done == RELIST:
                list_pairs_with_skin(grid, store, walls, grid.moving[:n], grid.margin[:n])
                fresh_pairs = True
            elif done == GROW:
                contacts.reserve(found)
            else:
                break
        if done == ASLEEP:
            # all asleep (or fixed): nothing found or solved; particles, the mouse and tools wake them.
            # The last step's contacts stay as they were (so do the boxes): the metrics and the debug
            # view still see how deep the sleepers rest.
            return
        contacts.count, contacts.groups = found, n + grid.pair_count
        if step.substep == step.substeps - 1 and rigid.sleeping:
            fall_asleep(
                store.vel[:n],
                store.omega[:n],
                store.half[:n],
                store.inv_mass[:n],
                store.sleep_time[:n],
                store.asleep[:n],
                store.island[:n],
                contacts.a[:found],
                contacts.b[:found],
                step.dt * step.substeps,
                rigid.sleep_speed,
                rigid.sleep_delay,
                spring_body,
            )

    def _hold_spring(self, store: RigidStore) -> int:
        """The box a ``Grab`` holds (or ``NOTHING``), with the spring set to its anchor and the cursor;
        a spring that takes a new box starts with no impulse."""
        held = next((grab for _, grab in by_entity(Grab) if grab.box != NOTHING and grab.held), None)
        body = NOTHING if held is None else held.box
        spring = self._spring
        if body != self._spring_body:
            spring[:] = 0.0
            self._spring_body = body
        if held is not None:
            inv_mass = store.inv_mass[body]
            spring[ANCHOR_X], spring[ANCHOR_Y] = held.anchor
            spring[TARGET_X], spring[TARGET_Y] = inside_walls(
                held.target, _around_anchor(store, body, held.anchor)
            )
            spring[HERTZ], spring[DAMPING_RATIO] = held.hertz, held.damping_ratio
            spring[MAX_FORCE] = held.max_accel / inv_mass if inv_mass > 0.0 else 0.0
        return body

    def forget_packing(self) -> None:
        """Pack the solver's batches afresh on the next step, as if none were kept (a kept packing
        steps the very same as a fresh one: the tests compare the two)."""
        if len(self._plan_ints):
            self._plan_ints[CAPACITY] = -1  # made for a capacity there is not: it does not hold

    def _fit(self, stores: Stores) -> None:
        """Size what ``step_boxes`` fills for this many boxes, pairs and contact rows (kept arrays
        that grow only when too small: fresh ones each frame would fault their pages in again)."""
        store, grid, contacts = stores.rigid, stores.box_grid, stores.contacts
        n = store.count
        rows = len(contacts.a)  # as many points at most, so as many manifolds at most
        counts = (n, grid.pair_count, rows)
        if counts == self._fitted and stores is self._fitted_to:
            return
        self._fitted, self._fitted_to = counts, stores
        if len(grid.turn) < n:
            grid.turn = np.zeros((len(store.pos), 2))
            grid.moving = np.zeros(len(store.pos), dtype=np.bool_)
            grid.margin = np.zeros(len(store.pos))
        if len(grid.manifold) < grid.pair_count:
            grid.manifold = np.zeros((2 * grid.pair_count, MANIFOLD_COLUMNS))
        groups = n + grid.pair_count
        if len(contacts.start) < groups + 1:
            contacts.start = np.zeros(2 * (groups + 1), dtype=np.int64)
        if len(contacts.last_start) < len(contacts.start):
            contacts.last_start = grow(contacts.last_start, len(contacts.start))
        size = table_size(rows)  # for the last step's points, which the rows held
        if len(contacts.table) != size:
            contacts.table = np.full((size, 3), -1.0)
        floats, ints = work_sizes(n, rows)
        if len(self._floats) < floats or len(self._ints) < ints:
            self._floats = np.zeros(floats)
            self._ints = np.zeros(ints, dtype=np.int64)
        floats, ints = plan_sizes(rows)
        if len(self._plan_floats) < floats or len(self._plan_ints) < ints:
            self._plan_floats = np.zeros(floats)  # its pages are touched only as batches use them
            self._plan_ints = np.zeros(ints, dtype=np.int64)


def _around_anchor(
    store: RigidStore, body: int, anchor: tuple[float, float]
) -> tuple[float, float, float, float]:
    """How far box ``body`` reaches, as it lies now, left of, below, right of and above the point at
    ``anchor`` (px in its own frame): the margins within the walls its spring's target keeps, so the
    spring never pulls it into a wall. A target below the floor pulled a held box past its middle into
    the floor at up to ``Grab.max_accel``, against contacts that push out gently.

    A box turned by ``θ`` reaches ``|cos θ| hx + |sin θ| hy`` across x from its centre (and
    ``|sin θ| hx + |cos θ| hy`` across y); the anchor sits at its turned offset from the centre."""
    c, s = math.cos(store.angle[body]), math.sin(store.angle[body])
    hx, hy = store.half[body]
    across_x = abs(c) * hx + abs(s) * hy
    across_y = abs(s) * hx + abs(c) * hy
    ax, ay = c * anchor[0] - s * anchor[1], s * anchor[0] + c * anchor[1]
    return across_x + ax, across_y + ay, across_x - ax, across_y - ay
