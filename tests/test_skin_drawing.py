"""Skinned characters, checked on real offscreen pictures (Mesa llvmpipe; no display, no GPU).

A skin is one mesh drawn in one call: it should cover exactly the skinned
triangles, in its fill colour (or its texture where the uvs put it), and
stay whole across a bent joint. The debug view adds the bones with their
frames, and for the probed vertices the textbook figure of skinning: a dot
at each rigid position, the straight line between them where linear blend
skinning puts the vertex, the arc where dual-quaternion skinning does, and
the skinned vertex.
World points are mapped to pixels through the renderer's own fit.
"""

from __future__ import annotations

import os

os.environ["ARCADE_HEADLESS"] = "1"  # before anything imports arcade

import itertools
from pathlib import Path

import esper
import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image
from support.pictures import LUMA, Picture, draw_calls, near
from support.sessions import Opened, open_level

from weft.components.skinned import Skinned
from weft.game.level.values import rgba
from weft.game.session import Session
from weft.levels import LEVELS_DIR
from weft.systems.draw.skins import (
    BONE_COLORS,
    LINEAR_COLOR,
    PROBE_LINE,
    RIGID_DOT,
    SKINNED_COLOR,
    SKINNED_DOT,
    X_AXIS_COLOR,
    Y_AXIS_COLOR,
)
from weft.systems.kernels.dual_quaternions import blend_rigid_motions
from weft.systems.kernels.skinning import rigid_positions
from weft.systems.skeletons import joint_positions

FloatArray = npt.NDArray[np.float64]

SAND = (214, 162, 92)
"""``#d6a25c``, the fill of the arms below."""


BENT = 60
"""Frame at which the elbow clip is bent furthest: the upper arm up 20 degrees, the forearm 90 more."""


def elbow(
    color: str = "#d6a25c",
    grid: tuple[int, int] = (32, 8),
    position: tuple[int, int] = (400, 360),
    name: str = "arm",
) -> str:
    """The elbow test level's ``[[skeleton]]`` (an arm of two bones bending under a clip, a flat-colour
    skin), with its fill colour, mesh grid, place and name to choose."""
    return f"""
[[skeleton]]
name = "{name}"
drive = "clip"
position = [{position[0]}, {position[1]}]
joints = [
  {{ name = "shoulder", at = [16, 32] }},
  {{ name = "elbow", at = [128, 32] }},
  {{ name = "hand", at = [240, 32] }},
]
bones = [
  {{ name = "upper", head = "shoulder", tail = "elbow" }},
  {{ name = "fore", head = "elbow", tail = "hand" }},
]
[skeleton.skin]
rect = [0, 0, 256, 64]
grid = [{grid[0]}, {grid[1]}]
probes = ["elbow"]
color = "{color}"
[skeleton.clip]
keys = [
  {{ time = 0.0, angles = {{ upper = 0, fore = 0 }} }},
  {{ time = 1.0, angles = {{ upper = 20, fore = 90 }} }},
  {{ time = 2.0, angles = {{ upper = 0, fore = 0 }} }},
]
"""


def level(*skeletons: str) -> str:
    """A level of ``skeletons`` (their ``[[skeleton]]`` tables) on the default background."""
    return '[level]\nname = "Elbow test"\n' + "".join(skeletons)


def along(polyline: FloatArray, step: float = 0.5) -> FloatArray:
    """Points ``(n, 2)`` every ``step`` px along a polyline ``(k, 2)``."""
    points = []
    for a, b in itertools.pairwise(polyline):
        count = max(2, int(np.ceil(np.linalg.norm(b - a) / step)))
        points.append(a + np.linspace(0.0, 1.0, count)[:, None] * (b - a))
    return np.concatenate(points)


def mesh_distance(points: FloatArray, positions: FloatArray, triangles: npt.NDArray[np.int32]) -> FloatArray:
    """Signed distance (px) from points ``(n, 2)`` to the outline of a triangle mesh, negative inside it."""
    a, b, c = (positions[triangles[:, k]] for k in range(3))

    def side(p: FloatArray, q: FloatArray, r: FloatArray) -> FloatArray:
        return (q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1]) - (q[..., 1] - p[..., 1]) * (
            r[..., 0] - p[..., 0]
        )

    inside = np.zeros(len(points), dtype=bool)
    for start in range(0, len(points), 2048):
        chunk = points[start : start + 2048, None]
        s1, s2, s3 = side(a, b, chunk), side(b, c, chunk), side(c, a, chunk)
        hit = ((s1 >= 0) & (s2 >= 0) & (s3 >= 0)) | ((s1 <= 0) & (s2 <= 0) & (s3 <= 0))
        inside[start : start + 2048] = hit.any(axis=1)
    # the outline: edges of one triangle only
    edges = np.sort(
        np.concatenate([triangles[:, [0, 1]], triangles[:, [1, 2]], triangles[:, [2, 0]]]), axis=1
    )
    unique, count = np.unique(edges, axis=0, return_counts=True)
    outline = unique[count == 1]
    p, q = positions[outline[:, 0]], positions[outline[:, 1]]
    pq = q - p
    t = np.clip(np.einsum("nei,ei->ne", points[:, None] - p, pq) / np.einsum("ei,ei->e", pq, pq), 0.0, 1.0)
    distance = np.linalg.norm(points[:, None] - (p + t[..., None] * pq), axis=-1).min(axis=1)
    return np.where(inside, -distance, distance)


def characters(session: Session) -> list[Skinned]:
    """The session's skinned characters, by entity id."""
    session.sim.activate()
    return [skinned for _, skinned in sorted(esper.get_component(Skinned), key=lambda item: item[0])]


@pytest.mark.parametrize("frame", [0, BENT])
def test_the_flat_colour_arm_covers_its_skinned_mesh_and_nothing_else(sessions: Opened, frame: int) -> None:
    session, pictures = open_level(sessions, level(elbow()))
    session.run(frame)
    background = rgba(session.sim.level.model.world.background)
    (arm,) = characters(session)
    mesh = arm.mesh
    picture = Picture(pictures.capture(), pictures)

    # the vertices inside the mesh (no outline normal) are the fill colour itself
    interior = mesh.positions[np.all(mesh.normals == 0.0, axis=1)]
    assert len(interior) > 100
    assert near(picture.at(interior), SAND, 12.0).all(), "interior vertices are not in the fill colour"

    # every pixel around the arm: the skin inside the mesh, the background outside it
    low, high = mesh.positions.min(axis=0) - 20.0, mesh.positions.max(axis=0) + 20.0
    grid = np.stack(np.meshgrid(np.arange(low[0], high[0], 1.5), np.arange(low[1], high[1], 1.5)), -1)
    points = grid.reshape(-1, 2)
    distance = mesh_distance(points, mesh.positions, mesh.triangles)
    colors = picture.at(points)
    assert near(colors[distance > 2.0], background, 6.0).all(), "paint outside the mesh"
    assert not near(colors[distance < -1.5], background).any(), "background shows inside the mesh"
    # away from the shaded rim (one grid cell, up to twice as wide where the elbow stretches it): the fill
    assert near(colors[distance < -18.0], SAND, 20.0).all(), "the fill is shaded away from the rim"
    # towards the rim it is the fill darkened, not another colour
    rim = colors[(distance < -1.5) & (distance > -4.0)]
    shade = rim @ np.array(SAND) / float(np.dot(SAND, SAND))
    assert 0.55 < np.median(shade) < 0.95, f"the rim is {np.median(shade):.2f} of the fill"
    assert near(rim, np.outer(shade, SAND), 20.0).mean() > 0.95


@pytest.mark.parametrize("frame", [30, BENT])
def test_the_skin_is_whole_across_the_bent_elbow(sessions: Opened, frame: int) -> None:
    session, pictures = open_level(sessions, level(elbow()))
    session.run(frame)
    background = rgba(session.sim.level.model.world.background)
    (arm,) = characters(session)
    picture = Picture(pictures.capture(), pictures)
    joints = joint_positions(arm)  # shoulder, elbow, hand
    turn = np.degrees(np.arctan2(*(joints[2] - joints[1])[::-1]) - np.arctan2(*(joints[1] - joints[0])[::-1]))
    assert turn > 40.0, f"the elbow is bent by only {turn:.0f} degrees at frame {frame}"

    centre = along(joints)
    assert not near(picture.at(centre), background).any(), "a crack across the centre line at the elbow"
    assert near(picture.at(centre), SAND, 20.0).all()
    # the rows of vertices halfway to either edge: the outer one is where rigid pieces would gape
    bind = arm.mesh.bind_positions
    for row in (376.0, 408.0):
        members = np.flatnonzero(np.isclose(bind[:, 1], row))
        line = arm.mesh.positions[members[np.argsort(bind[members, 0])]]
        assert len(line) == 33
        inner = along(line[1:-1])  # the end vertices lie on the outline, at the arm's two ends
        assert not near(picture.at(inner), background).any(), f"a crack along the row at y = {row}"


def stripes(path: Path) -> None:
    """A 64×32 RGBA image: red, green over blue, yellow; a clear 4-texel hole (black, alpha 0) in the red."""
    image = np.zeros((32, 64, 4), dtype=np.uint8)  # row 0 at the top
    image[:16, :32] = (255, 0, 0, 255)
    image[:16, 32:] = (0, 255, 0, 255)
    image[16:, :32] = (0, 0, 255, 255)
    image[16:, 32:] = (255, 255, 0, 255)
    image[:16, 6:10] = (0, 0, 0, 0)
    Image.fromarray(image).save(path)


STRIPED = """
[world]
background = "#c8c8c8"

[[skeleton]]
name = "bar"
drive = "clip"
position = [400, 300]
joints = [{ name = "a", at = [0, 32] }, { name = "b", at = [128, 32] }, { name = "c", at = [256, 32] }]
bones = [{ name = "left", head = "a", tail = "b" }, { name = "right", head = "b", tail = "c" }]
[skeleton.skin]
texture = "stripes.png"
rect = [0, 0, 256, 64]
grid = [4, 2]
[skeleton.clip]
keys = [{ time = 0.0, angles = { left = 0, right = 0 } }]
"""
"""A straight bar of two bones at rest, skinned with ``stripes``: each texel is 4 px wide and 2 px tall."""


def test_the_texture_appears_where_the_uvs_put_it_without_dark_fringes(
    sessions: Opened, tmp_path: Path
) -> None:
    stripes(tmp_path / "stripes.png")
    (tmp_path / "striped.toml").write_text(STRIPED)
    _, pictures = open_level(sessions, tmp_path / "striped.toml")
    picture = Picture(pictures.capture(), pictures)
    background = (200, 200, 200)

    # uv v = 0 is the bottom of the image: the image's top row (red, green) is the top of the bar
    quadrants = {
        (496, 348): (255, 0, 0),
        (592, 348): (0, 255, 0),
        (464, 316): (0, 0, 255),
        (592, 316): (255, 255, 0),
    }
    for point, color in quadrants.items():
        assert near(picture.at([point]), color, 10.0).all(), f"{picture.at([point])} at {point}, not {color}"
    # the clear texels (texels 6 to 9 of the red: x 424 to 440) show the background
    assert near(picture.at([(432, 348)]), background, 10.0).all()
    # across the hole's edges the colour goes from red to the background and never darker than either:
    # straight alpha would mix the clear texels' black into the red
    row = picture.at(np.column_stack([np.arange(404.0, 460.0, 0.5), np.full(112, 348.0)]))
    assert (row[:, 0] > 200.0 - 6.0).all(), f"a dark fringe: red falls to {row[:, 0].min():.0f}"
    assert np.ptp(row[:, 1] - row[:, 2]) < 6.0 and (row[:, 1] <= 200.0 + 4.0).all()


def test_the_debug_view_marks_the_rigid_positions_the_skinned_vertex_and_the_bones(sessions: Opened) -> None:
    # cells of 32 px, so the probed vertices (the elbow's and three of its neighbours) stand apart, at a
    # bend (63 degrees) where no two markers of different bones fall on one another
    session, pictures = open_level(sessions, level(elbow(grid=(8, 2))))
    session.run(36)
    (arm,) = characters(session)
    plain = Picture(pictures.capture(), pictures)
    session.debug = True
    debug = Picture(pictures.capture(), pictures)

    mesh, skeleton = arm.mesh, arm.skeleton
    probes = arm.probes
    assert len(probes) >= 2
    rigid = rigid_positions(mesh.bind_positions[probes], mesh.bone_indices[probes], skeleton.skinning)
    used = mesh.weights[probes] > 0.0
    dots, bones = rigid[used], mesh.bone_indices[probes][used]
    skinned = mesh.positions[probes]
    markers = np.concatenate([dots, skinned])
    # how far each marker's paint reaches (dot and dark ring), plus a pixel of rounding and anti-aliasing
    reach = np.concatenate([np.full(len(dots), RIGID_DOT), np.full(len(skinned), SKINNED_DOT)]) + 2.2
    checked = 0
    for k, (dot, bone) in enumerate(zip(dots, bones, strict=True)):
        apart = np.linalg.norm(markers - dot, axis=1) >= reach
        if not np.delete(apart, k).all():
            continue  # under another marker (the elbow's own vertex has both rigid positions there)
        color = BONE_COLORS[bone % len(BONE_COLORS)]
        assert near(debug.at([dot]), color).all(), f"bone {bone}'s dot at {dot} shows {debug.at([dot])}"
        assert not near(plain.at([dot]), color).any()
        checked += 1
    assert checked >= 6, f"only {checked} rigid positions stand apart from the other markers"
    for k, point in enumerate(skinned):
        apart = np.linalg.norm(markers - point, axis=1) >= reach
        if np.delete(apart, len(dots) + k).all():
            assert near(debug.at([point]), SKINNED_COLOR).all(), f"no white dot at skinned vertex {point}"
    # a grey line joins each probe's two rigid positions (the linear blend's path), with a grey dot where
    # the linear blend puts the vertex; a white arc joins them along the dual-quaternion blend's path,
    # through the skinned vertex (the level skins by dual quaternions)
    linear_at = np.einsum("ps,psi->pi", mesh.weights[probes], rigid)
    lines = arcs = linear_dots = 0
    for k in np.flatnonzero(used.sum(axis=1) == 2):
        ends = rigid[k][used[k]]
        bones_k = mesh.bone_indices[probes[k]][used[k]]
        chord = 0.5 * (ends[0] + ends[1])
        pair = skeleton.skin_rotors[bones_k][None]
        arc = blend_rigid_motions(mesh.bind_positions[probes[k]][None], pair, np.array([[0.5, 0.5]]))[0]
        np.testing.assert_allclose(  # the skinned vertex is on the arc (at its own weights)
            skinned[k],
            blend_rigid_motions(
                mesh.bind_positions[probes[k]][None], pair, mesh.weights[probes[k]][used[k]][None]
            )[0],
            atol=1e-9,
        )
        block = np.stack(np.meshgrid([-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0]), -1).reshape(-1, 2)
        if (np.linalg.norm(markers - chord, axis=1) >= reach).all() and np.linalg.norm(chord - arc) > 6.0:
            assert near(debug.at(chord + block), PROBE_LINE, 40.0).any(), f"no grey line for probe {k}"
            lines += 1
        if (np.linalg.norm(markers - arc, axis=1) >= reach).all():
            assert (debug.at(arc + block) @ LUMA).max() > 180.0, f"no white arc for probe {k}"
            arcs += 1
        if (np.linalg.norm(markers - linear_at[k], axis=1) >= reach).all():
            assert near(debug.at([linear_at[k]]), LINEAR_COLOR, 30.0).all(), f"no grey dot for probe {k}"
            linear_dots += 1
    assert lines >= 2 and arcs >= 2 and linear_dots >= 1, (lines, arcs, linear_dots)

    # the bones, as lines in the outline colour along their middle stretch, and each frame's ticks
    origin, x_axis, y_axis = skeleton.pose[:, :, 2], skeleton.pose[:, :, 0], skeleton.pose[:, :, 1]
    middles = (
        origin[:, None]
        + np.linspace(0.3, 0.7, 9)[None, :, None] * (x_axis * skeleton.length[:, None])[:, None]
    )
    middles = middles.reshape(-1, 2)
    middles = middles[np.linalg.norm(middles[:, None] - markers[None], axis=-1).min(axis=1) > 8.0]
    assert len(middles) >= 12
    assert near(debug.at(middles), arm.look.outline, 30.0).all(), "the bones are not drawn"
    assert not near(plain.at(middles), arm.look.outline, 30.0).any()
    root = origin[0]
    assert near(debug.at([root + 10.0 * x_axis[0]]), X_AXIS_COLOR).all(), "no red x tick at the shoulder"
    assert near(debug.at([root + 10.0 * y_axis[0]]), Y_AXIS_COLOR).all(), "no green y tick at the shoulder"


def test_the_debug_view_dims_the_skin_and_tints_it_by_its_weights(sessions: Opened) -> None:
    session, pictures = open_level(sessions, level(elbow()))
    (arm,) = characters(session)
    mesh = arm.mesh
    # interior vertices all but wholly on one bone, away from the bones' lines
    alone = np.all(mesh.normals == 0.0, axis=1) & (mesh.weights.max(axis=1) > 0.95)
    alone &= np.abs(mesh.positions[:, 1] - 392.0) > 8.0  # off the bone lines...
    origins = arm.skeleton.pose[:, :, 2]
    alone &= (
        np.linalg.norm(mesh.positions[:, None] - origins[None], axis=-1).min(axis=1) > 24.0
    )  # ...and ticks
    plain = Picture(pictures.capture(), pictures).at(mesh.positions[alone])
    session.debug = True
    debug = Picture(pictures.capture(), pictures).at(mesh.positions[alone])
    assert alone.sum() > 20
    assert (debug @ LUMA < 0.85 * (plain @ LUMA)).all(), "the skin is not dimmed"
    hues = BONE_COLORS[:2] / np.linalg.norm(BONE_COLORS[:2], axis=1, keepdims=True)
    tint = debug / np.linalg.norm(debug, axis=1, keepdims=True)
    closest = np.argmax(tint @ hues.T, axis=1)
    dominant = mesh.bone_indices[alone, np.argmax(mesh.weights[alone], axis=1)]
    assert (closest == dominant).all(), "vertices are not tinted by the colour of the bone they follow"
    assert set(dominant.tolist()) == {0, 1}


def test_any_number_of_characters_takes_one_draw_call_each_and_their_debug_marks_one_more(
    sessions: Opened,
) -> None:
    counts = []
    for arms in (1, 3):
        skeletons = [elbow(position=(100 + 380 * k, 360), name=f"arm{k}") for k in range(arms)]
        session, pictures = open_level(sessions, level(*skeletons))
        session.run(2)
        pictures.capture()
        for debug in (False, True):
            counts.append((arms, debug, draw_calls(pictures, "skin_mesh", debug)))
    assert counts == [(1, False, 1), (1, True, 2), (3, False, 3), (3, True, 4)]


def test_the_ragdoll_wears_its_textured_skin_whole_across_every_bent_joint(sessions: Opened) -> None:
    session, pictures = open_level(sessions, LEVELS_DIR / "ragdoll.toml")
    session.run(75)  # sliding down the ramp, elbows and knees bent
    (doll,) = characters(session)
    joints = joint_positions(doll)
    picture = Picture(pictures.capture(), pictures)
    background = rgba("#1d2230")[:3]
    # along every limb, through its middle joint: hip-knee-foot and shoulder-elbow-hand (by the level's
    # joint order), stopping 14 px short of the hands and feet (dark shoes read as background)
    for upper, middle, end in ((9, 11, 13), (10, 12, 14), (3, 5, 7), (4, 6, 8)):
        tip = joints[end] + 14.0 * (joints[middle] - joints[end]) / np.linalg.norm(
            joints[middle] - joints[end]
        )
        limb = along(np.array([joints[upper], joints[middle], tip]))
        colors = picture.at(limb)
        assert not near(colors, background, 12.0).any(), (
            f"the skin is cracked along limb {upper}-{middle}-{end}"
        )
    # the texture shows: the dress's blue and the stockings' red are both there, at their bones
    spine = along(np.array([joints[0], joints[1]]))
    assert (picture.at(spine)[:, 2] > picture.at(spine)[:, 0] + 40).mean() > 0.3  # blue dress on the spine
    shin = along(np.array([joints[11], joints[13]]))
    assert (picture.at(shin)[:, 0] > picture.at(shin)[:, 2] + 60).mean() > 0.3  # red stripes on the shin
