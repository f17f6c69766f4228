"""What every Weft body entity carries, whatever its kind."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Body:
    """Marks an entity as one of Weft's bodies: its ``kind`` (``"cloth"``, ``"balls"``, ``"boxes"``,
    ``"creature"`` or ``"skeleton"``: the level table such bodies come from), its ``name`` and the
    spec it was made from (a ``weft.Cloth``, ``weft.Balls``...; None for circles the pour tool made).

    Read it with esper: ``esper.component_for_entity(crate, weft.Body).spec.size``. The kind's own
    component (``Sheet``, ``BallSet``, ``BoxSet``, ``SoftBody``, ``Skinned``) says where the body's
    rows are in the stores.
    """

    kind: str
    name: str
    spec: object = None
