"""Fuzzing what a player does: random input on every shipped level never flings, folds or slips through.

Each example is an input script for one shipped level: presses, drags and
releases of each mouse button with each of the level's tools, key presses
(pause, step, reset, wind, poke, tilt, debug, help, panel), slow and fast,
on bodies and beside them, inside the window and out of it, events one to
ten frames apart. After every frame the checks of ``support.interaction``
hold: no NaN or infinity; no particle or box faster than 5000 px/s unless a
tool that adds energy just acted or the cursor itself jumped; creatures
never leave a press faster than 400 px/s and get their shape back; no skin
triangle inside out; everything inside the world.

Hypothesis is derandomized, so CI plays the same scripts every time.
``WEFT_FUZZ_INTERACTIONS`` sets the scripts per level (CI: 3; 40 for a long
local run).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from support.interaction import Watch, check_frame, note_event

from weft.game.level import load_level
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import LEVELS_DIR

LEVEL_FILES = sorted(LEVELS_DIR.glob("*.toml"))
SCRIPTS = int(os.environ.get("WEFT_FUZZ_INTERACTIONS", "3"))
REPORT = os.environ.get("WEFT_FUZZ_REPORT")
"""A file to append one JSON line per script to (level, events by kind, tools, what broke), instead of
failing: a run that counts rather than stops at the first broken script."""
FRAMES = 240
"""Frames each script plays: 4 s, long enough for a press, its release and the shape coming back."""
KEYS = ["SPACE", "S", "R", "W", "ENTER", "LEFT", "RIGHT", "D", "H", "P", "ENTER", "ENTER"]
"""Keys a player presses (Enter three times as often: mashed, it once flattened creatures)."""
BUTTONS = ["left", "left", "left", "right"]


Bounds = tuple[float, float, float, float]


@st.composite
def gestures(
    draw: st.DrawFn, tools: list[str], bounds: Bounds, targets: list[tuple[float, float]]
) -> list[dict[str, Any]]:
    """One gesture: a tool, a press (on a body half the time, else anywhere in the world or just
    outside the window), drags of some speed, a release; or a key press."""
    left, bottom, right, top = bounds
    width, height = right - left, top - bottom
    if draw(st.integers(0, 5)) == 0:
        return [{"type": "key_press", "key": draw(st.sampled_from(KEYS))}]
    events: list[dict[str, Any]] = [{"type": "tool", "name": draw(st.sampled_from(tools))}] if tools else []
    if targets and draw(st.booleans()):
        x, y = draw(st.sampled_from(targets))
        x += draw(st.floats(-20.0, 20.0))
        y += draw(st.floats(-20.0, 20.0))
    else:
        margin = draw(st.sampled_from([0.0, 0.0, 0.0, 150.0]))
        x = draw(st.floats(left - margin, right + margin, allow_nan=False))
        y = draw(st.floats(bottom - margin, top + margin, allow_nan=False))
    button = draw(st.sampled_from(BUTTONS))
    events.append({"type": "mouse_press", "x": x, "y": y, "button": button})
    step = draw(st.sampled_from([2.0, 8.0, 25.0, 60.0, 200.0]))  # px per event: slow to a flick
    heading = draw(st.floats(0.0, 2 * np.pi))
    for _ in range(draw(st.integers(0, 12))):
        heading += draw(st.floats(-1.2, 1.2))
        dx, dy = step * float(np.cos(heading)), step * float(np.sin(heading))
        # the hand may leave the window; it comes back no farther than a window away
        x = float(np.clip(x + dx, left - width, right + width))
        y = float(np.clip(y + dy, bottom - height, top + height))
        events.append({"type": "mouse_drag", "x": x, "y": y, "dx": dx, "dy": dy, "buttons": [button]})
    events.append({"type": "mouse_release", "x": x, "y": y, "button": button})
    return events


@st.composite
def scripts(
    draw: st.DrawFn, tools: list[str], bounds: Bounds, targets: list[tuple[float, float]]
) -> list[dict[str, Any]]:
    """A script of gestures, each event one to ten frames after the last, within ``FRAMES``."""
    script: list[dict[str, Any]] = []
    frame = draw(st.integers(0, 30))
    while frame < FRAMES - 30:
        for event in draw(gestures(tools, bounds, targets)):
            script.append({"frame": frame, **event})
            if event["type"] in ("mouse_drag", "mouse_press"):
                frame += draw(st.integers(1, 10))
        frame += draw(st.integers(1, 40))
    return script


def body_positions(level) -> list[tuple[float, float]]:
    """Where the level's bodies are at the start (every particle and box, thinned to 200): presses
    aimed at them land on cloth, creatures, circles, boxes and skins."""
    sim = Simulation(level)
    try:
        stores = sim.stores
        points = np.concatenate(
            [stores.particles.pos[: stores.particles.count], stores.rigid.pos[: stores.rigid.count]]
        )
    finally:
        sim.close()
    keep = points[:: max(1, len(points) // 200)]
    return [(float(x), float(y)) for x, y in keep]


def tally(level: str, script: list[dict[str, Any]], problems: list[str]) -> None:
    """One line of ``REPORT``: what the script did and the kinds of invariant it broke."""
    kinds = sorted({re.sub(r"[0-9.]+", "N", problem.split(": ", 1)[1]) for problem in problems})
    line = {
        "level": level,
        "events": dict(Counter(event["type"] for event in script)),
        "tools": sorted({event["name"] for event in script if event["type"] == "tool"}),
        "broken": kinds,
    }
    if problems:  # enough to replay it: ``weft run LEVEL --input`` takes the script as it is
        line["problems"] = problems[:5]
        line["script"] = script
    with open(REPORT, "a") as out:
        out.write(json.dumps(line) + "\n")


def play(level_path, script: list[dict[str, Any]]) -> list[str]:
    """Play ``script`` on the level; every broken invariant, after every frame."""
    sim = Simulation(load_level(level_path))
    session = Session(sim)
    watch = Watch()
    events = sorted(script, key=lambda event: event["frame"])
    problems: list[str] = []
    try:
        k = 0
        for frame in range(FRAMES):
            while k < len(events) and events[k]["frame"] <= frame:
                event = {key: value for key, value in events[k].items() if key != "frame"}
                note_event(watch, session, event, frame)
                session.queue(event)
                k += 1
            session.advance()
            if session.paused:  # a paused level holds still; the next frame's step is judged
                watch.last_positions = watch.last_boxes = None
            problems += check_frame(watch, session, frame)
            if len(problems) > 5:
                break
    finally:
        sim.close()
    return problems


@pytest.mark.parametrize("level_path", LEVEL_FILES, ids=lambda path: path.stem)
def test_random_input_never_flings_folds_or_slips_through(level_path) -> None:
    level = load_level(level_path)
    tools = list(level.model.tools.available)
    bounds = tuple(level.model.world.bounds)
    targets = body_positions(level)

    @settings(
        max_examples=SCRIPTS,
        derandomize=True,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: a failing script is reported as it came
    )
    @given(scripts(tools, bounds, targets))
    def check(script: list[dict[str, Any]]) -> None:
        problems = play(level_path, script)
        if REPORT:
            tally(level_path.name, script, problems)
            return  # every script plays, and the report counts what broke
        assert not problems, "\n".join(problems[:5])

    check()
