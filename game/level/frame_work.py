"""A frame's work: the passes over threads, particles and boxes a level asks of every 1/60 s frame.

The count budgets (``PARTICLES``, ``CONSTRAINTS``, ``BOXES``) bound memory;
iterations and substeps multiply the time each costs, so the passes a frame
makes are budgeted too (``THREAD_PASSES``, ``PARTICLE_PASSES``,
``BOX_PASSES``): 250000 threads at the schema's 200 iterations and 16
substeps would take 3.6 s a frame. Counted with the iterations and substeps
the level will run at (its automatic ones resolved as the world resolves
them), and with every circle the pour tool may add.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from weft.budgets import BOX_PASSES, PARTICLE_PASSES, RADIUS_SPREAD, THREAD_PASSES
from weft.game.level.build import level_bodies, world_settings
from weft.game.level.problems import KeyPath, Problem, find_line, origin_of
from weft.game.level.schema import Level, box_count, cloth_threads
from weft.systems.softbody import LEGS


@dataclass(frozen=True)
class FrameWork:
    """What a level's frame passes over, and how many times."""

    threads: int
    particles: int
    """Cloth points, circles (as many as ``max_circles`` when the pour tool may add them), creature
    and skeleton joints."""
    passes: int
    """Relaxation passes a frame: iterations × substeps."""
    box_passes: int
    """Solver passes over boxes a frame: each set's boxes × rigid substeps × its iterations."""

    @property
    def thread_passes(self) -> int:
        return self.threads * self.passes

    @property
    def particle_passes(self) -> int:
        return self.particles * self.passes


def frame_work(model: Level) -> FrameWork:
    """The work a frame of ``model`` does, as the budgets count it."""
    pour = "pour" in model.tools.available
    settings = world_settings(model.world, level_bodies(model), pour)
    circles = sum(len(balls.positions) or balls.count for balls in model.balls)
    if pour:
        circles = max(circles, model.world.max_circles)
    particles = circles + sum(cloth.cols * cloth.rows for cloth in model.cloth)
    particles += sum(creature.points + 2 * len(LEGS) for creature in model.creature)
    particles += sum(len(body.joints) for body in model.skeleton)
    rigid = model.world.rigid
    box_passes = sum(
        box_count(boxes) * rigid.substeps * (boxes.iterations or rigid.iterations) for boxes in model.boxes
    )
    return FrameWork(
        threads=sum(cloth_threads(cloth) for cloth in model.cloth),
        particles=particles,
        passes=settings.iterations * settings.resolved_substeps(),
        box_passes=box_passes,
    )


def grid_radii(model: Level) -> list[tuple[KeyPath, float, bool]]:
    """``(key, radius, small)`` for each radius the particle grid bins: ``small`` for circles and
    creature beads (what other particles pair with), not for cloth points or ragdoll joints alone.
    Empty when the level has neither circles nor creatures (the grid is never built)."""
    found: list[tuple[KeyPath, float, bool]] = []
    for k, balls in enumerate(model.balls):
        found.append((("balls", k, "radius"), balls.radius[0], True))
        found.append((("balls", k, "radius"), balls.radius[1], True))
    if "pour" in model.tools.available:
        found.append((("tools", "sizes"), model.tools.sizes[0], True))
        found.append((("tools", "sizes"), model.tools.sizes[1], True))
    for k, creature in enumerate(model.creature):
        bead = creature.radius * math.sin(math.pi / creature.points)
        found.append((("creature", k, "radius"), bead, True))
    if not found:
        return []
    for k, cloth in enumerate(model.cloth):
        if cloth.thickness > 0.0:
            found.append((("cloth", k, "thickness"), cloth.thickness / 2.0, False))
    for k, body in enumerate(model.skeleton):
        if body.drive != "ragdoll":
            continue
        for n, joint in enumerate(body.joints):
            radius = body.joint_radius if joint.radius is None else joint.radius
            at: KeyPath = (
                ("skeleton", k, "joints", n) if joint.radius is not None else ("skeleton", k, "joint_radius")
            )
            if radius > 0.0:
                found.append((at, radius, False))
    return found


def spread_problem(model: Level) -> tuple[KeyPath, str] | None:
    """The largest radius the grid bins, when it is more than ``RADIUS_SPREAD`` times the smallest
    circle's: the grid's cells are as wide as the largest, and small circles crowd them."""
    radii = grid_radii(model)
    if not radii:
        return None
    small_key, smallest, _ = min((entry for entry in radii if entry[2]), key=lambda entry: entry[1])
    big_key, largest, _ = max(radii, key=lambda entry: entry[1])
    if largest <= RADIUS_SPREAD * smallest:
        return None
    where = ".".join(str(part) for part in small_key)
    return big_key, (
        f"expected radii at most {RADIUS_SPREAD:g} times the smallest circle's ({smallest:g} px, {where}): "
        f"at most {RADIUS_SPREAD * smallest:g} px, got {largest:g} px"
    )


def frame_work_problems(
    model: Level, label: str, text: str | None = None, overridden: dict[KeyPath, str] | None = None
) -> list[Problem]:
    """A problem for each pass budget the level's frame goes past, at the key that sets its passes,
    and one for radii too far apart for one grid."""
    work = frame_work(model)
    found: list[tuple[KeyPath, str]] = []
    passes = f"{work.passes} passes (iterations × substeps)"
    if work.thread_passes > THREAD_PASSES:
        found.append(
            (
                ("world", "iterations"),
                f"expected at most {THREAD_PASSES} thread projections a frame, got {work.threads} threads "
                f"× {passes} = {work.thread_passes}: fewer iterations, substeps or threads",
            )
        )
    if work.particle_passes > PARTICLE_PASSES:
        found.append(
            (
                ("world", "iterations"),
                f"expected at most {PARTICLE_PASSES} particle passes a frame, got {work.particles} particles "
                f"× {passes} = {work.particle_passes}: fewer iterations, substeps or particles",
            )
        )
    if work.box_passes > BOX_PASSES:
        found.append(
            (
                ("world", "rigid", "iterations"),
                f"expected at most {BOX_PASSES} box passes a frame (boxes × rigid substeps × iterations), "
                f"got {work.box_passes}: fewer rigid substeps, iterations or boxes",
            )
        )
    spread = spread_problem(model)
    if spread is not None:
        found.append(spread)
    problems = []
    for path, message in found:
        note = origin_of(path, overridden)
        line = None if note or text is None else find_line(text, path)
        problems.append(Problem(label, path, message, line, note))
    return problems
