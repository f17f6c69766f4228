"""The budgets of untrusted input: how big a level, map, texture or script may be, and why.

Levels, Tiled maps, textures and input scripts are shared, so they come from
strangers. Every limit that keeps such a file from hanging the reader,
exhausting memory or stalling the window lives here, once; the schema, the
loader, the drawing code and ``docs/levels.md`` read these names. Each number
is sized so that the largest level within every budget runs within 4 GB and at
10 frames a second or more on a 2-core machine without a GPU; the figures
measured on ``tests/support/largest.py``'s level, and the shapes of it that
still fall short, are in ``docs/levels.md``.
"""

from __future__ import annotations

LEVEL_FILE_BYTES = 16_000_000
"""Largest level file (TOML) or Tiled map: 50000 circle positions take about 1 MB of TOML."""

EXTERNAL_FILE_BYTES = 4_000_000
"""Largest tileset or template file a map names: far above any real one, far below harm."""

TEXTURE_FILE_BYTES = 64_000_000
"""Largest image file a level names: an uncompressed 4096² RGBA PNG is 64 MiB."""

TEXTURE_SIDE = 4096
"""Widest and tallest texture, px: every GL 3.3 driver takes it (llvmpipe takes 16384)."""

TEXTURE_PIXELS = 4 * 4096 * 4096
"""Pixels of all the level's textures together: each decodes to 4 bytes a pixel and its mipmaps
to a third more, and a skin's alpha to 8 bytes more (about 1 GB for four 4096² skins at once)."""

SCRIPT_FILE_BYTES = 32_000_000
"""Largest input script: a recording of an hour of dragging (216000 events) is about 20 MB."""

SCRIPT_EVENTS = 250_000
"""Most events a script may hold: above an hour of 60 Hz dragging; 250000 drag events are read
and checked in about 4 s and 700 MB here (a million took 2.4 GB)."""

NESTING = 64
"""Deepest nesting of tables and lists in any input (TOML, JSON, ``--set``, Tiled groups and
class properties): real files nest 5 or 6 deep (a Tiled group layer adds 2), and the readers
recurse once per level, 1000 levels being Python's limit."""

PARTICLES = 60_000
"""Particles of all bodies together (cloth points, circles, creatures' and skeletons' joints):
50000 circles (the most ``max_circles`` allows) plus a cloth of 100 × 100."""

CONSTRAINTS = 250_000
"""Distance constraints of all cloth together (structural, shear and bend threads): a 200 × 200
sheet with shear and bend holds 238000."""

BOXES = 6_000
"""Rigid boxes of all sets together: Box2D's large pyramid (5050) and some. The solver's time a box
grows with their number once its contacts leave the caches: a 199-layer pyramid (19900 boxes) took
107 ms a frame, a 141-layer one (10011) 35 ms, the 100-layer one 14 ms (a busy machine)."""

BOX_OVERLAPS = 2_000
"""Pairs of boxes overlapping where the level puts them (deeper than a hundredth of a pixel; two fixed
boxes never count): boxes placed inside each other push apart over their first frames, each pair a
contact the solver works on meanwhile, and copies of a set at one place make pairs as the square of
the copies. Piles of pyramid.toml's 55-box pyramid took 6 ms a frame while pushing apart for 9 copies
(1980 pairs), 21 ms for 20 (10450), 0.8 s for 100 (272250). Layouts laid edge to edge touch, and
touching is not overlapping: the shipped levels hold 3 pairs (cards.toml's leaning cards)."""

SKIN_VERTICES = 40_000
"""Mesh vertices of all skins together (a 128 × 128 grid is 16641)."""


THREAD_PASSES = 5_000_000
"""Thread projections a frame: threads × iterations × substeps. A 200 × 200 sheet with shear and
bend (238000 threads) at the default 20 iterations and 1 substep; at about 4.5 ns each, 23 ms.
(The schema's 200 iterations × 16 substeps would take ``CONSTRAINTS`` threads 3.6 s.)"""

PARTICLE_PASSES = 600_000
"""Particle passes a frame: particles (with every circle the pour tool may add) × iterations ×
substeps, each pass a wall test and, for circles, their contacts. 50000 circles (the most
``max_circles`` allows) at the circles' default 2 iterations × 6 substeps; 28 ms for 50000 packed
circles of 0.5 px. A default cloth (20 iterations) among circles (6 substeps) makes 120 passes, so
5000 particles."""

BOX_PASSES = 24_000
"""Box solver passes a frame: each set's boxes × solver substeps × its iterations (the solver runs at
least one substep a particle substep: 6 among circles). The large pyramid (5050 boxes at 4 × 1)
makes 20200; 5886 boxes at 6 × 1 under a falling sheet took 56 ms a frame (busy machine)."""


GRID_WORK = 500_000
"""Particle grid tests a frame: the particles it bins (circles, with every one the pour tool may add,
creature beads, cloth points with a thickness, ragdoll joints) × substeps × (largest radius over the
smallest circle's)². The grid's cells are as wide as the largest reach, so circles much smaller than
the largest particle crowd each cell, and each circle is tested against the others in nine: 50000
circles of 0.5 px beside joints of 2 px, binned twice a frame (1.6 million), took 145 ms. 50000
circles of one size at the default 6 substeps make 300000, creatures.toml (which may pour 6000 circles
of 6 px beside beads of 20 px) 403000."""

SWEEP_TESTS = 400_000
"""Pair tests a frame of the sweep that stops fast circles at their first touch: each circle that moved
more than its radius in a substep is tested against the particles near its path, at 22 ns a test here
for circles laid out in index order and 85 ns for a stirred heap, so this is 9 to 34 ms a frame.
50000 circles of 0.75 px at 2 substeps nearly all move that far: unbounded, the sweep tested 5.3
million pairs a frame (9.2 million at most), 80 ms of a 148 ms frame; within the budget, 8 to 12 ms.
Five blasts in balls.toml (6000 circles) test at most 9300 a frame. The fast circles past the budget
(in index order) move one radius along their step that substep, so none passes through another."""


def too_big(count: int, budget: int, what: str) -> str | None:
    """The message for ``count`` of ``what`` over ``budget``, or None within it."""
    if count <= budget:
        return None
    return f"expected at most {budget} {what} in the whole level, got {count}"
