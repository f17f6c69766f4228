"""Soft-body creatures: the same shape after every press, a taut skin, standing up, legs within limits."""

from __future__ import annotations

import math
import tomllib
from itertools import pairwise

import numpy as np
import pytest
from support.kernels import from_python
from support.worlds import INLINE, inside, simulate

from weft.components import SoftBody
from weft.game.level import LevelError
from weft.game.level.load import validate
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR
from weft.systems.kernels import softbody
from weft.systems.kernels.softbody import ring_area
from weft.systems.softbody import head_line

# built for other kernels only (no wrapper for Python): copies a test can call
ring_perimeter = from_python(softbody.ring_perimeter)

CREATURE = LEVELS_DIR / "creature.toml"


def aligned_rms(reference: np.ndarray, shape: np.ndarray) -> float:
    """RMS distance between matching points once translation and rotation are removed (Kabsch)."""
    a = reference - reference.mean(axis=0)
    b = shape - shape.mean(axis=0)
    u, _, vt = np.linalg.svd(b.T @ a)
    turn = u @ np.diag([1.0, np.sign(np.linalg.det(u @ vt))]) @ vt
    return float(np.sqrt(((b @ turn - a) ** 2).sum(axis=1).mean()))


def settled(iterations: int = 10) -> Session:
    session = Session(Simulation.load(CREATURE, [f"world.iterations={iterations}"]))
    session.run(300)
    return session


def press(session: Session, direction: tuple[float, float], frames: int = 60, distance: float = 50.0):
    """Hold the press tool ``distance`` px from the body's centre (the finger's tip, its 100 px disc above:
    on the top, 50 px is 20 px into the 70 px body); yield after each frame."""
    _, body = session.sim.body("mochi")
    center = session.sim.stores.particles.pos[body.ring].mean(axis=0)
    x, y = (float(v) for v in center + np.array(direction) * distance)
    session.queue({"type": "mouse_press", "x": x, "y": y, "button": "left"})
    for frame in range(frames):
        if frame == frames - 1:
            session.queue({"type": "mouse_release", "x": x, "y": y, "button": "left"})
        session.advance()
        yield


@pytest.mark.parametrize("direction", [(0.0, 1.0), (-1.0, 0.0), (1.0, 0.0)], ids=["top", "left", "right"])
def test_after_a_press_from_any_side_the_creature_returns_to_the_same_shape(direction) -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    undisturbed = particles.pos[body.ring].copy()
    squashed = 0.0
    for _ in press(session, direction):
        squashed = max(squashed, aligned_rms(undisturbed, particles.pos[body.ring]))
    assert squashed > 5.0  # the press really deformed it (measured about 9 px RMS)
    session.run(400)
    # 1 px RMS, as the issue asks; measured under 0.0001 px: no rest shape is stored, the
    # pressure, the skin and the smoothing meet at one solution (a regular polygon) after any press
    assert aligned_rms(undisturbed, particles.pos[body.ring]) < 1.0


def test_the_skin_stays_taut_and_never_stretches_past_one_percent() -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    frames = [*press(session, (0.0, 1.0)), *press(session, (1.0, 0.3))]
    session_frames = len(frames)
    for _ in range(200):
        session.advance()
        area = ring_area(particles.pos, body.ring)
        perimeter = ring_perimeter(particles.pos, body.ring)
        assert area < body.target_area  # the pressure is never satisfied: always pushing
        assert perimeter <= 1.01 * body.rest_perimeter
    assert session_frames == 120


def test_the_skin_stays_taut_while_pressed() -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    for frame, _ in enumerate(press(session, (0.0, 1.0), frames=90, distance=20.0)):
        assert ring_area(particles.pos, body.ring) < body.target_area
        assert ring_perimeter(particles.pos, body.ring) <= 1.01 * body.rest_perimeter
        assert body.pressed or frame == 89  # the finger lifts in the last frame


def squashed_height(iterations: int) -> float:
    """The body's least height under the same finger held above it, px."""
    session = settled(iterations)
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    least = np.inf
    for _ in press(session, (0.0, 1.0)):
        least = min(least, float(np.ptp(particles.pos[body.ring, 1])))
    return least


def test_more_iterations_make_the_body_squash_less_under_the_same_press() -> None:
    soft, firm, firmer = squashed_height(5), squashed_height(10), squashed_height(40)
    assert soft < firm < firmer  # measured 123, 125, 130 px of a 140 px body


def leg_angles(pos: np.ndarray, body) -> tuple[np.ndarray, np.ndarray]:
    """Each knee's angle from the body's down axis and each foot's from its upper segment, radians."""
    legs = body.legs
    ux, uy = head_line(pos, body)
    down = math.atan2(-ux, uy)
    roots = pos[legs.root_a] + (pos[legs.root_b] - pos[legs.root_a]) * legs.root_t[:, None]
    upper = np.arctan2(*(pos[legs.knee] - roots).T[::-1])
    lower = np.arctan2(*(pos[legs.foot] - pos[legs.knee]).T[::-1])
    wrap = lambda a: np.arctan2(np.sin(a), np.cos(a))  # noqa: E731
    return wrap(upper - down), wrap(lower - upper)


def test_an_upside_down_creature_stands_up_with_its_legs_under_it_and_its_legs_keep_their_limits() -> None:
    sim = simulate(
        """
        [world]
        iterations = 10
        [[creature]]
        name = "mochi"
        center = [640, 300]
        radius = 60
        rotation_deg = 180
        """
    )
    _, body = sim.body("mochi")
    particles = sim.stores.particles
    legs = body.legs
    tolerance = 1e-6
    for _ in range(240):
        sim.step()
        knee, foot = leg_angles(particles.pos, body)
        assert (knee >= legs.knee_range[0::2] - tolerance).all() and (
            knee <= legs.knee_range[1::2] + tolerance
        ).all()
        assert (foot >= legs.foot_range[0::2] - tolerance).all() and (
            foot <= legs.foot_range[1::2] + tolerance
        ).all()
    ux, uy = head_line(particles.pos, body)
    assert abs(math.degrees(math.atan2(uy, ux))) < 5.0  # upright within 4 s
    center = particles.pos[body.ring].mean(axis=0)
    assert (particles.pos[legs.foot, 1] < center[1] - 0.8 * 60).all()  # every foot under the body


def tilt_deg(sim: Simulation, name: str) -> float:
    """How far a creature's head line is turned from level, degrees."""
    _, body = sim.body(name)
    ux, uy = head_line(sim.stores.particles.pos, body)
    return math.degrees(math.atan2(uy, ux))


@pytest.mark.parametrize("upright", [0.04, 0.0])
def test_a_creature_dropped_upside_down_lands_straight_below_whether_or_not_it_rights_itself(upright) -> None:
    sim = simulate(
        f"""
        [world]
        iterations = 10
        [[creature]]
        name = "mochi"
        center = [640, 500]
        radius = 60
        rotation_deg = 180
        upright = {upright}
        """
    )
    _, body = sim.body("mochi")
    sim.step(300)
    # the righting spin keeps the body's own velocity: it landed 324 px aside when the turn turned it too
    assert abs(float(sim.stores.particles.pos[body.ring, 0].mean()) - 640.0) < 2.0  # measured 0.0 px
    assert abs(tilt_deg(sim, "mochi")) < (5.0 if upright else 181.0)


def test_creatures_in_a_pile_of_balls_stand_up_again() -> None:
    session = Session(Simulation.load(LEVELS_DIR / "creatures.toml"))
    session.run(60)
    session.queue({"type": "tool", "name": "pour"})
    for x in (330, 640, 960, 480, 800):  # 700 balls poured over them
        session.queue({"type": "mouse_press", "x": x, "y": 650, "button": "left"})
        session.run(120)
        session.queue({"type": "mouse_release", "x": x, "y": 650, "button": "left"})
    session.queue({"type": "tool", "name": "press"})
    for x0, x1 in ((200.0, 600.0), (1100.0, 700.0)):  # each pushed into the others
        session.queue({"type": "mouse_press", "x": x0, "y": 200.0, "button": "left"})
        for frame in range(40):
            x = x0 + (x1 - x0) * (frame + 1) / 40
            session.queue(
                {
                    "type": "mouse_drag",
                    "x": x,
                    "y": 200.0,
                    "dx": (x1 - x0) / 40,
                    "dy": 0.0,
                    "buttons": ["left"],
                }
            )
            session.advance()
        session.queue({"type": "mouse_release", "x": x1, "y": 200.0, "button": "left"})
        session.run(30)
    session.run(300)
    # turned by positions alone, the balls took the turn back each frame: bun stayed at -50° (and in
    # the issue two creatures at 75° and -34°) for 15 s; 5 s on, measured within 8°
    for name in ("mochi", "pip", "bun"):
        assert abs(tilt_deg(session.sim, name)) < 15.0, name


def test_enter_pokes_the_creature_on_the_head_and_it_springs_back() -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    undisturbed = particles.pos[body.ring].copy()
    height = float(np.ptp(undisturbed[:, 1]))
    assert not body.pressed
    session.queue({"type": "key_press", "key": "ENTER"})
    least = height
    pressed = []
    for _ in range(60):
        session.advance()
        assert ring_area(particles.pos, body.ring) > 0.5 * ring_area(
            undisturbed, body.ring
        )  # never inside out
        pressed.append(body.pressed)
        least = min(least, float(np.ptp(particles.pos[body.ring, 1])))
    # the face knows, from the first frame while the finger sinks 28 px, holds and rises at 120 px/s
    # (24 frames down, then the lift: measured 36 frames in all)
    touched = pressed.index(False)
    assert pressed[0] and 24 <= touched <= 45 and not any(pressed[touched:])
    assert height - least > 10.0  # the head was squashed (measured 22 px)
    session.run(300)
    assert aligned_rms(undisturbed, particles.pos[body.ring]) < 1.0


EXIT_SPEED = 400.0
"""px/s: the fastest a press may leave a creature (issue 18). The finger pushes at most 120 px/s
(``FINGER_SPEED``), lifts as slowly, waits while a body squirts away and holds what it touches to
its own speed (``HELD_SPEED``), so what is left is the skin's own spring-back: measured under 300."""


def creature_speed(before: np.ndarray, after: np.ndarray) -> float:
    """Speed of the ring's centre over one frame, px/s."""
    return float(np.hypot(*(after.mean(axis=0) - before.mean(axis=0)))) * 60.0


def play_press(session: Session, path: list[tuple[float, float]], hold: int, every: int = 1) -> float:
    """Press at ``path[0]``, drag through the rest (an event every ``every`` frames), hold ``hold``
    frames, let go and watch 300 more; return the creature's fastest speed throughout, px/s."""
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    x, y = path[0]
    events = [{"type": "mouse_press", "x": x, "y": y, "button": "left"}]
    for (px, py), (qx, qy) in pairwise(path):
        events += [None] * (every - 1)
        events.append(
            {"type": "mouse_drag", "x": qx, "y": qy, "dx": qx - px, "dy": qy - py, "buttons": ["left"]}
        )
    events += [None] * hold
    events.append({"type": "mouse_release", "x": path[-1][0], "y": path[-1][1], "button": "left"})
    events += [None] * 300
    fastest = 0.0
    for event in events:
        if event is not None:
            session.queue(event)
        before = particles.pos[body.ring].copy()
        session.advance()
        fastest = max(fastest, creature_speed(before, particles.pos[body.ring]))
    return fastest


@pytest.mark.parametrize(
    ("path", "every"),
    [
        ([(0.0, 50.0)], 1),  # on the head, 20 px in (it left at 1132-1413 px/s)
        ([(0.0, 0.0)], 1),  # on the centre (2999 px/s, into the ceiling)
        ([(0.0, -40.0)], 1),  # low on the body
        ([(-50.0, 0.0)], 1),  # on a flank
        ([(-200.0 + 20.0 * k, 0.0) for k in range(21)], 1),  # dragged across at 1200 px/s
        ([(-200.0 + 100.0 * k, -30.0) for k in range(5)], 7),  # across, low, events 7 frames apart
        ([(0.0, 150.0), (0.0, -100.0)], 1),  # from above straight down through it
        ([(-7.0, -42.0)], 1),  # deep, just off the middle: it squirted out sideways at 450-650 px/s
        ([(-21.0, -35.0)], 1),  # low and off the middle: it rolled out at 400-470 px/s
    ],
    ids=[
        "head",
        "centre",
        "low",
        "flank",
        "drag-across",
        "sparse-drag-low",
        "down-through",
        "deep-off-middle",
        "low-off-middle",
    ],
)
def test_a_press_on_the_body_dents_it_never_throws_it_and_the_shape_returns(path, every) -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    undisturbed = particles.pos[body.ring].copy()
    center = undisturbed.mean(axis=0)
    points = [(float(center[0] + dx), float(center[1] + dy)) for dx, dy in path]
    assert play_press(session, points, hold=60, every=every) < EXIT_SPEED
    session.run(300)
    assert aligned_rms(undisturbed, particles.pos[body.ring]) < 1.0  # the same shape (measured < 1e-4 px)


def test_mashing_enter_on_the_creatures_level_throws_none_of_them() -> None:
    session = Session(Simulation.load(LEVELS_DIR / "creatures.toml"))
    session.run(240)
    particles = session.sim.stores.particles
    rings = [session.sim.body(name)[1].ring for name in ("mochi", "pip", "bun")]
    fastest = 0.0
    for frame in range(240):
        if frame % 13 in (0, 2, 5) and frame < 120:  # pokes at every moment of the last one
            session.queue({"type": "key_press", "key": "ENTER"})
        before = [particles.pos[ring].copy() for ring in rings]
        session.advance()
        fastest = max(
            fastest, *(creature_speed(b, particles.pos[r]) for b, r in zip(before, rings, strict=True))
        )
    # a poke's finger came down 30 px into the head at once and vanished at once: pip, 96 px tall,
    # left at 1283 px/s; now it sinks and lifts as the press tool's finger does
    assert fastest < EXIT_SPEED


def test_a_press_on_the_centre_dents_the_body_from_above_and_lets_it_stand() -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    particles = session.sim.stores.particles
    height = float(np.ptp(particles.pos[body.ring, 1]))
    bottom = float(particles.pos[body.ring, 1].min())
    center = particles.pos[body.ring].mean(axis=0)
    session.queue({"type": "mouse_press", "x": float(center[0]), "y": float(center[1]), "button": "left"})
    session.run(40)
    # the finger's tip went down to the centre: the body is a good third lower, still on its legs
    # (measured 140 -> 93 px), its bottom where it was
    assert float(np.ptp(particles.pos[body.ring, 1])) < 0.75 * height
    assert abs(float(particles.pos[body.ring, 1].min()) - bottom) < 3.0


def test_mashing_enter_squashes_no_deeper_than_one_poke_and_it_does_not_jump_on_release() -> None:
    def least_height_and_rise(pokes: list[int]) -> tuple[float, float]:
        session = settled()
        _, body = session.sim.body("mochi")
        particles = session.sim.stores.particles
        bottom = float(particles.pos[body.ring, 1].min())
        least, highest = np.inf, bottom
        for frame in range(240):
            if frame in pokes:
                session.queue({"type": "key_press", "key": "ENTER"})
            session.advance()
            least = min(least, float(np.ptp(particles.pos[body.ring, 1])))
            highest = max(highest, float(particles.pos[body.ring, 1].min()))
        return least, highest - bottom

    one, _ = least_height_and_rise([0])
    # nine pokes in 12 frames, then more each time the last one ends: each came down on the head as
    # the last left it (140 px flattened to 37 px, then a 538 px leap at 1409 px/s)
    mashed, rise = least_height_and_rise([0, 1, 3, 4, 6, 7, 9, 10, 11, 24, 25, 37, 50])
    assert mashed > one - 1.0  # measured 115 px both ways
    assert rise < 10.0  # measured 4 px


def test_the_same_press_script_gives_the_same_state_twice() -> None:
    hashes = []
    for _ in range(2):
        session = settled()
        list(press(session, (0.3, 1.0)))
        session.queue({"type": "key_press", "key": "ENTER"})
        session.run(60)
        hashes.append(session.sim.state_hash())
    assert hashes[0] == hashes[1]


def skin_gap(sim: Simulation, a: str, b: str) -> float:
    """px between the skins (bead surfaces) of two creatures: negative where they overlap."""
    _, first = sim.body(a)
    _, second = sim.body(b)
    pos = sim.stores.particles.pos
    distance = np.linalg.norm(pos[first.ring][:, None] - pos[second.ring][None], axis=2).min()
    return float(distance - first.bead - second.bead)


def test_a_creature_dropped_on_another_lands_on_its_skin_and_never_passes_into_it() -> None:
    sim = simulate(
        """
        [world]
        iterations = 10
        [[creature]]
        name = "low"
        center = [640, 100]
        radius = 60
        [[creature]]
        name = "high"
        center = [650, 330]
        radius = 45
        """
    )
    touching = 0
    for _ in range(300):
        sim.step()
        _, low_body = sim.body("low")
        _, high_body = sim.body("high")
        low = sim.stores.particles.pos[low_body.ring]
        high = sim.stores.particles.pos[high_body.ring]
        # (skins only: legs are placed, not pushed, and may stand in front of the other body)
        assert not inside(low, high).any() and not inside(high, low).any()
        gap = skin_gap(sim, "low", "high")
        # beads may overlap a little at the landing (1.5 px measured at 3 m/s), never more
        assert gap > -3.0
        touching += gap < 0.5
    # it lands on the other's head and rolls off it (30 of 300 frames measured): it touched, not
    # merely passed near
    assert touching >= 20


@pytest.mark.parametrize("offset", [(0.0, 0.0), (30.0, -20.0), (-75.0, 10.0)])
def test_a_creature_left_inside_another_comes_out_and_both_keep_their_shape(offset) -> None:
    # a fling with the drag tool once left the small one wholly inside the other, for good: inside,
    # no bead of one meets a bead of the other, so nothing pushed them apart
    sim = simulate(
        """
        [world]
        iterations = 4
        [[creature]]
        name = "big"
        center = [640, 200]
        radius = 80
        [[creature]]
        name = "small"
        center = [300, 200]
        radius = 45
        """
    )
    sim.step(60)
    particles = sim.stores.particles
    _, big = sim.body("big")
    _, small = sim.body("small")
    area = {name: ring_area(particles.pos, body.ring) for name, body in (("big", big), ("small", small))}
    moved = particles.pos[big.ring].mean(axis=0) + offset - particles.pos[small.ring].mean(axis=0)
    for index in (*small.ring, *small.legs.knee, *small.legs.foot):
        particles.pos[index] += moved
        particles.prev[index] += moved
    assert inside(particles.pos[big.ring], particles.pos[small.ring]).any()
    speeds = []
    for _ in range(120):
        before = particles.pos[:, :].copy()
        sim.step()
        speeds.append(np.hypot(*(particles.pos - before).T).max() * 60.0)
    big_ring, small_ring = particles.pos[big.ring], particles.pos[small.ring]
    assert not inside(big_ring, small_ring).any() and not inside(small_ring, big_ring).any()
    assert (
        skin_gap(sim, "big", "small") > -3.0
    )  # the skins just touch at most, as when one lands on the other
    for name, body in (("big", big), ("small", small)):  # both springs back to their shape
        assert ring_area(particles.pos, body.ring) == pytest.approx(area[name], rel=0.02)
    # set apart, not flung (the first frame's jump moves positions and previous ones alike): from the
    # tenth frame on, nothing faster than a fall from the window's top, sqrt(2 g h) = 1188 px/s (the
    # small one, set on top of the big one's head, falls off it: 655 px/s measured, 230 off-centre)
    assert max(speeds[10:]) < math.sqrt(2 * 980.0 * 720.0)


def test_the_drag_tool_pressed_on_a_creatures_middle_takes_it_where_it_was_pressed() -> None:
    # its middle is 80 px from its skin, twice a grab's reach: a press there took nothing
    session = Session(Simulation.load(LEVELS_DIR / "creature.toml"))
    session.sim.step(60)
    _, body = session.sim.body("mochi")
    pos = session.sim.stores.particles.pos
    x, y = (float(v) for v in pos[body.ring].mean(axis=0))
    lift = 200.0
    session.apply({"type": "tool", "name": "drag"})
    session.apply({"type": "mouse_press", "x": x, "y": y, "button": "left"})
    for k in range(1, 21):
        session.apply(
            {
                "type": "mouse_drag",
                "x": x,
                "y": y + lift * k / 20,
                "dx": 0.0,
                "dy": lift / 20,
                "buttons": ["left"],
            }
        )
        session.sim.step()
    session.sim.step(30)
    centre = pos[body.ring].mean(axis=0)
    # held by its skin, kept where it was from the cursor: the body follows the cursor, lifted by its
    # skin's point and hanging from it (its centre a little lower than the cursor, never jumping to it)
    assert centre[1] > y + 0.75 * lift
    assert abs(centre[0] - x) < 20.0


def _creature_over_a_ball(fixed: bool, height: float) -> tuple[Simulation, SoftBody, int]:
    """A creature of radius 50 dropped from 300 px onto a ball of radius 30 centred at ``height``
    (``fixed``: a peg); the simulation, the creature and the ball's particle."""
    sim = simulate(
        f"""
        [world]
        iterations = 10
        [[creature]]
        name = "mochi"
        center = [640, 300]
        radius = 50
        [[balls]]
        name = "ball"
        radius = [30, 30]
        positions = [[640, {height}]]
        fixed = {str(fixed).lower()}
        """
    )
    _, body = sim.body("mochi")
    owner, _ = sim.body("ball")
    particles = sim.stores.particles
    (ball,) = np.flatnonzero(particles.owner[: particles.count] == owner)
    return sim, body, int(ball)


def test_a_creature_on_a_ball_rests_on_it_not_above_it() -> None:
    # a ball on the floor: the legs pass it (they stand on the walls and on pegs only), the skin meets it
    sim, body, ball = _creature_over_a_ball(fixed=False, height=30.0)
    pos = sim.stores.particles.pos
    gaps = []
    for _ in range(240):
        sim.step()
        distance = np.linalg.norm(pos[body.ring] - pos[ball], axis=1).min()
        gaps.append(distance - 30.0 - body.bead)
    # at rest the nearest bead sits on the ball's surface (-0.0 px measured; 5 px above it when the
    # ring swelled within the iterations), and it never sank into it (-0.015 at most)
    assert abs(gaps[-1]) < 0.5
    assert min(gaps) > -1.0


def test_a_creature_dropped_on_a_peg_stands_on_it_on_its_feet() -> None:
    # a peg (a circle nothing moves) is ground for the feet, as the walls are: the legs once passed
    # through it, drawn across it, and the skin came to rest on it
    sim, body, peg = _creature_over_a_ball(fixed=True, height=150.0)
    pos = sim.stores.particles.pos
    feet, skin = [], []
    for _ in range(240):
        sim.step()
        feet.append(np.linalg.norm(pos[body.legs.foot] - pos[peg], axis=1) - 30.0 - 0.5 * body.legs.thickness)
        skin.append(np.linalg.norm(pos[body.ring] - pos[peg], axis=1).min() - 30.0 - body.bead)
    feet_gaps = np.array(feet)
    # no foot ever inside the peg (-0.001 px at most measured: the push rounds), the two middle ones
    # on its top at rest (0.000 and -0.001), and the skin held above it by the legs (12.7 px)
    assert feet_gaps.min() > -0.01
    assert np.sort(np.abs(feet_gaps[-1]))[1] < 0.01
    assert min(skin) > 5.0
    assert abs(pos[body.ring, 0].mean() - 640.0) < 1.0  # balanced: dropped square on it, it stays there


@pytest.mark.parametrize("loaded", [False, True], ids=["empty", "loaded"])
def test_a_creature_in_a_hammock_weighs_it_down_and_stays_on_top(loaded: bool) -> None:
    creature = '[[creature]]\nname = "mochi"\ncenter = [640, 550]\nradius = 50' if loaded else ""
    sim = simulate(
        f"""
        [world]
        iterations = 10
        [[cloth]]
        name = "hammock"
        origin = [400, 400]
        cols = 40
        rows = 2
        spacing = 12
        thickness = 8
        pins = {{ layout = "list", points = [[0, 0], [39, 0]] }}
        {creature}
        """
    )
    for _ in range(300):
        sim.step()
        if loaded:
            _, body = sim.body("mochi")
            assert not inside(sim.stores.particles.pos[body.ring], sim.positions("hammock")).any()
    lowest = sim.positions("hammock")[:, 1].min()
    if loaded:
        _, body = sim.body("mochi")
        # held up by the cloth, not fallen through it: the body sits above the cloth's lowest point
        assert sim.stores.particles.pos[body.ring][:, 1].min() > lowest
        # and its weight pulls the cloth 18 px lower than it hangs empty (306 px measured)
        assert lowest < 300.0
    else:
        assert lowest > 300.0


def test_the_creatures_level_settles_without_overlaps() -> None:
    sim = Simulation.load(LEVELS_DIR / "creatures.toml")
    sim.step(240)
    names = [body.name for _, body in sim.bodies() if hasattr(body, "ring")]
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            assert skin_gap(sim, a, b) > -1.0
    assert sim.metrics()["max_penetration"] < 3.0


@pytest.mark.parametrize("points", [9, 10, 13, 16])
def test_the_legs_stand_centred_under_the_body_for_any_number_of_points(points) -> None:
    sim = simulate(f"[[creature]]\nname = 'mochi'\ncenter = [640, 200]\nradius = 70\npoints = {points}\n")
    _, body = sim.body("mochi")
    sim.step(300)
    pos = sim.stores.particles.pos
    # the head's point is built straight up, so the body is symmetric about its up axis: at 10 points
    # it was 18° off, and once upright the feet stood 19 px (41 px in the issue) to one side
    assert abs(float(pos[body.legs.foot, 0].mean() - pos[body.ring, 0].mean())) < 0.5  # measured 0.0
    assert abs(tilt_deg(sim, "mochi")) < 1.0


@pytest.mark.parametrize(
    ("center", "radius", "rotation"),
    [([640, 650], 70, 0), ([30, 300], 60, 0), ([640, 60], 60, 0), ([640, 665], 60, 180)],
    ids=["ceiling", "left-wall", "feet-through-floor", "upside-down-feet-through-ceiling"],
)
def test_validate_refuses_a_creature_that_does_not_fit_in_the_world(center, radius, rotation) -> None:
    text = f"[[creature]]\nname = 'mochi'\ncenter = {center}\nradius = {radius}\nrotation_deg = {rotation}\n"
    with pytest.raises(LevelError) as caught:
        validate(tomllib.loads(text), INLINE)
    (problem,) = caught.value.problems
    assert str(problem).startswith("inline.toml: creature.0.center: expected a creature inside the world")


def test_a_creature_just_inside_the_world_is_accepted_and_never_fired_off_the_wall() -> None:
    # top of the skin 1 px under the ceiling (70 + 13.7 px bead): it drops under gravity alone, where
    # one touching the ceiling was fired down at 841-1064 px/s
    sim = simulate("[[creature]]\nname = 'mochi'\ncenter = [640, 635]\nradius = 70\n")
    _, body = sim.body("mochi")
    fastest = 0.0
    for _ in range(30):
        before = sim.stores.particles.pos[body.ring].copy()
        sim.step()
        fastest = max(fastest, creature_speed(before, sim.stores.particles.pos[body.ring]))
    assert fastest < 30 * 980 / 60 + 20.0  # free fall for half a second, 490 px/s


def test_a_creature_taken_by_its_foot_is_held_by_the_hip_and_follows_the_hand() -> None:
    # the legs system places knees and feet from the body every substep, whatever holds them: a
    # foot taken by the hand stayed where its leg put it, and the creature never followed (a user's
    # trial); then the hip taken instead was pulled to the foot, the body squeezed to a sliver
    session = Session(Simulation.load(CREATURE))
    session.run(120)
    sim = session.sim
    _, body = sim.body("mochi")
    foot = int(body.legs.foot[0])
    x, y = (float(v) for v in sim.stores.particles.pos[foot])
    width = np.ptp(sim.stores.particles.pos[body.ring, 0])
    session.queue({"type": "tool", "name": "drag"})
    session.queue({"type": "mouse_press", "x": x, "y": y, "button": "left"})
    session.advance()
    (hip,) = sim.stores.pins.index[: sim.stores.pins.count].tolist()
    assert hip in (int(body.legs.root_a[0]), int(body.legs.root_b[0]))
    start = sim.stores.particles.pos[hip].copy()
    session.run(10)  # the cursor still: the hip stays where it was taken, the body keeps its width
    assert np.linalg.norm(sim.stores.particles.pos[hip] - start) < 1.0
    assert np.ptp(sim.stores.particles.pos[body.ring, 0]) > 0.9 * width
    for step in range(1, 31):  # 300 px up and 150 right, within the grab's top speed
        session.queue(
            {
                "type": "mouse_drag",
                "x": x + 5 * step,
                "y": y + 10 * step,
                "dx": 5,
                "dy": 10,
                "buttons": ["left"],
            }
        )
        session.advance()
    session.run(10)
    np.testing.assert_allclose(sim.stores.particles.pos[hip], start + np.array([150.0, 300.0]), atol=1.0)


@pytest.mark.parametrize(("side", "goes"), [((0.0, 1.0), False), ((1.0, -0.3), True), ((0.0, -1.0), True)])
def test_a_finger_let_go_rises_slowly_off_a_body_below_it_but_never_carries_one_above_it(
    side: tuple[float, float], goes: bool
) -> None:
    # before: a finger dragged down past a creature and let go beside or under it rose as slowly as
    # from on top, carrying the creature up the right wall into the ceiling for 4 s (found in play)
    from weft.components import Press
    from weft.systems.softbody import move_fingers

    session = settled()
    sim = session.sim
    _, body = sim.body("mochi")
    pos = sim.stores.particles.pos
    ring = pos[body.ring]
    center = ring.mean(axis=0)
    finger = Press(active=False, reach=100.0)
    direction = np.array(side) / np.hypot(*side)
    # touching the skin on that side: the skin point farthest that way, the disc just inside it
    edge = ring[np.argmax(ring @ direction)]
    finger.at = tuple(edge + direction * (finger.reach - 1.0))
    finger.lifting = True
    move_fingers(pos, [body], [finger])
    assert (finger.at is None) == goes, (side, finger.at)
    if not goes:
        assert finger.at[1] > edge[1] + direction[1] * (finger.reach - 1.0)  # rising, slowly
    assert np.allclose(center, pos[body.ring].mean(axis=0))  # the finger moves, nothing else
