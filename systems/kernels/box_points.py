"""A contact point's constants as the contact solver keeps them, by field, for the scalar lanes
(``box_contact_solver``) and the four-wide ones (``box_lanes``) alike."""

from __future__ import annotations

NX, NY, RNA, RNB, RTA, RTB, NORMAL_K, TANGENT_MASS, BASE, CROSS_K = range(10)
"""A point's constants for the call, by field: normal, the anchors on a and b (from their centres)
crossed with the normal and with the tangent ``t = (n.y, -n.x)``, the inverse of its effective mass
along the normal (``K``, 0 for no point) and its effective mass along the tangent, its gap less how
its anchors lay apart, and (first point only) the manifold's cross term ``K₀₁`` of the 2 × 2 block.
The solver needs the anchors only crossed, and so do the gaps (an anchor turned by ``(c, s)`` lies
``s (r × n) - c (r × t)`` along n)."""
FIELDS = 10


MAX_CONDITION = 1000.0
"""Largest condition number of a manifold's 2 × 2 effective mass solved as a block (Box2D v2.4's
bound): two points closer than that are solved one after the other."""
