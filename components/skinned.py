"""The components of a skinned character: its skeleton and mesh, and what drives its bones.

An entity made from a ``[[skeleton]]`` table has a ``Skinned`` component,
and either a ``Ragdoll`` (its bones follow particles) or a ``Clip`` (its
bones follow keyframes). Model space is world space: bind frames and mesh
vertices are where the level put them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from weft.components.skeleton import Bones
from weft.components.skin import SkinnedMesh


class Skinning(StrEnum):
    """How a mesh follows its bones.

    ``LINEAR``: linear blend skinning, the weighted average of the bones'
    matrices (the reference; a joint bent by θ shrinks to ``cos(θ/2)`` of its
    width). ``DUAL_QUATERNION``: the weighted blend of the bones' rigid
    motions (Kavan et al. 2008), rigid at every vertex, so joints keep their
    width (see ``weft.systems.kernels.dual_quaternions``).
    """

    LINEAR = "linear"
    DUAL_QUATERNION = "dual_quaternion"


DEFAULT_SKINNING = Skinning.DUAL_QUATERNION
"""What a skeleton that does not say uses: joints that keep their width, and the fewest folds."""


@dataclass
class SkinLook:
    """How a skin is drawn: a texture (absolute path, or None for a flat colour), tinted by ``color``."""

    texture: str | None
    color: tuple[int, int, int, int] = (255, 255, 255, 255)
    outline: tuple[int, int, int, int] = (40, 30, 36, 255)
    folder: str | None = None
    """The level's folder, which ``texture`` must still lie in when it is drawn (None: no such rule)."""


@dataclass
class Skinned:
    """A skeleton and the mesh it moves.

    ``heads`` and ``tails`` are each bone's joints (indices into the
    level's joint list, bones in the skeleton's order). ``probes`` are the
    vertices whose rigid positions (one per bone they follow) the debug
    view marks, as in the textbook figure of an elbow. ``method`` is how
    the mesh follows the bones.
    """

    name: str
    skeleton: Bones
    mesh: SkinnedMesh
    look: SkinLook
    heads: npt.NDArray[np.int64]
    tails: npt.NDArray[np.int64]
    probes: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    method: Skinning = DEFAULT_SKINNING

    @property
    def joint_count(self) -> int:
        """Joints the bones run between."""
        return int(max(self.heads.max(), self.tails.max())) + 1


@dataclass
class Ragdoll:
    """A Verlet ragdoll (Jakobsen): one particle per joint, a distance constraint per bone.

    ``heads`` and ``tails`` are each bone's two particles (rows of the
    particle store); joint ``j`` is the particle triple ``(a[j], b[j], c[j])``
    whose angle at ``b`` stays in ``[low[j], high[j]]`` radians (see
    ``weft.systems.kernels.joint_limits``).
    """

    particles: range
    constraints: range
    heads: npt.NDArray[np.int64]
    tails: npt.NDArray[np.int64]
    a: npt.NDArray[np.int64]
    b: npt.NDArray[np.int64]
    c: npt.NDArray[np.int64]
    low: npt.NDArray[np.float64]
    high: npt.NDArray[np.float64]


@dataclass
class Clip:
    """Keyframed bone angles, looping: ``angles[k]`` (radians, per bone, 0 = bind pose) at ``times[k]`` s.

    ``smooth`` eases through the keys (Catmull-Rom); otherwise they are
    joined by straight lines.
    """

    times: npt.NDArray[np.float64]
    angles: npt.NDArray[np.float64]
    duration: float
    smooth: bool = True
