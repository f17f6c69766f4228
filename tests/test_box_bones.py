"""A ragdoll's bones against boxes: the segment between two joints is kept out of a box, not only the
joints (``systems/kernels/box_bones.py``)."""

from __future__ import annotations

import math

import esper
import numpy as np
import pytest
from support.skins import drag, line

from weft.components import Ragdoll
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR
from weft.systems.kernels.box_bones import push_bones_out_of_boxes

RAMP = ((430.0, 260.0), (150.0, 12.0), math.radians(-18.0))
"""levels/ragdoll.toml's ramp: centre, half extents, angle."""


def push(ends, masses, radius, box_inv_mass=0.0, angle=0.0, half=(50.0, 10.0), passes=1, braced=0):
    """Push one bone (``ends``: head and tail) out of one box at the origin (``braced``: its brace
    sectors' mask, ``box_braces``); the ends and the box's position and velocity after."""
    pos = np.array(ends, dtype=np.float64)
    box = (
        np.zeros((1, 2)),
        np.array([angle]),
        np.zeros((1, 2)),
        np.zeros(1),
        np.array([box_inv_mass]),
        np.array([box_inv_mass / 1000.0]),
        np.array([half], dtype=np.float64),
        np.zeros(1, dtype=np.bool_),
    )
    for _ in range(passes):
        push_bones_out_of_boxes(
            pos, np.array(masses, dtype=np.float64), np.array([0]), np.array([1]), np.array([radius]),
            *box, np.array([0]), np.array([0]), 1 / 360, np.array([0.6]), np.array([braced], dtype=np.int64),
        )  # fmt: skip
    return pos, box[0][0], box[2][0]


def centre_line_inside(pos, heads, tails, centre, half, angle, into=1.0) -> list[int]:
    """The bones whose centre line runs more than ``into`` px inside the box (sampled every 1/40)."""
    c, s = math.cos(angle), math.sin(angle)
    t = np.linspace(0.0, 1.0, 41)[:, None]
    crossing = []
    for k, (a, b) in enumerate(zip(heads, tails, strict=True)):
        points = pos[a] * (1.0 - t) + pos[b] * t - centre
        lx = c * points[:, 0] + s * points[:, 1]
        ly = -s * points[:, 0] + c * points[:, 1]
        if np.any((np.abs(lx) < half[0] - into) & (np.abs(ly) < half[1] - into)):
            crossing.append(k)
    return crossing


def test_a_bone_threaded_through_a_fixed_box_comes_out_by_its_shorter_side() -> None:
    # head 40 px below a 20 px plank, tail 16 px above its middle: the tail side is the shorter way out
    pos, _, _ = push([(0.0, -40.0), (0.0, 16.0)], [1.0, 1.0], radius=5.0)
    np.testing.assert_allclose(pos, [(0.0, -40.0), (0.0, -15.0)])  # the tail at the face less its radius


def test_a_box_corner_in_a_bones_side_pushes_the_bone_off_it_at_both_ends_by_their_shares() -> None:
    # a bone from (-60, 14) to (60, 14) lying 4 px into a plank's top face, no end over it: its middle
    # presses on the face; the face's clipped piece ends at x = ±(50 + 5), each end of that piece moved
    pos, _, _ = push([(-60.0, 14.0), (60.0, 14.0)], [1.0, 1.0], radius=5.0, passes=4)
    assert np.all(pos[:, 1] >= 15.0 - 1e-9), pos  # the face at 10, plus the radius
    assert abs(pos[0, 1] - pos[1, 1]) < 1e-9  # pushed straight: both ends alike
    # turned 45 degrees, the box's corner (0, 14.1) is in the bone's side: pushed up along its normal
    diamond = {"angle": math.pi / 4, "half": (10.0, 10.0)}
    pos, _, _ = push([(-60.0, 14.0), (60.0, 14.0)], [1.0, 1.0], radius=5.0, **diamond)
    corner = 10.0 * math.sqrt(2.0)
    np.testing.assert_allclose(pos[:, 1], [corner + 5.0] * 2)
    np.testing.assert_allclose(pos[:, 0], [-60.0, 60.0])


def test_a_bone_pushes_a_free_box_back_by_the_same_impulse() -> None:
    # the bone's two ends of mass 1 each, the box of mass 4: what the bone gains the box loses
    before = np.array([(-30.0, 12.0), (30.0, 12.0)])
    pos, box_pos, box_vel = push(before, [1.0, 1.0], radius=5.0, box_inv_mass=0.25, passes=1)
    bone_momentum = (pos - before).sum(axis=0)  # unit masses
    np.testing.assert_allclose(bone_momentum + 4.0 * box_pos, 0.0, atol=1e-12)
    assert box_pos[1] < 0.0 and box_vel[1] < 0.0 and np.all(pos[:, 1] > 12.0)


def test_a_bone_apart_from_the_box_or_between_two_held_joints_is_left_alone() -> None:
    ends = [(-30.0, 16.0), (30.0, 16.0)]  # 1 px clear of the face with its radius
    np.testing.assert_array_equal(push(ends, [1.0, 1.0], radius=5.0)[0], ends)
    deep = [(-30.0, 0.0), (30.0, 0.0)]
    np.testing.assert_array_equal(push(deep, [0.0, 0.0], radius=5.0)[0], deep)


RAMP_DRAGS = {
    # the hand taken round the ramp's left end and along under it, then held there for a second
    "round the end at 700 px/s": line((446.0, 522.0), (220.0, 450.0), 10)
    + line((220.0, 450.0), (220.0, 190.0), 10)
    + line((220.0, 190.0), (450.0, 170.0), 10),
    "round the end at 2000 px/s": line((446.0, 522.0), (200.0, 400.0), 4)
    + line((200.0, 400.0), (250.0, 150.0), 4)
    + line((250.0, 150.0), (520.0, 120.0), 4),
}


@pytest.mark.parametrize("path", RAMP_DRAGS)
def test_a_doll_dragged_round_the_ramps_end_and_under_it_is_never_threaded_through_it(path: str) -> None:
    # before: the shin and the spine lay across the ramp, knee above and foot below, in 66 of the 90
    # frames, and stayed so 300 frames after the hand was let go (the joints were each outside it)
    session = Session(Simulation.load(LEVELS_DIR / "ragdoll.toml"))
    sim = session.sim
    sim.activate()
    doll = next(d for _, d in esper.get_component(Ragdoll))
    hand = tuple(sim.positions("doll")[7])  # hand_l
    steps = RAMP_DRAGS[path]
    threaded = 0
    for events in [*drag(hand, steps + [steps[-1]] * 60), *([[]] * 300)]:
        for event in events:
            session.queue(event)
        session.advance()
        # more than 1 px in: a bone resting on the ramp lies its radius out, one pressed hard on it a
        # fraction of a pixel in (the limits and the braces come after the contacts)
        threaded += bool(centre_line_inside(sim.stores.particles.pos, doll.heads, doll.tails, *RAMP))
    assert threaded == 0, f"{threaded} frames with a bone through the ramp"
    assert np.isfinite(sim.positions("doll")).all()


def test_a_circle_across_a_bones_middle_is_pushed_off_it_and_the_bone_off_it_by_their_masses() -> None:
    from weft.systems.kernels.bone_circles import push_bones_off_circles
    from weft.systems.kernels.bounds import CIRCLE

    # a bone from (0, 0) to (100, 0) of radius 5 (particles 0, 1: the doll, owner 1), a ball of radius
    # 10 and mass 1 at (25, 12) (owner 2), 3 px into it; and a ball of the doll's own, left alone
    pos = np.array([[0.0, 0.0], [100.0, 0.0], [25.0, 12.0], [50.0, 0.0]])
    before = pos.copy()
    masses = np.array([1.0, 1.0, 1.0, 1.0])
    kind = np.array([2, 2, CIRCLE, CIRCLE], dtype=np.uint8)
    owner = np.array([1, 1, 2, 1])
    radii = np.array([5.0, 5.0, 10.0, 10.0])
    bone = (np.array([0]), np.array([1]), np.array([5.0]))  # head, tail, radius
    pushed = push_bones_off_circles(pos, 1.0 / masses, radii, kind, owner, *bone)
    assert pushed == 1
    np.testing.assert_allclose((pos - before).sum(axis=0), 0.0, atol=1e-12)  # no momentum made
    t = 0.25
    gap = (pos[2] - (pos[0] * (1 - t) + pos[1] * t))[1]
    assert gap == pytest.approx(15.0)  # the two radii: 3 px parted, shared by the masses
    np.testing.assert_array_equal(pos[3], before[3])
    assert pos[2, 1] > 12.0 and pos[0, 1] < 0.0 and pos[1, 1] < 0.0  # the near end moves most
    assert abs(pos[0, 1]) > abs(pos[1, 1])


def test_a_doll_dragged_down_onto_the_pegs_never_has_one_inside_its_bones_or_torso() -> None:
    # before: dragged down through the pegs and let go, the doll hung on them with a peg inside its
    # torso (between its braces), drawn through its skin; the bones met only the pegs' ends
    pegs = np.array([[930, 300], [1000, 300], [1070, 300], [965, 360], [1035, 360]], dtype=np.float64)
    session = Session(Simulation.load(LEVELS_DIR / "ragdoll.toml"))
    sim = session.sim
    sim.activate()
    doll = next(d for _, d in esper.get_component(Ragdoll))
    links = np.arange(doll.constraints.start, doll.constraints.stop)
    i, j = sim.stores.distances.i[links], sim.stores.distances.j[links]
    head = tuple(sim.positions("doll")[2])
    path = (
        line(head, (1000.0, 520.0), 20) + [(1000.0, 520.0)] * 60 + line((1000.0, 520.0), (1000.0, 200.0), 15)
    )
    deepest = 0.0
    for events in [*drag(head, path), *([[]] * 240)]:
        for event in events:
            session.queue(event)
        session.advance()
        pos = sim.stores.particles.pos
        for a, b in zip(i, j, strict=True):
            e = pos[b] - pos[a]
            t = np.clip(((pegs - pos[a]) @ e) / (e @ e), 0.0, 1.0)
            nearest = np.linalg.norm(pos[a] + t[:, None] * e - pegs, axis=1).min()
            deepest = max(deepest, 12.0 - nearest)  # how far a peg's rim is past a link's line
    # measured: 12.0 before (a peg's centre on a link), 0.0 after; a few px is a link pressed hard
    assert deepest < 6.0, deepest
