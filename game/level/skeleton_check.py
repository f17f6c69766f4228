"""The check of a level that needs a build: each ``[[skeleton]]``'s skin is made aside, in stores of
its own, and what keeps it from being made becomes a problem at the key that caused it."""

from __future__ import annotations

import warnings

from weft.components import Stores
from weft.game.level.build import add_skeleton
from weft.game.level.loaded import LoadedLevel
from weft.game.level.problems import Problem, file_label
from weft.systems.skeletons import BoneError


def skeleton_problems(level: LoadedLevel) -> list[Problem]:
    """A problem for each ``[[skeleton]]`` whose skin cannot be made (built aside, in stores of its own)."""
    problems = []
    label = file_label(level.source)
    for k, table in enumerate(level.model.skeleton):
        try:
            skinned, _ = add_skeleton(Stores(), 0, table, level.directory)
        except BoneError as error:
            bone = [bone.name for bone in table.bones].index(error.bone)
            problems.append(Problem(label, ("skeleton", k, "bones", bone), str(error)))
            continue
        except ValueError as error:
            problems.append(Problem(label, ("skeleton", k, "skin"), str(error)))
            continue
        changed = skinned.mesh.normalised
        if len(changed):
            shown = ", ".join(str(int(v)) for v in changed[:5]) + (" ..." if len(changed) > 5 else "")
            warnings.warn(
                f"{label}: skeleton.{k}.skin.weights: rescaled to sum to 1 (normalize_weights) at "
                f"vertex {shown}",
                stacklevel=2,
            )
    return problems
