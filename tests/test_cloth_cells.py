"""What of a sheet is cloth: cells whose four sides hold, split so a fold shows one face."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from support.worlds import sheet

from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import DEFAULT_LEVEL
from weft.systems.cloth_cells import woven_triangles

# one cell: a b / c d, 10 px, y up; its sides top a-b (0), bottom c-d (1), left a-c (2), right b-d (3)
CELL = np.array([[0, 1, 2, 3]])
SIDES = np.array([[0, 1, 2, 3]])
SQUARE = np.array([[0.0, 10.0], [10.0, 10.0], [0.0, 0.0], [10.0, 0.0]])


def signed(pos: np.ndarray, triangles: np.ndarray) -> np.ndarray:
    a, b, c = pos[triangles[:, 0]], pos[triangles[:, 1]], pos[triangles[:, 2]]
    return (b - a)[:, 0] * (c - a)[:, 1] - (b - a)[:, 1] * (c - a)[:, 0]


def test_a_cell_is_drawn_only_while_its_four_sides_hold() -> None:
    assert len(woven_triangles(SQUARE, CELL, SIDES, np.ones(4, bool))[0]) == 2
    for side in range(4):
        alive = np.ones(4, bool)
        alive[side] = False
        # the half cell left was a triangle on a free hinge: it folded over into a dark shard
        assert len(woven_triangles(SQUARE, CELL, SIDES, alive)[0]) == 0


def test_a_cell_folded_into_a_dart_is_split_so_both_halves_face_the_same_way() -> None:
    dart = SQUARE.copy()
    dart[2] = (7.0, 7.0)  # c folded in past the diagonal a-d, inside the triangle a b d
    triangles, _ = woven_triangles(dart, CELL, SIDES, np.ones(4, bool))
    areas = signed(dart, triangles)
    assert (np.sign(areas) == np.sign(areas[0])).all()
    assert sorted(map(sorted, triangles.tolist())) == [[0, 1, 2], [1, 2, 3]]  # split along b-c
    # the same cell unfolded keeps the diagonal a-d
    assert sorted(map(sorted, woven_triangles(SQUARE, CELL, SIDES, np.ones(4, bool))[0].tolist())) == [
        [0, 1, 3],
        [0, 2, 3],
    ]


def test_after_cuts_in_the_wind_no_cell_shows_both_faces_where_one_split_would_not() -> None:
    session = Session(Simulation.load(DEFAULT_LEVEL, ["world.wind.enabled=true"]))
    session.run(40)
    y0, y1 = 600.0, 300.0
    stroke = [(200.0 + 30 * k, y0 if k % 2 == 0 else y1) for k in range(26)]  # a saw-toothed cut
    session.queue({"type": "mouse_press", "x": stroke[0][0], "y": stroke[0][1], "button": "right"})
    for (xa, ya), (xb, yb) in pairwise(stroke):
        session.queue(
            {"type": "mouse_drag", "x": xb, "y": yb, "dx": xb - xa, "dy": yb - ya, "buttons": ["right"]}
        )
        session.advance()
    session.run(120)
    sim = session.sim
    _, cloth = sim.body("sheet")
    pos, alive = sim.stores.particles.pos, sim.stores.distances.alive
    triangles, areas = woven_triangles(pos, cloth.cells, cloth.cell_threads, alive)
    faces = signed(pos, triangles) < 0.0  # the kernel's test: a flat triangle faces neither way
    mixed = faces[0::2] != faces[1::2]  # the two triangles of each cell come in pairs
    assert mixed.sum() < 0.03 * len(areas)  # split along a-d always: 134 such cells of 2348 here (now 43)
    # those left are twisted both ways (a bow tie): neither split shows one face
    a, b, c, d = cloth.cells[alive[cloth.cell_threads].all(axis=1)][mixed].T
    assert ((signed(pos, np.stack([a, b, c], 1)) < 0.0) != (signed(pos, np.stack([b, d, c], 1)) < 0.0)).all()


def test_query_point_finds_cloth_only_where_it_is_drawn() -> None:
    sim = sheet(cols=10, rows=6)
    _, cloth = sim.body("sheet")
    middle = cloth.cells[2 * 9 + 4]  # a cell in the middle of the sheet
    centre = sim.stores.particles.pos[middle].mean(axis=0)
    assert [entity for entity, _ in sim.physics.query_point(tuple(centre))] == [sim.physics.find("sheet")]
    sim.stores.distances.alive[cloth.cell_threads[2 * 9 + 4, 0]] = False  # its top side cut (and the
    # bottom of the cell above): the triangles of the two cells are not drawn, so nothing is there
    assert sim.physics.query_point(tuple(centre)) == []
