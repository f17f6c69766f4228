"""The finiteness guard: after each system, whether the stores still hold only finite numbers.

A NaN spreads through a whole level within a frame, so finding it in the
end state says nothing about where it came from. With ``WEFT_CHECK_FINITE=1``
(debug and CI runs; it costs a pass over the stores per system) the schedule
checks after every system and raises ``NonFinite`` naming the first one that
left a NaN or an infinity behind, and where.
"""

from __future__ import annotations

import os

import numpy as np

from weft.systems import world

ENABLED = os.environ.get("WEFT_CHECK_FINITE", "") not in ("", "0")
"""Read once at import: the check is off in normal play."""


class NonFinite(ArithmeticError):
    """A system produced a NaN or an infinity in the stores."""


def check_finite(system: str, frame: int) -> None:
    """Raise ``NonFinite`` if any particle position or box pose, velocity or spin is not finite."""
    found = first_non_finite()
    if found is not None:
        what, row = found
        raise NonFinite(f"frame {frame}: system {system!r} left a non-finite value in {what} (row {row})")


def first_non_finite() -> tuple[str, int] | None:
    """The first store array of the active world holding a NaN or an infinity, and its row, or None."""
    stores = world.stores()
    particles, rigid = stores.particles, stores.rigid
    arrays = {
        "particle positions": particles.pos[: particles.count],
        "particle previous positions": particles.prev[: particles.count],
        "box positions": rigid.pos[: rigid.count],
        "box angles": rigid.angle[: rigid.count],
        "box velocities": rigid.vel[: rigid.count],
        "box spins": rigid.omega[: rigid.count],
    }
    for what, values in arrays.items():
        bad = ~np.isfinite(values)
        if bad.any():
            return what, int(np.argwhere(bad)[0][0])
    return None
