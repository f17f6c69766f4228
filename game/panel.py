"""The tuning panel: arcade.gui controls that turn into ``set`` events.

A control never touches the world directly: it queues a ``set`` event with
the same key as ``--set``, so every change is validated like a level file,
applied at the start of the next frame, and recorded for replay. A slider
that sets a key as it is spans what the schema gives for that key
(``slider_span``); the few that set a key through a formula (gravity's
strength and tilt, compliance's exponent, the poured sizes) span values
whose keys a test holds inside the schema's ranges.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arcade.gui import UIBoxLayout, UIDropdown, UILabel, UIOnChangeEvent, UISlider, UIWidget

from weft.components import CORRECTIONS
from weft.game.level.frame_work import frame_fits, most_within_budgets
from weft.game.level.schema import COLOR_MODES, PATTERNS, slider_span
from weft.game.session import Session
from weft.game.tools import MAX_TILT_DEG, tilt_of

PANEL_WIDTH = 250
PANEL_MARGIN = 10
"""Window px between the panel and the window's top and right edges, and between it and the world."""
SNAP = 0.02
"""Share of a continuous slider's length within which a drag lands on the value the level started
with: its own numbers (gravity 980 px/s², no tilt) are then found again, not missed by a pixel.
Sliders of whole numbers (``Slider.step``) land on every value as it is."""
BACKGROUND = (18, 21, 30, 215)
TEXT = (225, 228, 235, 255)
MUTED = (150, 158, 175, 255)

FEWEST_PANEL_ITERATIONS = 4
"""The stiffness slider's lowest pass count, unless the level's own is lower (the hammock's 2, whose
loaded threads are meant to stretch until they tear). Threads tear by stretch, and a rigid thread's
stretch is what the passes leave unconverged: one pass lets a sheet's top rows stretch under its
own weight until they tear off the pins (70 threads of the default sheet in 10 s, 347 of the flag),
two still tear the flag (61). From three every shipped sheet holds its weight and its level's wind
(the flag the panel's strongest too); four leaves a pass to spare. With the wind slider at its end
as well (3000 px/s², 6.7 times its own) the default sheet tears below eight passes (70 threads at
four): the fewest passes and a gale together are a weak sheet in a gale, the player's choice.
Tearing by stretch stays: it is what makes a pull tear where the hand is, and ``compliance`` is the
stiffness that does not depend on the passes."""

COMPLIANCE_EXPONENT_MIN = -7.0
"""The compliance slider runs over 10^(s + this); its left end (s = 0) is exactly rigid."""

COMPLIANCE_SLIDER_TOP = 3.0
"""The compliance slider's right end, s for 10^-4, unless the level's own sheet is softer. A thread tears
by stretch, and a compliant thread's stretch is its load times its compliance: at 10^-3.5 the default
70 x 45 sheet's top threads tore off the pins under its own weight (53 threads in 10 s), at 10^-3.75
the flag in its own wind (31). At 10^-4 both hold for 10 s, the sheet stretched to the floor.
Together with the wind slider at its end too (3000 px/s², the default sheet's 450 x 6.7) the sheet
tears at 10^-4 and holds at 10^-4.5: a gale tearing the softest cloth is what the player asked for, one
control at its end alone tearing the level apart is not."""


@dataclass(frozen=True)
class Slider:
    """A numeric control: ``read`` gets its value from the level, ``write`` makes the events for a value,
    ``show`` says what a value means; ``explain``, a second line, what it means in this world now."""

    label: str
    low: float
    high: float
    read: Callable[[Session], float]
    write: Callable[[Session, float], list[tuple[str, Any]]]
    show: Callable[[float], str]
    step: float | None = None
    lowest: Callable[[Session], float] | None = None
    """The slider's low end for this level, when it is not ``low``."""
    highest: Callable[[Session, float, float], float] | None = None
    """The slider's high end for this level (given ``low_for`` and ``high``), when it is not ``high``."""
    explain: Callable[[float, Session], str] | None = None
    event: Callable[[float], dict[str, Any]] | None = None
    """The event a value makes, where it is not ``set`` events (``write`` then makes none)."""

    def low_for(self, session: Session) -> float:
        """Where the slider starts in ``session``'s level."""
        return self.low if self.lowest is None else self.lowest(session)

    def high_for(self, session: Session) -> float:
        """Where the slider ends in ``session``'s level."""
        if self.highest is None:
            return self.high
        return self.highest(session, self.low_for(session), self.high)


def poured_sizes(largest: float) -> list[float]:
    """The ``tools.sizes`` the pour-size slider writes for its ``largest`` radius."""
    return [round(POURED_SIZE_SPREAD * largest, 1), round(largest, 1)]


def poured_sizes_within_budgets(session: Session, low: float, high: float) -> tuple[float, float]:
    """The pour-size slider's ends for this level: the sizes at which the circles' grid stays within
    ``GRID_WORK`` beside the level's other bodies (tried every half pixel), or ``low, high`` if none."""
    model = session.sim.level.model
    steps = [low + 0.5 * k for k in range(int((high - low) / 0.5) + 1)]
    fitting = [
        v
        for v in steps
        if frame_fits(
            model.model_copy(update={"tools": model.tools.model_copy(update={"sizes": poured_sizes(v)})})
        )
    ]
    return (fitting[0], fitting[-1]) if fitting else (low, high)


def within_budgets(key: str) -> Callable[[Session, float, float], float]:
    """A slider's top for an integer ``[world]`` key (``iterations``, ``rigid.iterations``): the most the
    level's frame budgets allow."""
    return lambda s, low, high: most_within_budgets(s.sim.level.model, key, round(low), round(high))


REFERENCE_DROP = 300.0
"""px: the drop the restitution slider's text speaks of (a ball let go from about the middle of a window)."""


def rebound_share(restitution: float, damping: float, gravity: float, drop: float) -> float:
    """The share of its drop height a ball let go at rest rises back to after one bounce, with air drag.

    The walls give back ``restitution`` of the speed; ``damping`` keeps that share of the velocity
    each 1/60 s frame, a drag ``dv/dt = -k v`` with ``k = -60 ln(damping)``. Falling from rest,
    ``v = (g/k)(1 - e^(-kt))`` and ``y = (g/k) t - (g/k²)(1 - e^(-kt))`` (solved for the drop by
    Newton's method); rising from ``u``, the top is ``u/k - (g/k²) ln(1 + k u / g)``. Without drag
    it is ``restitution²``. Matches a dropped ball within 0.3 points (27.0 / 22.6 / 18.7% from
    100 / 300 / 600 px at 0.6 and 0.99; this gives 27.2 / 22.4 / 18.7%).
    """
    k = -60.0 * math.log(damping)
    if k < 1e-9 or gravity <= 0.0 or drop <= 0.0:
        return restitution * restitution
    t = math.sqrt(2.0 * drop / gravity)
    for _ in range(30):
        fallen = gravity / k * t - gravity / k**2 * (1.0 - math.exp(-k * t))
        t -= (fallen - drop) / (gravity / k * (1.0 - math.exp(-k * t)))
    u = restitution * gravity / k * (1.0 - math.exp(-k * t))
    return (u / k - gravity / k**2 * math.log1p(k * u / gravity)) / drop


def drop_rebound(value: float, session: Session) -> str:
    """What restitution ``value`` means: the share of the speed a wall gives back, and so how high a
    drop rises after the bounce in this world's air drag and gravity (not ``value²``: at the default
    damping, 0.99, "bounce to 36%" was really 19-27%)."""
    world = session.sim.level.model.world
    share = rebound_share(value, world.damping, math.hypot(*world.gravity), REFERENCE_DROP)
    return (
        f"{value:.0%} of its speed back off a wall\na {REFERENCE_DROP:.0f} px drop, in air, rises {share:.0%}"
    )


@dataclass(frozen=True)
class Choice:
    """A control with named options."""

    label: str
    options: tuple[str, ...]
    read: Callable[[Session], str]
    write: Callable[[Session, str], list[tuple[str, Any]]]


def each_cloth(key: str) -> Callable[[Session, Any], list[tuple[str, Any]]]:
    """A writer that sets ``cloth.K.<key>`` on every sheet of the level."""

    def write(session: Session, value: Any) -> list[tuple[str, Any]]:
        return [(f"cloth.{k}.{key}", value) for k in range(len(session.sim.level.model.cloth))]

    return write


def first_cloth(session: Session) -> Any:
    """The first sheet's table (the panel shows its values)."""
    return session.sim.level.model.cloth[0]


def compliance_from_slider(s: float) -> float:
    return 0.0 if s < 0.05 else 10.0 ** (COMPLIANCE_EXPONENT_MIN + s)


def slider_from_compliance(c: float) -> float:
    return 0.0 if c <= 0.0 else max(0.05, math.log10(c) - COMPLIANCE_EXPONENT_MIN)


def with_strength(gravity: list[float], strength: float, tilt_deg: float = 0.0) -> list[float]:
    """Gravity of ``strength`` px/s² the way ``gravity`` points (``tilt_deg`` from straight down when it
    is zero): the slider sets how strong it is, the tilt slider and tool which way (it set only the
    vertical part, and read 947 px/s² for 980 tilted 15°)."""
    pointing = tilt_of(gravity)
    angle = math.radians(tilt_deg if pointing is None else pointing)
    return [round(strength * math.sin(angle), 6), round(-strength * math.cos(angle), 6)]


def _world(session: Session) -> Any:
    return session.sim.level.model.world


def _tilt(session: Session) -> float:
    """Degrees gravity points from straight down: the way it last pointed while it is zero."""
    pointing = tilt_of(_world(session).gravity)
    return session.tilt_deg if pointing is None else pointing


def _tools(session: Session) -> Any:
    return session.sim.level.model.tools


def _rigid(session: Session) -> Any:
    return session.sim.level.model.world.rigid


def each_box_set(key: str) -> Callable[[Session, Any], list[tuple[str, Any]]]:
    """A writer that sets ``boxes.K.<key>`` on every box set of the level."""

    def write(session: Session, value: Any) -> list[tuple[str, Any]]:
        return [(f"boxes.{k}.{key}", value) for k in range(len(session.sim.level.model.boxes))]

    return write


POURED_SIZE_SPREAD = 0.6
"""The pour-size slider sets the largest radius; the smallest is this share of it."""


CONTROLS: dict[str, Slider | Choice] = {
    "gravity": Slider(
        "Gravity",
        0.0,
        3000.0,
        read=lambda s: math.hypot(*_world(s).gravity),
        write=lambda s, v: [("world.gravity", with_strength(_world(s).gravity, v, s.tilt_deg))],
        show=lambda v: f"{v:.0f} px/s²",
    ),
    "wind": Slider(
        "Wind strength",
        *slider_span("world.wind.strength"),
        read=lambda s: _world(s).wind.strength,
        write=lambda s, v: [("world.wind.strength", round(v))],
        show=lambda v: f"{v:.0f} px/s²",
    ),
    "wind_direction": Slider(
        "Wind direction",
        *slider_span("world.wind.direction_deg"),
        read=lambda s: _world(s).wind.direction_deg,
        write=lambda s, v: [("world.wind.direction_deg", round(v))],
        show=lambda v: f"{v:.0f}°",
    ),
    "tear_ratio": Slider(
        "Tear ratio",
        *slider_span("cloth.tear_ratio"),
        read=lambda s: first_cloth(s).tear_ratio,
        write=lambda s, v: each_cloth("tear_ratio")(s, round(v, 2)),
        show=lambda v: f"{v:.2f} × rest",
    ),
    "iterations": Slider(
        "Stiffness (iterations)",
        *slider_span("world.iterations"),
        read=lambda s: _world(s).iterations,
        write=lambda s, v: [("world.iterations", round(v))],
        show=lambda v: f"{v:.0f}",
        step=1.0,
        lowest=lambda s: min(FEWEST_PANEL_ITERATIONS, _world(s).iterations),
        highest=within_budgets("iterations"),
    ),
    "compliance": Slider(
        "Compliance",
        0.0,
        COMPLIANCE_SLIDER_TOP,
        read=lambda s: slider_from_compliance(first_cloth(s).compliance),
        write=lambda s, v: each_cloth("compliance")(s, compliance_from_slider(v)),
        show=lambda v: "rigid" if compliance_from_slider(v) == 0 else f"{compliance_from_slider(v):.1e}",
        highest=lambda s, low, high: max(high, slider_from_compliance(first_cloth(s).compliance)),
    ),
    "pins": Choice(
        "Pins",
        ("every", "ends", "top", "none"),
        read=lambda s: first_cloth(s).pins.layout,
        write=each_cloth("pins.layout"),
    ),
    "shear": Choice(
        "Shear threads",
        ("off", "on"),
        read=lambda s: "on" if first_cloth(s).shear else "off",
        write=lambda s, v: each_cloth("shear")(s, v == "on"),
    ),
    "bend": Choice(
        "Bend threads",
        ("off", "on"),
        read=lambda s: "on" if first_cloth(s).bend else "off",
        write=lambda s, v: each_cloth("bend")(s, v == "on"),
    ),
    "pattern": Choice(
        "Pattern",
        PATTERNS,
        read=lambda s: first_cloth(s).pattern,
        write=each_cloth("pattern"),
    ),
    "tilt": Slider(
        "Tilt",
        -MAX_TILT_DEG,
        MAX_TILT_DEG,
        read=_tilt,
        write=lambda s, v: [],
        show=lambda v: f"{round(v):+d}°",  # a whole number first: -0.3 read "-0°"
        event=lambda v: {"type": "tilt", "degrees": v},  # kept while gravity is zero, as a direction
    ),
    "substeps": Slider(
        "Substeps",
        *slider_span("world.substeps"),
        read=lambda s: s.sim.settings.resolved_substeps(),
        write=lambda s, v: [("world.substeps", round(v))],
        show=lambda v: f"{v:.0f} per frame",
        step=1.0,
        highest=within_budgets("substeps"),
    ),
    "restitution": Slider(
        "Restitution",
        *slider_span("world.restitution"),
        read=lambda s: _world(s).restitution,
        write=lambda s, v: [("world.restitution", round(v, 2))],
        show=lambda v: f"{v:.2f}",
        explain=drop_rebound,
    ),
    "friction": Slider(
        "Friction",
        *slider_span("world.friction"),
        read=lambda s: _world(s).friction,
        write=lambda s, v: [("world.friction", round(v, 2))],
        show=lambda v: "off" if v < 0.005 else f"{v:.2f}",
    ),
    "strength": Slider(
        "Tool strength",
        *slider_span("tools.strength"),
        read=lambda s: _tools(s).strength,
        write=lambda s, v: [("tools.strength", round(v, 2))],
        show=lambda v: f"{v:.0%}",
    ),
    "radius": Slider(
        "Tool radius",
        *slider_span("tools.radius"),
        read=lambda s: _tools(s).radius,
        write=lambda s, v: [("tools.radius", round(v))],
        show=lambda v: f"{v:.0f} px",
    ),
    "sizes": Slider(
        "Poured size",
        2.0,
        30.0,
        read=lambda s: _tools(s).sizes[1],
        write=lambda s, v: [("tools.sizes", poured_sizes(v))],
        show=lambda v: f"radius {POURED_SIZE_SPREAD * v:.0f} to {v:.0f} px",
        lowest=lambda s: poured_sizes_within_budgets(s, 2.0, 30.0)[0],
        highest=lambda s, low, high: poured_sizes_within_budgets(s, 2.0, 30.0)[1],
    ),
    "color_by": Choice(
        "Colour circles by",
        COLOR_MODES,
        read=lambda s: s.sim.level.model.view.color_by,
        write=lambda s, v: [("view.color_by", v)],
    ),
    "box_iterations": Slider(
        "Box iterations",
        *slider_span("world.rigid.iterations"),
        read=lambda s: _rigid(s).iterations,
        write=lambda s, v: [("world.rigid.iterations", round(v))],
        show=lambda v: f"{v:.0f} per substep",
        step=1.0,
        highest=within_budgets("rigid.iterations"),
    ),
    "box_substeps": Slider(
        "Box substeps",
        *slider_span("world.rigid.substeps"),
        read=lambda s: _rigid(s).substeps,
        write=lambda s, v: [("world.rigid.substeps", round(v))],
        show=lambda v: f"{v:.0f} per frame",
        step=1.0,
        highest=within_budgets("rigid.substeps"),
    ),
    "correction": Choice(
        "Position correction",
        CORRECTIONS,
        read=lambda s: _rigid(s).correction,
        write=lambda s, v: [("world.rigid.correction", v)],
    ),
    "slop": Slider(
        "Slop",
        *slider_span("world.rigid.slop"),
        read=lambda s: _rigid(s).slop,
        write=lambda s, v: [("world.rigid.slop", round(v, 2))],
        show=lambda v: f"{v:.2f} px",
    ),
    "percent": Slider(
        "Correction",
        *slider_span("world.rigid.percent"),
        read=lambda s: _rigid(s).percent,
        write=lambda s, v: [("world.rigid.percent", round(v, 2))],
        show=lambda v: f"{v:.0%} of the overlap",
    ),
    "box_friction": Slider(
        "Box friction",
        *slider_span("boxes.friction"),
        read=lambda s: s.sim.level.model.boxes[0].friction,
        write=lambda s, v: each_box_set("friction")(s, round(v, 2)),
        show=lambda v: f"{v:.2f}",
    ),
    "sleeping": Choice(
        "Sleeping",
        ("on", "off"),
        read=lambda s: "on" if _rigid(s).sleeping else "off",
        write=lambda s, v: [("world.rigid.sleeping", v == "on")],
    ),
}
"""Every control the panel can show, by the name levels use in ``[panel] show``."""

CLOTH_CONTROLS = {"tear_ratio", "compliance", "pins", "shear", "bend", "pattern"}

BOX_CONTROLS = {"box_friction"}
"""Controls that read the first box set: left out of a level without boxes."""


class Panel:
    """The controls a level asks for, stacked in a box at the window's right edge."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.box = UIBoxLayout(vertical=True, space_between=2, width=PANEL_WIDTH)
        self.box.with_padding(all=10).with_background(color=BACKGROUND)
        self.box.add(UILabel(text="Tuning (P hides)", text_color=MUTED, font_size=10, width=PANEL_WIDTH - 20))
        self._labels: list[tuple[UILabel, Slider, UISlider]] = []
        self._dropdowns: list[tuple[Choice, UIDropdown]] = []
        self._starts: dict[int, float] = {}
        """Each slider's value when the panel was made (by the slider's ``id``): where ``SNAP`` lands."""
        self._syncing = False
        """True while ``sync`` moves a control: the change it makes is the level's, not the player's."""
        model = session.sim.level.model
        for name in model.panel.show:
            if (name in CLOTH_CONTROLS and not model.cloth) or (name in BOX_CONTROLS and not model.boxes):
                continue
            self._add(CONTROLS[name])

    @property
    def widget(self) -> UIWidget:
        """The root widget, for a ``UIManager``."""
        return self.box

    def _add(self, control: Slider | Choice) -> None:
        if isinstance(control, Slider):
            value = control.read(self.session)
            low, high = control.low_for(self.session), control.high_for(self.session)
            fixed = high <= low  # the level's budgets leave one value: said, not a slider that cannot move
            # two lines only where the control explains itself or is fixed: a multiline label keeps the
            # width of its first text, and a longer value wrapped
            only = f"{control.label}: {control.show(value)}, the most this level's budgets allow"
            label = UILabel(
                text=only if fixed else "",
                text_color=TEXT,
                font_size=10,
                width=PANEL_WIDTH - 20,
                multiline=fixed or control.explain is not None,
                align="center",
                size_hint=(1, 0),  # the panel's width whatever the text (no new line), its text's height
            )
            if fixed:
                self.box.add(label)
                return
            slider = UISlider(
                value=min(high, max(low, value)),
                min_value=low,
                max_value=high,
                width=PANEL_WIDTH - 20,
                height=18,
                step=control.step,
            )
            slider.on_change = lambda event, c=control: self._changed(c, event)  # type: ignore[method-assign]
            if control.step is None:
                self._starts[id(slider)] = slider.value
            self._labels.append((label, control, slider))
            self.box.add(label)
            self.box.add(slider)
            self._show(label, control, slider.value)
        else:
            label = UILabel(text=control.label, text_color=TEXT, font_size=10, width=PANEL_WIDTH - 20)
            dropdown = UIDropdown(
                default=control.read(self.session),
                options=list(control.options),
                width=PANEL_WIDTH - 20,
                height=24,
            )
            dropdown.on_change = lambda event, c=control: self._chosen(c, event)  # type: ignore[method-assign]
            self._dropdowns.append((control, dropdown))
            self.box.add(label)
            self.box.add(dropdown)

    def sync(self) -> None:
        """Move every control to the level's value now, and its label with it.

        Tools, keys and scripts change the same values (the tilt tool and the arrow keys gravity,
        the wind tool the wind, W its switch): without this the sliders showed the values the
        level started with. A slider the player is dragging is left to the player. Moving a
        control here makes no ``set`` event.
        """
        self._syncing = True
        try:
            for label, control, slider in self._labels:
                if slider.pressed:
                    continue
                value = min(slider.max_value, max(slider.min_value, control.read(self.session)))
                moved = slider.value != value
                if moved:
                    slider.value = value
                if moved or control.explain is not None:  # what it means may change with the world
                    self._show(label, control, value)
            for control, dropdown in self._dropdowns:
                value = control.read(self.session)
                if dropdown.value != value:
                    dropdown.value = value
        finally:
            self._syncing = False

    def _changed(self, control: Slider, event: UIOnChangeEvent) -> None:
        if self._syncing:
            return
        slider, value = event.source, event.new_value
        start = self._starts.get(id(slider))
        if start is not None and abs(value - start) <= SNAP * (slider.max_value - slider.min_value):
            value = slider.value = start  # the thumb lands there too (a plain field: no new event)
        if control.event is not None:
            self.session.queue(control.event(value))
        for key, setting in control.write(self.session, value):
            self.session.queue({"type": "set", "key": key, "value": setting})
        for label, shown, _slider in self._labels:
            if shown is control:
                self._show(label, control, value)

    def _chosen(self, control: Choice, event: UIOnChangeEvent) -> None:
        if self._syncing:
            return
        for key, value in control.write(self.session, event.new_value):
            self.session.queue({"type": "set", "key": key, "value": value})

    def _show(self, label: UILabel, control: Slider, value: float) -> None:
        text = f"{control.label}: {control.show(value)}"
        label.text = text if control.explain is None else f"{text}\n{control.explain(value, self.session)}"
