"""The box pair list is kept from step to step while it still holds: every pair that could touch now
was listed then, and the warm start by pair finds the impulses a search by key would."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from support.boxes import overlapping
from support.kernels import from_python

from weft.game.simulation import Simulation
from weft.systems.box_pairs import PAIR_SKIN
from weft.systems.kernels import box_contacts, box_grid
from weft.systems.kernels.box_contacts import table_size

# built for other kernels only (no wrapper for Python): copies a test can call
remember_impulses = from_python(box_contacts.remember_impulses)
warm_from_last = from_python(box_contacts.warm_from_last)
warm_from_table = from_python(box_contacts.warm_from_table)
pairs_still_hold = from_python(box_grid.pairs_still_hold)

LEVELS = Path(__file__).resolve().parent.parent / "levels"


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1))
def test_a_kept_list_holds_every_pair_that_could_touch_now(seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = 40
    pos = rng.uniform(0.0, 300.0, (count, 2))
    angle = rng.uniform(-np.pi, np.pi, count)
    half = rng.uniform(5.0, 20.0, (count, 2))
    margin = rng.uniform(0.2, 1.0, count)
    listed_margin = margin + PAIR_SKIN
    listed = overlapping(pos, angle, half, listed_margin)
    # the boxes move (up to 0.71 px) and turn (up to 0.01 rad, 0.29 px at the corners), and their
    # margins grow (up to 0.9 px): 1.9 px in all, within the 2 px skin, so the list must hold
    moved = pos + rng.uniform(-0.5, 0.5, (count, 2))
    turned = angle + rng.uniform(-0.01, 0.01, count)
    margin_now = margin + rng.uniform(0.0, 0.9, count)
    awake = np.ones(count, dtype=np.bool_)
    assert pairs_still_hold(moved, turned, half, margin_now, pos, angle, listed_margin, awake, awake)
    assert overlapping(moved, turned, half, margin_now) <= listed
    # a box that woke or fell asleep since forces a new list
    woke = awake.copy()
    woke[count // 2] = False
    assert not pairs_still_hold(moved, turned, half, margin_now, pos, angle, listed_margin, awake, woke)
    # and so does a box that jumps further than the skin
    moved[0] += 2.0 * PAIR_SKIN + 2.0
    assert not pairs_still_hold(moved, turned, half, margin_now, pos, angle, listed_margin, awake, awake)


def test_while_the_pairs_are_kept_the_warm_start_by_pair_finds_what_the_hash_table_finds() -> None:
    sim = Simulation.load(LEVELS / "pyramid.toml", ["world.rigid.sleeping=false"])
    sim.step(30)
    contacts, grid = sim.stores.contacts, sim.stores.box_grid
    last = contacts.count
    last_key = contacts.last_key[:last].copy()
    last_normal = contacts.last_normal[:last].copy()
    last_tangent = contacts.last_tangent[:last].copy()
    last_start = contacts.last_start.copy()
    listed = grid.listed_pos.copy()
    sim.step()
    assert np.array_equal(grid.listed_pos, listed)  # the pair list was kept for this step
    found, groups = contacts.count, contacts.groups
    key = contacts.key[:found]
    by_pair = np.full((2, found), np.nan)
    warm_from_last(
        contacts.start[: groups + 1], last_start, key, last_key, last_normal, last_tangent, *by_pair
    )
    table = np.full((table_size(last), 3), -1.0)
    remember_impulses(last_key, last_normal, last_tangent, table)
    by_key = np.full((2, found), np.nan)
    warm_from_table(key, table, *by_key)
    assert np.array_equal(by_pair, by_key)
    # the points under the boxes carry their weight (those between neighbours in a layer, which stand
    # a gap apart, do not): three in four here, so the lookups found something to agree on
    assert (by_pair[0] > 0.0).mean() > 0.7
    sim.close()
