"""Soft-body creatures: the same shape after every press, a taut skin, standing up, legs within limits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from support.worlds import simulate

from game.session import Session
from game.simulation import Simulation
from levels import LEVELS_DIR
from systems.kernels.softbody import ring_area, ring_perimeter
from systems.softbody import head_line

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


def press(session: Session, direction: tuple[float, float], frames: int = 60, distance: float = 150.0):
    """Hold the press tool's 100 px finger ``distance`` px from the body's centre; yield after each frame."""
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
    # 1 px RMS, as the issue asks; measured 0.0007 px: no rest shape is stored, the
    # pressure and the skin meet at the same solution after any press
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
    for frame, _ in enumerate(press(session, (0.0, 1.0), frames=90, distance=120.0)):
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
    assert soft < firm < firmer  # measured 118, 121, 127 px of a 140 px body


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


def test_enter_pokes_the_creature_and_its_face_knows_it_is_pressed() -> None:
    session = settled()
    _, body = session.sim.body("mochi")
    assert not body.pressed
    session.queue({"type": "key_press", "key": "ENTER"})
    session.advance()
    assert body.pressed
    session.run(30)
    assert not body.pressed


def test_the_same_press_script_gives_the_same_state_twice() -> None:
    hashes = []
    for _ in range(2):
        session = settled()
        list(press(session, (0.3, 1.0)))
        session.queue({"type": "key_press", "key": "ENTER"})
        session.run(60)
        hashes.append(session.sim.state_hash())
    assert hashes[0] == hashes[1]


def test_creatures_collide_with_each_other_and_with_balls() -> None:
    sim = Simulation.load(LEVELS_DIR / "creatures.toml")
    sim.step(240)
    names = [body.name for _, body in sim.bodies() if hasattr(body, "ring")]
    particles = sim.stores.particles
    rings = {name: particles.pos[sim.body(name)[1].ring] for name in names}
    for k, a in enumerate(names):
        for b in names[k + 1 :]:
            # skins are beads of radius ``bead``: two rings never come closer than the beads allow
            gap = np.linalg.norm(rings[a][:, None] - rings[b][None, :], axis=2).min()
            beads = sim.body(a)[1].bead + sim.body(b)[1].bead
            assert gap > 0.8 * beads
    assert sim.metrics()["max_penetration"] < 3.0
