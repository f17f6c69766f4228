"""Skinned characters from level files: the ragdoll's joints and skin, keyframed clips, bad weights."""

from __future__ import annotations

import math
from pathlib import Path

import esper
import numpy as np
import pytest
from support.worlds import simulate

from weft.components import Ragdoll, Skinned
from weft.components.skin import SkinnedMesh
from weft.game.level import LevelError
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR
from weft.systems.kernels.joint_limits import joint_angles
from weft.systems.kernels.skinning import rigid_positions
from weft.systems.skeletons import skin

RAGDOLL = LEVELS_DIR / "ragdoll.toml"

ARM = """
[[skeleton]]
name = "arm"
drive = "clip"
position = [400, 300]
joints = [
  { name = "shoulder", at = [0, 0] },
  { name = "elbow", at = [100, 0] },
  { name = "hand", at = [200, 0] },
]
bones = [
  { name = "upper", head = "shoulder", tail = "elbow" },
  { name = "fore", head = "elbow", tail = "hand" },
]
[skeleton.skin]
rect = [-10, -20, 210, 20]
grid = [22, 4]
probes = ["elbow"]
[skeleton.clip]
duration = 3.0
smooth = false
keys = [
  { time = 0.0, angles = { upper = 0, fore = 0 } },
  { time = 1.0, angles = { upper = 30, fore = 90 } },
  { time = 2.0, angles = { upper = 30, fore = 0 } },
]
"""

TRIANGLE = """
[[skeleton]]
name = "patch"
drive = "clip"
joints = [{ name = "a", at = [0, 0] }, { name = "b", at = [50, 0] }, { name = "c", at = [100, 0] }]
bones = [{ name = "one", head = "a", tail = "b" }, { name = "two", head = "b", tail = "c" }]
[skeleton.clip]
keys = [{ time = 0.0, angles = {} }]
[skeleton.skin]
vertices = [[0, 0], [50, 10], [100, 0]]
triangles = [[0, 1, 2]]
uvs = [[0, 0], [0.5, 1], [1, 0]]
"""


def character(sim: Simulation, name: str) -> tuple[int, Skinned]:
    sim.activate()
    return next((e, s) for e, s in esper.get_component(Skinned) if s.name == name)


def limit_violation(sim: Simulation, doll: Ragdoll) -> float:
    """How far (rad) the worst joint is outside its range."""
    angles = np.zeros(len(doll.a))
    joint_angles(sim.stores.particles.pos, doll.a, doll.b, doll.c, angles)
    return float(max(0.0, np.max(doll.low - angles), np.max(angles - doll.high)))


def distance_to_bones(
    points: np.ndarray, frames: np.ndarray, length: np.ndarray, mesh: SkinnedMesh
) -> np.ndarray:
    """Each vertex's distance to the nearest of the bones it follows, px."""
    heads = frames[:, :, 2]
    tails = heads + frames[:, :, 0] * length[:, None]
    out = np.full(len(points), np.inf)
    for slot in range(4):
        bone = mesh.bone_indices[:, slot]
        a, b = heads[bone], tails[bone]
        t = np.clip(np.einsum("vi,vi->v", points - a, b - a) / np.einsum("vi,vi->v", b - a, b - a), 0.0, 1.0)
        d = np.linalg.norm(points - (a + t[:, None] * (b - a)), axis=1)
        out = np.where(mesh.weights[:, slot] > 0.0, np.minimum(out, d), out)
    return out


def test_the_ragdoll_keeps_its_joints_in_range_and_its_skin_on_through_a_rough_throw() -> None:
    session = Session(Simulation.load(RAGDOLL))
    sim = session.sim
    entity, skinned = character(sim, "doll")
    doll = esper.component_for_entity(entity, Ragdoll)
    hand = sim.positions("doll")[7]  # hand_l, as listed in the level
    session.queue({"type": "mouse_press", "x": hand[0], "y": hand[1], "button": "left"})
    worst = 0.0
    # whirl the hand round a circle of 150 px at 1.4 turns a second (1350 px/s), then let go
    for frame in range(60):
        angle = frame * 0.15
        x, y = hand[0] - 150 + 150 * math.cos(angle), hand[1] + 150 * math.sin(angle)
        session.queue({"type": "mouse_drag", "x": x, "y": y, "dx": 0.0, "dy": 0.0, "buttons": ["left"]})
        session.advance()
        worst = max(worst, limit_violation(sim, doll))
    session.queue({"type": "mouse_release", "x": x, "y": y, "button": "left"})
    for _ in range(240):
        session.advance()
        worst = max(worst, limit_violation(sim, doll))
    # the limits come last in every iteration, swept until every joint holds to 1e-4 rad, so the
    # worst left is from the walls at the substep's end, where the hand hits the ceiling and a side
    # wall: 0.014 rad measured; 0.03 rad is under 2 degrees
    assert worst < 0.03, worst
    assert np.isfinite(sim.positions("doll")).all()
    # the skin stays on: no vertex ends farther from its bones than it was in the bind pose, but for
    # what blending two bones at a bent joint costs (4.3 px measured; 6 px is under half a limb's
    # thickness). Nearer is fine: a bent neck brings the hair close to the spine.
    mesh, skeleton = skinned.mesh, skinned.skeleton
    now = distance_to_bones(mesh.positions, skeleton.pose, skeleton.length, mesh)
    bind = distance_to_bones(mesh.bind_positions, skeleton.bind, skeleton.length, mesh)
    assert (now - bind).max() < 6.0, (now - bind).max()
    lengths = np.linalg.norm(
        sim.stores.particles.pos[doll.tails] - sim.stores.particles.pos[doll.heads], axis=1
    )
    np.testing.assert_allclose(lengths, skeleton.length, rtol=0.02)  # bones are stiff links
    # and, let go, it settles: the limits and braces do not fight each other (a torso turned inside
    # out once kept the doll crawling by itself, 4 px a frame); still settling, its joints moved
    # at most 1.7 px in that last second (measured)
    session.run(120)
    before = sim.positions("doll")
    session.run(60)
    assert np.linalg.norm(sim.positions("doll") - before, axis=1).max() < 5.0


def test_at_rest_in_the_bind_pose_the_skin_is_the_mesh_as_made() -> None:
    sim = Simulation.load(RAGDOLL)
    _, skinned = character(sim, "doll")
    skin(skinned.skeleton, skinned.mesh)
    np.testing.assert_allclose(skinned.mesh.positions, skinned.mesh.bind_positions, atol=1e-9)


def test_a_clip_passes_through_its_keys_and_children_turn_with_their_parents() -> None:
    sim = simulate(ARM)
    sim.step(60)  # t = 1 s: upper arm at 30°, forearm 90° further
    joints = sim.positions("arm")
    elbow = joints[0] + 100 * np.array([math.cos(math.radians(30)), math.sin(math.radians(30))])
    hand = elbow + 100 * np.array([math.cos(math.radians(120)), math.sin(math.radians(120))])
    np.testing.assert_allclose(joints[1], elbow, atol=1e-9)
    np.testing.assert_allclose(joints[2], hand, atol=1e-9)
    sim.step(30)  # t = 1.5 s, straight lines between keys: forearm half way back, at 45°
    fore = sim.positions("arm")[2] - sim.positions("arm")[1]
    assert math.degrees(math.atan2(fore[1], fore[0])) == pytest.approx(30 + 45, abs=1e-6)
    sim.step(90)  # t = 3 s: the loop is back at its first key
    np.testing.assert_allclose(sim.positions("arm")[2], [600.0, 300.0], atol=1e-9)


def test_a_vertex_weighted_60_40_stays_nearer_the_rigid_position_of_its_first_bone() -> None:
    sim = simulate(ARM)
    _, skinned = character(sim, "arm")
    sim.step(60)
    mesh = skinned.mesh
    rigid = rigid_positions(mesh.bind_positions, mesh.bone_indices, skinned.skeleton.skinning)
    for v in skinned.probes:
        w = mesh.weights[v]
        if np.count_nonzero(w) != 2:
            continue
        first, second = rigid[v, 0], rigid[v, 1]
        expected = first + w[1] * (second - first)  # on the segment, w[1] of the way from the first
        np.testing.assert_allclose(mesh.positions[v], expected, atol=1e-9)


def test_an_explicit_mesh_with_weights_that_do_not_sum_to_1_is_refused_naming_the_vertex() -> None:
    text = TRIANGLE + 'bones = [["one"], ["one", "two"], ["two"]]\nweights = [[1.0], [0.5, 0.4], [1.0]]\n'
    with pytest.raises(LevelError) as error:
        simulate(text)
    (problem,) = error.value.problems
    assert problem.path == ("skeleton", 0, "skin", "weights", 1)
    assert "expected weights summing to 1, got [0.5, 0.4] (sum 0.9)" in problem.message
    assert "normalize_weights = true" in problem.message


def test_asked_to_the_level_rescales_the_weights_with_a_warning() -> None:
    text = TRIANGLE + (
        'bones = [["one"], ["one", "two"], ["two"]]\nweights = [[1.0], [0.5, 0.4], [1.0]]\n'
        "normalize_weights = true\n"
    )
    with pytest.warns(UserWarning, match=r"skeleton\.0\.skin\.weights: rescaled .*vertex 1"):
        sim = simulate(text)
    _, skinned = character(sim, "patch")
    np.testing.assert_allclose(skinned.mesh.weights[1, :2], [5 / 9, 4 / 9])


def test_a_vertex_following_more_than_four_bones_is_refused() -> None:
    joints = ", ".join(f'{{ name = "j{k}", at = [{20 * k}, 0] }}' for k in range(6))
    bones = ", ".join(f'{{ name = "b{k}", head = "j{k}", tail = "j{k + 1}" }}' for k in range(5))
    text = f"""
    [[skeleton]]
    drive = "clip"
    joints = [{joints}]
    bones = [{bones}]
    [skeleton.clip]
    keys = [{{ time = 0.0, angles = {{}} }}]
    [skeleton.skin]
    vertices = [[0, 0], [50, 10], [100, 0]]
    triangles = [[0, 1, 2]]
    uvs = [[0, 0], [0.5, 1], [1, 0]]
    bones = [["b0"], ["b0", "b1", "b2", "b3", "b4"], ["b4"]]
    weights = [[1.0], [0.2, 0.2, 0.2, 0.2, 0.2], [1.0]]
    """
    with pytest.raises(LevelError) as error:
        simulate(text)
    (problem,) = error.value.problems
    assert problem.path == ("skeleton", 0, "skin", "bones", 1)
    assert "expected at most 4 bones per vertex, got 5" in problem.message


@pytest.mark.parametrize(
    ("change", "path", "message"),
    [
        (('head = "elbow"', 'head = "elbo"'), ("skeleton", 0, "bones", 1, "head"), "did you mean 'elbow'?"),
        (("fore = 90", "foer = 90"), ("skeleton", 0, "clip", "keys", 1, "angles"), "did you mean 'fore'?"),
        (('probes = ["elbow"]', 'probes = ["wrist"]'), ("skeleton", 0, "skin", "probes"), "got 'wrist'"),
        (
            (
                '{ name = "upper", head = "shoulder", tail = "elbow" }',
                '{ name = "upper", head = "shoulder", tail = "elbow", max_deg = 10 }',
            ),
            ("skeleton", 0, "bones", 0, "max_deg"),
            "no angle limit on a root bone",
        ),
    ],
)
def test_names_that_do_not_resolve_are_reported_where_they_are(
    change: tuple[str, str], path: tuple[object, ...], message: str
) -> None:
    with pytest.raises(LevelError) as error:
        simulate(ARM.replace(*change))
    (problem,) = error.value.problems
    assert problem.path == path
    assert message in problem.message


def test_the_shipped_characters_load_and_their_skins_cover_their_textures() -> None:
    for name in ("ragdoll", "elbow"):
        sim = Simulation.load(LEVELS_DIR / f"{name}.toml")
        sim.step(30)
        for _, skinned in (
            character(sim, body.name) for _, body in sim.bodies() if isinstance(body, Skinned)
        ):
            assert len(skinned.mesh.triangles) > 100
            assert np.isfinite(skinned.mesh.positions).all()
            np.testing.assert_allclose(skinned.mesh.weights.sum(axis=1), 1.0, atol=1e-9)


def test_two_runs_of_the_ragdoll_are_bit_identical() -> None:
    hashes = []
    for _ in range(2):
        sim = Simulation.load(RAGDOLL)
        sim.step(120)
        hashes.append(sim.state_hash())
    assert hashes[0] == hashes[1]


def test_a_ragdoll_is_a_body_with_its_joints_in_state_files() -> None:
    sim = Simulation.load(RAGDOLL)
    state = sim.state()
    assert state["bodies"]["doll"]["kind"] == "skeleton"
    assert len(state["bodies"]["doll"]["positions"]) == 15
    assert sim.metrics()["counts"]["bodies"] == 4  # the doll, the ramp, the crates and the pegs


STICK = """
[[skeleton]]
name = "stick"
position = [{x}, {y}]
joint_radius = 6
joints = [{{ name = "a", at = [0, 0] }}, {{ name = "b", at = [40, 0] }}, {{ name = "c", at = [80, 0] }}]
bones = [
  {{ name = "left", head = "a", tail = "b" }},
  {{ name = "right", head = "b", tail = "c", min_deg = -30, max_deg = 30 }},
]
[skeleton.skin]
grid = [8, 2]
"""


@pytest.mark.parametrize(
    ("world", "below"),
    [
        (
            """[[cloth]]
            name = "net"
            origin = [500, 400]
            cols = 25
            rows = 2
            spacing = 12
            thickness = 4
            pins = { layout = "list", points = [[0, 0], [24, 0]] }
            tearable = false""",
            "net",
        ),
        (
            '[[boxes]]\nname = "crate"\nlayout = "list"\npositions = [[640, 30]]\nsize = [200, 60]\n'
            "fixed = true",
            "crate",
        ),
        # under the joints: only joints collide (Jakobsen's particles), a bone passes between pegs
        (
            '[[balls]]\nname = "pegs"\npositions = [[600, 200], [640, 200], [680, 200]]\nradius = [10, 10]\n'
            "fixed = true",
            "pegs",
        ),
    ],
)
def test_a_ragdoll_lands_on_cloth_boxes_and_balls_rather_than_through_them(world: str, below: str) -> None:
    sim = simulate("[world]\ngravity = [0, -900]\niterations = 10\n" + world + STICK.format(x=600, y=500))
    sim.step(180)
    stick = sim.positions("stick")
    floor_rest = 6.0  # a joint lying on the floor
    assert stick[:, 1].min() > floor_rest + 20.0, stick  # held up, not on the floor
    if below == "net":
        assert stick[:, 1].min() > sim.positions("net")[:, 1].min()  # resting in it, not through it
    elif below == "crate":
        assert stick[:, 1].min() > 60.0 + 6.0 - 0.5  # on the crate's top face, by its joints' radius
    else:
        assert stick[:, 1].max() > 200.0  # hanging over the pegs


@pytest.mark.parametrize(
    "content", [b"not an image", (LEVELS_DIR / "textures" / "doll.png").read_bytes()[:3000]]
)
def test_a_skin_texture_that_is_not_a_whole_image_is_a_problem_not_a_traceback(
    tmp_path: Path, content: bytes
) -> None:
    """A file that is not an image, or a PNG caught half saved (hot reload reads it mid-save)."""
    (tmp_path / "textures").mkdir()
    (tmp_path / "textures" / "doll.png").write_bytes(content)
    level = tmp_path / "ragdoll.toml"
    level.write_text(RAGDOLL.read_text())
    with pytest.raises(LevelError) as error:
        Simulation.load(level)
    (problem,) = error.value.problems
    # not an image at all: its header says so; half a PNG: only decoding it does
    assert problem.path in (("skeleton", 0, "skin", "texture"), ("skeleton", 0, "skin"))
    assert "image file" in problem.message and "doll.png" in problem.message


def test_a_keyframed_character_counts_in_the_hash_and_never_settles_while_it_moves() -> None:
    sim = simulate(ARM)  # no particles at all: only its bones move
    hashes = []
    for _ in range(3):
        sim.step(10)
        hashes.append(sim.state_hash())
    assert len(set(hashes)) == 3
    assert sim.metrics()["settled_frame"] is None


def test_limits_that_reach_past_the_fold_on_both_ends_and_zero_length_braces_are_refused() -> None:
    # the forearm starts folded back at 170 degrees from the upper arm: turning it 20 to 30 degrees
    # further would need a range beyond 180 at both ends, which no angle can meet
    folded = ARM.replace('{ name = "hand", at = [200, 0] }', '{ name = "hand", at = [1.5, 17.4] }').replace(
        '{ name = "fore", head = "elbow", tail = "hand" }',
        '{ name = "fore", head = "elbow", tail = "hand", min_deg = 20, max_deg = 30 }',
    )
    with pytest.raises(LevelError) as error:
        simulate(folded.replace('drive = "clip"', 'drive = "ragdoll"'))
    (problem,) = error.value.problems
    assert problem.path == ("skeleton", 0, "bones", 1)
    assert "within 180 degrees of the parent's direction" in problem.message

    braced = STICK.format(x=600, y=500).replace("[skeleton.skin]", 'braces = [["a", "a"]]\n[skeleton.skin]')
    with pytest.raises(LevelError) as error:
        simulate(braced)
    (problem,) = error.value.problems
    assert problem.path == ("skeleton", 0, "braces", 0)
