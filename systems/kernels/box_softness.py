"""Soft constraints: a stiff, damped spring written as an impulse (Catto, "Soft Step", Box2D v3)."""

from __future__ import annotations

import math

import numba


@numba.njit(cache=True)
def softness(hertz: float, zeta: float, h: float) -> tuple[float, float, float]:
    """Bias rate, mass scale and impulse scale of a soft constraint (a spring of ``hertz`` and ``zeta``).

    With ``ω = 2π·hertz``: ``bias = ω / (2ζ + hω)``, ``mass = hω(2ζ + hω) / (1 + hω(2ζ + hω))``,
    ``impulse = 1 / (1 + hω(2ζ + hω))``: the implicit spring-damper step written as an impulse.
    """
    if hertz <= 0.0:
        return 0.0, 1.0, 0.0
    omega = 2.0 * math.pi * hertz
    a1 = 2.0 * zeta + h * omega
    a2 = h * omega * a1
    a3 = 1.0 / (1.0 + a2)
    return omega / a1, a2 * a3, a3
