"""What the input tools leave in the world for the systems to act on."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

NOTHING = -1


@dataclass
class Grab:
    """The mouse holding a particle (a pin whose anchor follows the cursor) or a box (a soft spring).

    The tool sets ``target`` (the cursor, px), ``pressed_at`` and ``held``;
    on the first frame the grab system takes the box under the press point,
    else the particle nearest to it within ``reach`` px (so a press and a
    drag that arrive in one frame still take what was clicked), and keeps
    it until release. A particle follows the cursor at ``speed`` px/s at
    most (a cursor that jumps, or events a few frames apart, never fling it:
    let go, it carries that speed at most), kept ``offset`` px from it (a
    creature taken by a foot is held by the hip, where it was). A box is held
    at ``anchor`` (px in the box's own frame) by a spring of ``hertz`` and
    ``damping_ratio`` that pulls with at most ``max_accel`` px/s² times the
    box's mass (the box step keeps the spring's impulse while the same box
    is held).
    """

    target: tuple[float, float] = (0.0, 0.0)
    pressed_at: tuple[float, float] = (0.0, 0.0)
    held: bool = False
    reach: float = 40.0
    speed: float = 3000.0
    particle: int = NOTHING
    offset: tuple[float, float] = (0.0, 0.0)
    box: int = NOTHING
    anchor: tuple[float, float] = (0.0, 0.0)
    hertz: float = 5.0
    damping_ratio: float = 0.7
    max_accel: float = 20000.0


@dataclass
class CutStroke:
    """The blade: segments ``(x0, y0, x1, y1)`` the cursor swept since the last frame, and what the
    cut system keeps of the stroke they continue.

    A segment that starts where the last one ended continues the stroke: it
    is swept against the cloth as it moved since then (``then``, the
    particles' positions when the last segment was cut), so a stroke cuts
    the same threads however far apart its events come. ``end`` (the button
    let go) starts the next segment afresh.
    """

    segments: list[tuple[float, float, float, float]] = field(default_factory=list)
    then: np.ndarray | None = None
    """``(N, 2)`` particle positions when the blade reached ``tip``, or None between strokes."""
    tip: tuple[float, float] | None = None
    """Where the last segment ended, px."""
    idle: int = 0
    """Frames since the blade last moved."""

    def end(self) -> None:
        """The stroke is over: the next segment begins a new one."""
        self.then = None
        self.tip = None
        self.idle = 0


@dataclass
class ForceField:
    """A radial force around the cursor while a button is held: ``force`` > 0 pushes out, < 0 pulls in.

    ``force`` is per unit mass at the centre, px/s², falling to nothing at ``reach`` px; a box
    takes it times its width across the push over a 5 px circle's diameter (``kick_boxes``).
    """

    active: bool = False
    center: tuple[float, float] = (0.0, 0.0)
    reach: float = 150.0
    force: float = 0.0


@dataclass
class Blasts:
    """Explosions asked for since the last frame: ``(x, y, reach px, impulse px/s at the centre)``, the
    impulse for a unit mass (a box's scaled by its width, as for a ``ForceField``)."""

    pending: list[tuple[float, float, float, float]] = field(default_factory=list)


@dataclass
class Pour:
    """A stream of new circles from the cursor while held.

    ``rate`` circles per frame (fractions carry over in ``owed``), radii
    uniform in ``sizes``; ``rng`` is seeded from the level, so the same
    input pours the same circles.
    """

    held: bool = False
    at: tuple[float, float] = (0.0, 0.0)
    rate: float = 4.0
    sizes: tuple[float, float] = (4.0, 8.0)
    owed: float = 0.0
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))


@dataclass
class Shake:
    """While ``held``, the walls swing side to side: ``amplitude`` px at ``frequency`` Hz."""

    held: bool = False
    amplitude: float = 20.0
    frequency: float = 5.0
    phase: float = 0.0
    """Seconds the walls have been shaking: they start and stop at rest."""


@dataclass
class Press:
    """A finger pressed into soft bodies: a kinematic disc of radius ``reach`` px whose tip the cursor leads.

    The tool sets ``center`` (the cursor: where the finger's tip goes) and ``active``. The disc
    lies above its tip; when it comes down, the pressure system lands it above the skin, then each
    frame moves it (``at``: its centre, px) towards ``center`` at a bounded speed, in even steps
    over the substeps. Let go, it rises back up (``lifting``) until it touches nothing; ``at`` is
    None while no finger is down.
    """

    active: bool = False
    center: tuple[float, float] = (0.0, 0.0)
    reach: float = 100.0
    at: tuple[float, float] | None = None
    lifting: bool = False
