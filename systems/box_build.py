"""Building box sets: where the boxes of a stack or a pyramid go, and adding them to the store."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from weft.components import BoxSet, Stores
from weft.components.rigid import WORLD_ITERATIONS


def stack_centers(
    count: int, size: tuple[float, float], base: tuple[float, float], gap: float, offsets: list[float]
) -> npt.NDArray[np.float64]:
    """Centres of ``count`` boxes stacked up from ``base`` (the bottom box's bottom middle), ``gap`` px
    apart, each shifted sideways by ``offsets`` in turn."""
    height = size[1]
    rows = np.arange(count)
    shift = np.array([offsets[k % len(offsets)] for k in rows]) if offsets else np.zeros(count)
    return np.column_stack([base[0] + shift, base[1] + 0.5 * height + gap + rows * (height + gap)])


def pyramid_centers(
    layers: int, size: tuple[float, float], base: tuple[float, float], gap: float
) -> npt.NDArray[np.float64]:
    """Centres of a pyramid ``layers`` boxes wide at the bottom, one fewer on each layer up, centred on
    ``base`` (the bottom layer's bottom middle); boxes ``gap`` px apart across, layers touching."""
    width, height = size
    pitch = width + gap
    centers = []
    for layer in range(layers):
        across = layers - layer
        first = base[0] - 0.5 * (across - 1) * pitch
        for k in range(across):
            centers.append((first + k * pitch, base[1] + (layer + 0.5) * height))
    return np.array(centers, dtype=np.float64).reshape(-1, 2)


def build_boxes(
    stores: Stores,
    entity: int,
    name: str,
    centers: npt.NDArray[np.float64],
    angles: npt.NDArray[np.float64],
    sizes: npt.NDArray[np.float64],
    density: float,
    friction: float,
    fixed: bool,
    iterations: int | None,
    colors: tuple[tuple[int, int, int, int], ...],
    restitution: float,
    velocities: npt.NDArray[np.float64] | None = None,
    spins: npt.NDArray[np.float64] | None = None,
) -> BoxSet:
    """Add boxes at ``centers`` ``(n, 2)`` turned by ``angles`` ``(n,)`` radians, ``sizes`` ``(n, 2)``
    px, moving at ``velocities`` ``(n, 2)`` px/s and turning at ``spins`` ``(n,)`` rad/s (still when
    not given; fixed boxes never move)."""
    store = stores.rigid
    rows = store.add(
        centers, angles, 0.5 * sizes, density, friction, entity, fixed, solver_passes(iterations), restitution
    )
    if not fixed:
        if velocities is not None:
            store.vel[rows.start : rows.stop] = velocities
        if spins is not None:
            store.omega[rows.start : rows.stop] = spins
    return BoxSet(name=name, bodies=rows, colors=colors)


def solver_passes(iterations: int | None) -> int:
    """A box set's ``iterations`` as ``RigidStore.iterations`` keeps it: unset (None) is
    ``WORLD_ITERATIONS``, the world's count."""
    return WORLD_ITERATIONS if iterations is None else iterations
