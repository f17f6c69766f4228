"""Cloth sheets drawn as textured triangle meshes, one draw call per sheet.

Each sheet keeps three vertex buffers and an index buffer on the GPU:

- positions, written from the particle store every frame;
- texture coordinates, written once (they are the sheet's rest layout);
- a shade per point, from a fake normal (below), written every frame;
- the indices of the triangles of the cells whose four sides are alive, each
  cell split along the diagonal that keeps its halves facing the same way
  (``systems.cloth_cells.woven_triangles``), rewritten when that changes, so
  the picture tears exactly where the threads did.

Cells seen edge-on (folded flat, or lying on the floor: their triangles have no area) are
drawn as their edges, strokes as thick as the cloth (2 px at least) in the look's mean colour,
shaded as the back of the cloth: a flat sheet seen from its edge.

Fake normal: the simulation is flat, so a fold shows up as a point whose
neighbours on either side come closer than twice the spacing; that ratio
is ``cos θ`` of the fold, and the point is drawn that bright
(``kernels/fold_shade.py`` derives it). Triangles whose winding flipped
show the back of the cloth and are darkened in the fragment shader
(``gl_FrontFacing``), which costs nothing on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from arcade.gl import BufferDescription

from weft.components import ClothLook, DistanceStore, Sheet
from weft.systems import world
from weft.systems.cloth_cells import woven_triangles
from weft.systems.draw.options import DrawOptions
from weft.systems.draw.strokes import SEGMENT_FIELDS, StrokeBatch, segments
from weft.systems.draw.textures import ClothTextures
from weft.systems.kernels.cells import same_triangles
from weft.systems.kernels.fold_shade import fold_shades
from weft.systems.schedule import Step, System

if TYPE_CHECKING:
    from arcade.gl import Buffer, Context, Geometry, Texture2D

BACK_SHADE = 0.8
"""Brightness of the back of the cloth (triangles folded over), as a factor."""

DARKEST_FOLD = 0.45
"""Floor of the fold shading, so a crumpled sheet never turns black."""

DEBUG_DIM = 0.35
"""Brightness of the sheet in the debug view, so the strain colours stand out."""

EDGE_ON = 0.1
"""Share of its area at rest below which a cell is seen edge-on: its sides are drawn as strokes
as thick as the cloth, so a piece lying flat on the floor (every point on one line, every
triangle of no area) still shows."""

MIN_EDGE_PX = 2.0
"""Screen px at least of half an edge-on stroke's width, whatever the zoom and the thickness."""

VERTEX_SHADER = """
#version 330
uniform WindowBlock {
    mat4 projection;
    mat4 view;
} window;

// tiling: pattern coordinates = uv * uv_scale + uv_offset
uniform vec2 uv_scale;
uniform vec2 uv_offset;

in vec2 in_pos;
in vec2 in_uv;
in float in_shade;

out vec2 v_uv;
out float v_shade;

void main() {
    gl_Position = window.projection * window.view * vec4(in_pos, 0.0, 1.0);
    v_uv = in_uv * uv_scale + uv_offset;
    v_shade = in_shade;
}
"""

FRAGMENT_SHADER = """
#version 330
uniform sampler2D pattern;
// GL calls counter-clockwise triangles front-facing; the sheet's own winding at rest may be either
uniform bool rest_is_ccw;
uniform float back_shade;
uniform float brightness;

in vec2 v_uv;
in float v_shade;

out vec4 f_color;

void main() {
    vec4 color = texture(pattern, v_uv);
    float shade = v_shade * brightness;
    if (gl_FrontFacing != rest_is_ccw) {
        shade *= back_shade;
    }
    f_color = vec4(color.rgb * shade, color.a);
}
"""


@dataclass
class _Sheet:
    """The GPU side of one sheet, and what was last uploaded to it."""

    positions: Buffer
    shades: Buffer
    indices: Buffer
    geometry: Geometry
    cells: npt.NDArray[np.int64]
    """``(C, 4)`` corner indices local to the sheet (the vertex buffers hold only its points)."""
    across: npt.NDArray[np.int64]
    """``(rows, cols - 1)`` thread index of each horizontal structural thread."""
    down: npt.NDArray[np.int64]
    """``(rows - 1, cols)`` thread index of each vertical structural thread."""
    rest_is_ccw: bool
    alive_threads: int = -1
    drawn: npt.NDArray[np.int64] | None = None
    """The triangles last written to the index buffer, two per cell."""
    cell_areas: npt.NDArray[np.float64] | None = None
    """Twice the area of each cell drawn, now."""
    index_count: int = 0
    across_alive: npt.NDArray[np.bool_] | None = None
    down_alive: npt.NDArray[np.bool_] | None = None
    look: ClothLook | None = None
    texture: Texture2D | None = None
    uv_scale: tuple[float, float] = (1.0, 1.0)
    uv_offset: tuple[float, float] = (0.0, 0.0)


class ClothMeshSystem(System):
    """Draws every ``Sheet`` entity (by entity id) as one textured mesh.

    Constructed with the GL context and the shared ``DrawOptions``; GPU objects
    are cached per entity for as long as ``options.world`` stays the same.
    """

    name = "cloth_mesh"

    def __init__(self, ctx: Context, options: DrawOptions, textures: ClothTextures | None = None) -> None:
        self.ctx = ctx
        self.options = options
        self.textures = textures or ClothTextures(ctx)
        self._program = ctx.program(vertex_shader=VERTEX_SHADER, fragment_shader=FRAGMENT_SHADER)
        self._program["pattern"] = 0
        self._program["back_shade"] = BACK_SHADE
        self._sheets: dict[int, _Sheet] = {}
        self._world: object = None
        self._edges = StrokeBatch(ctx)

    def process(self, step: Step) -> None:
        if self.options.world != self._world:
            # a rebuilt world reuses entity ids for other bodies: start afresh
            self._sheets.clear()
            self._world = self.options.world
        stores = world.stores()
        pos = stores.particles.pos
        distances = stores.distances
        ctx = self.ctx
        ctx.enable(ctx.BLEND)
        ctx.disable(ctx.CULL_FACE)  # both faces are drawn: a sheet folds over itself
        program = self._program
        program["brightness"] = DEBUG_DIM if self.options.debug else 1.0
        cloths = world.by_entity(Sheet)
        edges = [np.zeros((0, SEGMENT_FIELDS), np.float32)]
        if len(self._sheets) > len(cloths):  # a sheet was removed: let its buffers go
            present = {entity for entity, _ in cloths}
            self._sheets = {entity: sheet for entity, sheet in self._sheets.items() if entity in present}
        for entity, cloth in cloths:
            if entity in self.options.hidden:
                continue
            sheet = self._sheets.get(entity)
            if sheet is None:
                sheet = self._sheets[entity] = self._new_sheet(cloth, distances)
            points = pos[cloth.particles.start : cloth.particles.stop]
            sheet.positions.write(points.astype("f4"))
            self._update_triangles(sheet, cloth, points, distances)
            shade = fold_shade(points, cloth, sheet.across_alive, sheet.down_alive, self.options.shading)
            sheet.shades.write(shade)
            self._update_look(sheet, cloth)
            if sheet.index_count == 0:
                continue
            program["uv_scale"] = sheet.uv_scale
            program["uv_offset"] = sheet.uv_offset
            program["rest_is_ccw"] = sheet.rest_is_ccw
            sheet.texture.use(0)
            sheet.geometry.render(program, vertices=sheet.index_count)
            edges.append(self._edge_on(sheet, cloth, stores.particles.radius))
        self._edges.draw(np.concatenate(edges))

    def _new_sheet(self, cloth: Sheet, distances: DistanceStore) -> _Sheet:
        ctx = self.ctx
        n = len(cloth.particles)
        positions = ctx.buffer(reserve=n * 2 * 4, usage="stream")
        shades = ctx.buffer(reserve=n * 4, usage="stream")
        uv = ctx.buffer(data=cloth.uv.astype("f4"))
        cells = cloth.cells - cloth.particles.start
        indices = ctx.buffer(
            reserve=max(len(cells) * 2 * 3 * 4, 4), usage="dynamic"
        )  # two uint32 triangles a cell
        geometry = ctx.geometry(
            [
                BufferDescription(positions, "2f", ["in_pos"]),
                BufferDescription(uv, "2f", ["in_uv"]),
                BufferDescription(shades, "1f", ["in_shade"]),
            ],
            index_buffer=indices,
            index_element_size=4,
            mode=ctx.TRIANGLES,
        )
        across, down = _thread_grid(cloth, distances)
        rest = cloth.rest_pos[cells[0, [0, 1, 3]]] if len(cells) else np.zeros((3, 2))
        (ax, ay), (bx, by) = rest[1] - rest[0], rest[2] - rest[0]
        signed_area = ax * by - ay * bx
        return _Sheet(
            positions=positions,
            shades=shades,
            indices=indices,
            geometry=geometry,
            cells=cells,
            across=across,
            down=down,
            rest_is_ccw=bool(signed_area > 0.0),
        )

    def _update_triangles(
        self, sheet: _Sheet, cloth: Sheet, points: npt.NDArray[np.float64], distances: DistanceStore
    ) -> None:
        """Rewrite the index buffer when the cells drawn, or the diagonals they are split along, changed."""
        alive = distances.alive
        count = int(np.count_nonzero(alive[cloth.structural.start : cloth.structural.stop]))
        if count != sheet.alive_threads:
            sheet.alive_threads = count
            sheet.across_alive = alive[sheet.across]
            sheet.down_alive = alive[sheet.down]
        triangles, sheet.cell_areas = woven_triangles(points, sheet.cells, cloth.cell_threads, alive)
        if sheet.drawn is not None and same_triangles(triangles, sheet.drawn):
            return
        sheet.drawn = triangles
        indices = triangles.astype(np.uint32)
        sheet.indices.write(indices)
        sheet.index_count = indices.size

    def _edge_on(
        self, sheet: _Sheet, cloth: Sheet, radius: npt.NDArray[np.float64]
    ) -> npt.NDArray[np.float32]:
        """Stroke rows for the edges of the drawn cells seen edge-on (``EDGE_ON``)."""
        triangles = sheet.drawn
        if triangles is None or len(triangles) == 0:
            return np.zeros((0, SEGMENT_FIELDS), np.float32)
        flat = sheet.cell_areas < EDGE_ON * 2.0 * cloth.spacing**2
        if not flat.any():
            return np.zeros((0, SEGMENT_FIELDS), np.float32)
        points = world.stores().particles.pos[cloth.particles.start : cloth.particles.stop]
        # every edge of the cell's two triangles: its four sides and the diagonal between them
        corners = np.concatenate([triangles[0::2][flat], triangles[1::2][flat]])
        ends = corners[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2)
        zoom = max(self.options.zoom, 1e-6)
        width = np.maximum(radius[cloth.particles.start + ends[:, 0]], MIN_EDGE_PX / zoom)
        r, g, b_, alpha = self.textures.mean_color(sheet.texture)
        shade = BACK_SHADE * (DEBUG_DIM if self.options.debug else 1.0)
        color = (r * shade, g * shade, b_ * shade, alpha)
        return segments(points[ends[:, 0]], points[ends[:, 1]], width, color)

    def _update_look(self, sheet: _Sheet, cloth: Sheet) -> None:
        """Pick up a new look (the panel replaces ``cloth.look``, or edits it in place)."""
        look = cloth.look
        if look == sheet.look:
            return
        sheet.look = replace(look)
        sheet.texture, repeats = self.textures.texture(look)
        if repeats:
            # one repeat per pattern_size px of the sheet at rest, counted from the top-left
            # corner (uv v is 1 on the top row) so the top edge starts on a whole repeat
            across = (cloth.cols - 1) * cloth.spacing / look.pattern_size
            down = (cloth.rows - 1) * cloth.spacing / look.pattern_size
            sheet.uv_scale = (across, down)
            sheet.uv_offset = (0.0, -down)
        else:
            sheet.uv_scale = (1.0, 1.0)
            sheet.uv_offset = (0.0, 0.0)


def _thread_grid(
    cloth: Sheet, distances: DistanceStore
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Thread indices laid out on the grid: ``(rows, cols - 1)`` across and ``(rows - 1, cols)`` down.

    Read from the threads' end points rather than assumed from the build
    order, so a different build order cannot silently shade the wrong points.
    """
    structural = np.arange(cloth.structural.start, cloth.structural.stop)
    first = cloth.particles.start
    on_grid = np.empty(cloth.grid.size, dtype=np.int64)  # each stored point's place, row-major
    on_grid[cloth.grid.ravel()] = np.arange(cloth.grid.size)
    i = on_grid[distances.i[structural].astype(np.int64) - first]
    j = on_grid[distances.j[structural].astype(np.int64) - first]
    low, high = np.minimum(i, j), np.maximum(i, j)
    across = np.zeros((cloth.rows, cloth.cols - 1), dtype=np.int64)
    down = np.zeros((cloth.rows - 1, cloth.cols), dtype=np.int64)
    horizontal = high - low == 1
    vertical = high - low == cloth.cols
    row, col = np.divmod(low[horizontal], cloth.cols)
    across[row, col] = structural[horizontal]
    row, col = np.divmod(low[vertical], cloth.cols)
    down[row, col] = structural[vertical]
    return across, down


def fold_shade(
    points: npt.NDArray[np.float64],
    cloth: Sheet,
    across_alive: npt.NDArray[np.bool_],
    down_alive: npt.NDArray[np.bool_],
    strength: float,
) -> npt.NDArray[np.float32]:
    """Brightness ``(N,)`` float32 of each point of a sheet (``points``, in the order they are stored:
    ``Sheet.grid``) from its fake normal (module docstring):
    ``cos θ`` across times ``cos θ`` down, blended with 1 by ``strength`` and floored at
    ``DARKEST_FOLD`` (``kernels.fold_shade``). Points at the border, or beside a torn thread, count
    as flat."""
    shade = np.empty(len(points), dtype=np.float32)
    fold_shades(points, cloth.grid, cloth.spacing, across_alive, down_alive, strength, DARKEST_FOLD, shade)
    return shade
