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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from weft.budgets import BOX_PASSES, GRID_WORK, PARTICLE_PASSES, THREAD_PASSES
from weft.game.level.build import level_bodies, world_settings
from weft.game.level.problems import KeyPath, Problem, find_line, origin_of, value_at
from weft.game.level.schema import Level, box_count, cloth_threads, field_at, number_range
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
    substeps: int
    box_passes: int
    """Solver passes over boxes a frame: each set's boxes × solver substeps × its iterations (at
    least one solver substep a particle substep)."""

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
    substeps = settings.resolved_substeps()
    # the rigid step runs ceil(rigid / particle substeps) solver substeps in each particle substep
    solver_substeps = substeps * math.ceil(rigid.substeps / substeps)
    box_passes = sum(
        box_count(boxes) * solver_substeps * (boxes.iterations or rigid.iterations) for boxes in model.boxes
    )
    return FrameWork(
        threads=sum(cloth_threads(cloth) for cloth in model.cloth),
        particles=particles,
        passes=settings.iterations * substeps,
        substeps=substeps,
        box_passes=box_passes,
    )


def grid_radii(model: Level) -> list[tuple[KeyPath, float, int, bool]]:
    """``(key, radius, particles, small)`` for each radius the particle grid bins: ``small`` for
    circles and creature beads (what the others pair with), not for cloth points or ragdoll joints.
    Empty when the level has neither circles nor creatures (the grid is never built)."""
    found: list[tuple[KeyPath, float, int, bool]] = []
    pour = "pour" in model.tools.available
    for k, balls in enumerate(model.balls):
        count = len(balls.positions) or balls.count
        found += [(("balls", k, "radius"), radius, count, True) for radius in balls.radius]
    if pour:
        found += [(("tools", "sizes"), radius, model.world.max_circles, True) for radius in model.tools.sizes]
    for k, creature in enumerate(model.creature):
        bead = creature.radius * math.sin(math.pi / creature.points)
        found.append((("creature", k, "radius"), bead, creature.points, True))
    if not found:
        return []
    for k, cloth in enumerate(model.cloth):
        if cloth.thickness > 0.0:
            found.append((("cloth", k, "thickness"), cloth.thickness / 2.0, cloth.cols * cloth.rows, False))
    for k, body in enumerate(model.skeleton):
        if body.drive != "ragdoll":
            continue
        for n, joint in enumerate(body.joints):
            radius = body.joint_radius if joint.radius is None else joint.radius
            at: KeyPath = ("skeleton", k, "joint_radius")
            if joint.radius is not None:
                at = ("skeleton", k, "joints", n, "radius")
            if radius > 0.0:
                found.append((at, radius, 1, False))
    return found


def grid_problem(model: Level, substeps: int) -> tuple[KeyPath, str] | None:
    """The problem when binning the particles ``substeps`` times a frame may cost more than
    ``GRID_WORK``: the grid's cells are as wide as the largest reach, so circles much smaller than
    the largest particle crowd every cell, and each is tested against every other in nine."""
    radii = grid_radii(model)
    if not radii:
        return None
    small_key, smallest = min(((key, r) for key, r, _, small in radii if small), key=lambda e: e[1])
    big_key, largest = max(((key, r) for key, r, _, _ in radii), key=lambda e: e[1])
    # a circle's key appears twice (both ends of its radius range): count its particles once
    particles = sum({key: count for key, _, count, _ in radii}.values())
    spread = max(1.0, largest / smallest)
    work = particles * substeps * spread * spread
    if work <= GRID_WORK:
        return None
    where = ".".join(str(part) for part in small_key)
    return big_key, (
        f"expected at most {GRID_WORK} grid tests a frame (particles × substeps × (largest radius / "
        f"smallest circle's)²), got {particles} × {substeps} × ({largest:g} / {smallest:g} px at {where})² "
        f"= {work:.0f}: fewer particles or substeps, or radii closer together"
    )


def frame_work_problems(
    model: Level, label: str, text: str | None = None, overridden: dict[KeyPath, str] | None = None
) -> list[Problem]:
    """A problem for each pass budget the level's frame goes past, at the key that sets its passes,
    and one for a grid too crowded (``grid_problem``)."""
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
                f"expected at most {BOX_PASSES} box passes a frame (boxes × solver substeps × iterations; "
                f"at least one solver substep a particle substep), got {work.box_passes}: fewer substeps, "
                "iterations or boxes",
            )
        )
    grid = grid_problem(model, work.substeps)
    if grid is not None:
        found.append(grid)
    problems = []
    for path, message in found:
        note = origin_of(path, overridden)
        line = None if note or text is None else find_line(text, path)
        problems.append(Problem(label, path, message, line, note))
    return problems


def frame_fits(model: Level) -> bool:
    """Whether ``model``'s frame stays within every budget of a frame's work."""
    return not frame_work_problems(model, "")


def most_within_budgets(model: Level, key: str, low: int, high: int) -> int:
    """The largest value in ``[low, high]`` of the ``[world]`` integer ``key`` (``iterations``,
    ``rigid.iterations``: dotted within the table) at which ``model``'s frame stays within the
    budgets, or ``low`` when none does: a slider's top for this level."""
    return most_fitting(model, ("world", *key.split(".")), low, high)


def most_fitting(model: Level, path: KeyPath, low: int, high: int) -> int:
    """The largest value in ``[low, high]`` of the integer at ``path`` (``("world", "iterations")``,
    ``("boxes", 2, "count")``) at which ``model``'s frame stays within the budgets, or ``low`` when
    none does. The work only grows with such a count (more passes, particles, threads or boxes), so
    a binary search finds it."""

    return largest_fitting(low, high, lambda value: frame_fits(replaced(model, path, value)))


def largest_fitting(low: int, high: int, fits: Callable[[int], bool]) -> int:
    """The largest value in ``[low, high]`` that ``fits``, or ``low`` when none does, for a test that
    holds up to some value and fails past it (a count's work only grows): a binary search."""
    if fits(high):
        return high
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def replaced(node: Any, path: KeyPath, value: Any) -> Any:
    """A copy of the model ``node`` with ``value`` at ``path`` (tables copied on the way, not validated:
    what the budgets read is plain fields)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(node)
        items[head] = replaced(items[head], rest, value)
        return items
    return node.model_copy(update={head: replaced(getattr(node, head), rest, value)})


BUDGET_REFUSAL = "in the whole level"
"""What the refusal of a count past its budget says (``weft.budgets.too_big``): the refusals clamping
down a count may mend."""


def clamp_into_budgets(raw: dict[str, Any], path: KeyPath, before: Any = None) -> list[str]:
    """Bring down, in place, the integer at ``path`` in level data ``raw`` (``world.iterations``, a
    set's ``count``...) to the most at which the level stays within its budgets: the counts over all
    tables (``PARTICLES``, ``BOXES``...) and a frame's work. One note when it changed
    (``"world.iterations: 200 clamped to 60, the most the level's budgets allow"``).

    ``before`` is the value the key had (valid then): the search goes no lower, since each count
    only adds work as it grows, and below it other rules may refuse (``max_circles`` below the
    level's circles). Nothing changes when the level is within its budgets, when ``path`` holds no
    integer, when something other than a budget refuses it (a sheet past the walls), or when no value
    fits: validation then says why. What a tool, slider or script sets at run time is clamped, never
    raised at: into the schema's range first (``clamp_into_schema``), then this, as the panel's
    sliders end where the budgets do."""
    if not path:
        return []
    parent, last = value_at(raw, path[:-1]), path[-1]
    given = value_at(raw, path)
    if not isinstance(given, int) or isinstance(given, bool):
        return []

    def verdict(value: int) -> str:
        """``"fits"``, ``"budget"`` (refused by a budget alone) or ``"refused"`` (by anything else)."""
        parent[last] = value
        try:
            model = Level.model_validate(raw)
        except ValidationError as error:
            budget = all(BUDGET_REFUSAL in detail["msg"] for detail in error.errors())
            return "budget" if budget else "refused"
        finally:
            parent[last] = given
        return "fits" if frame_fits(model) else "budget"

    if verdict(given) != "budget":
        return []
    if isinstance(before, int) and not isinstance(before, bool) and before < given:
        low = before
    else:
        try:
            bound, _ = number_range(field_at(".".join(str(part) for part in path)))
        except KeyError:
            return []
        low = math.ceil(bound) if math.isfinite(bound) else min(0, given)
    if low >= given or verdict(low) != "fits":
        return []
    low = largest_fitting(low, given - 1, lambda value: verdict(value) == "fits")
    parent[last] = low
    where = ".".join(str(part) for part in path)
    return [f"{where}: {given!r} clamped to {low!r}, the most the level's budgets allow"]
