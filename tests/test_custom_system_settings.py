"""A custom system that sets world settings out of range: brought back into it after the system runs,
said once, and never a crash of the window or ``run``."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.cli import run_game
from support.plugins import write_module

from weft.game.level import load_level
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.systems import registry, world
from weft.systems.registry import register
from weft.systems.schedule import Stage, Step, System

LEVEL = """
[world]
gravity = [0, -980]
substeps = 2

[[balls]]
name = "balls"
count = 50
region = [100, 100, 400, 300]

[[system]]
name = "NAME"
"""

WILD = """
from weft.systems import world
from weft.systems.schedule import Stage, System

class Wild(System):
    '''Sets every world setting it can past the schema's range, every substep.'''

    name = "wild"
    stage = Stage.SUBSTEP
    after = ("integrate",)

    def process(self, step):
        settings = world.settings()
        settings.gravity = (-1e9, float("nan"))
        settings.damping = 5.0
        settings.iterations = 10**9
        settings.substeps = -3
        settings.wind.strength = float("inf")
        settings.rigid.contact_hertz = 0.0
"""


@pytest.fixture
def forget() -> Iterator[None]:
    """What a test registers or imports is forgotten after it."""
    registered, modules = set(registry.registered()), set(sys.modules)
    yield
    for name in set(registry.registered()) - registered:
        registry.unregister(name)
    for name in set(sys.modules) - modules:
        if name == "wild":
            del sys.modules[name]


def level_with(folder: Path, name: str) -> Path:
    path = folder / "level" / "level.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(LEVEL.replace("NAME", name))
    return path


def test_settings_a_custom_system_leaves_out_of_range_are_clamped_and_said_once(
    forget: None, tmp_path: Path
) -> None:
    write_module(tmp_path, "wild", WILD)
    sys.path.insert(0, str(tmp_path))
    try:
        sim = Simulation(load_level(level_with(tmp_path, "wild:Wild"), allow_import=["wild"]))
    finally:
        sys.path.remove(str(tmp_path))
    session = Session(sim)
    session.advance()
    settings = sim.settings
    assert settings.gravity == (-20000.0, -980.0)  # past the bound: the bound; NaN: the last good value
    assert settings.damping == 1.0
    assert settings.iterations == 200
    assert settings.substeps == 2  # an int or "auto": no bound to clamp to, so the last good value
    assert settings.wind.strength == 5000.0
    assert settings.rigid.contact_hertz == 1.0
    assert "system 'wild' set world.gravity.0 to -1000000000.0" in session.message
    assert "world.damping" in session.message and "world.rigid.contact_hertz" in session.message
    assert len(session.settings_notes) == 7  # both gravity components, and five more
    session.advance()
    assert session.settings_notes == []  # said once per system and key, clamped every time
    assert sim.settings.damping == 1.0
    assert np.isfinite(sim.positions("balls")).all()


def test_settings_no_table_holds_go_back_to_the_last_good_ones(forget: None, tmp_path: Path) -> None:
    @register
    class Vandal(System):
        """Puts what no [world] table holds into the settings."""

        name = "vandal"
        stage = Stage.FRAME_END

        def process(self, step: Step) -> None:
            settings = world.settings()
            settings.gravity = None  # type: ignore[assignment]
            settings.iterations = 2.5  # type: ignore[assignment]
            settings.wind = "gale"  # type: ignore[assignment]

    sim = Simulation(load_level(level_with(tmp_path, "vandal")))
    before = (sim.settings.gravity, sim.settings.iterations, sim.settings.wind)
    session = Session(sim)
    session.run(3)
    assert (sim.settings.gravity, sim.settings.iterations, sim.settings.wind) == before
    assert "no [world] table holds" in session.message
    assert np.isfinite(sim.positions("balls")).all()


def test_settings_within_range_are_left_as_the_system_set_them(forget: None, tmp_path: Path) -> None:
    @register
    class Tilt(System):
        """Turns gravity a little each frame, within range."""

        name = "tilt"
        stage = Stage.FRAME_START

        def process(self, step: Step) -> None:
            settings = world.settings()
            angle = 0.01 * step.frame
            settings.gravity = (980.0 * math.sin(angle), -980.0 * math.cos(angle))
            settings.wind.direction = 0.1234567

    sim = Simulation(load_level(level_with(tmp_path, "tilt")))
    session = Session(sim)
    session.run(10)
    assert sim.settings.gravity == (980.0 * math.sin(0.09), -980.0 * math.cos(0.09))
    assert sim.settings.wind.direction == 0.1234567  # its own bits, not degrees and back
    assert session.settings_notes == [] and session.message == ""


def test_run_with_such_a_system_finishes_and_says_what_was_clamped_once(tmp_path: Path) -> None:
    write_module(tmp_path, "wild", WILD)
    level = level_with(tmp_path, "wild:Wild")
    metrics = tmp_path / "metrics.json"
    args = ["run", str(level), "--frames", "5", "--metrics", str(metrics), "--allow-import", "wild"]
    done = run_game(*args, path=(tmp_path,))
    assert done.returncode == 0, done.stderr
    assert metrics.exists()
    lines = [line for line in done.stderr.splitlines() if "system 'wild'" in line]
    assert len(lines) == 7, done.stderr
    assert all(line.startswith("level.toml: frame 1: ") for line in lines)


SHEET = """
[world]
substeps = 1

[[cloth]]
cols = 100
rows = 100
spacing = 5.0
origin = [100, 700]

[[system]]
name = "greedy"
"""


class Greedy(System):
    """Asks for 200 iterations every frame: within the schema, past a 100 x 100 sheet's frame budgets."""

    name = "greedy"
    stage = Stage.FRAME_START

    def process(self, step: Step) -> None:
        world.settings().iterations = 200


def test_iterations_a_custom_system_raises_past_the_frame_budgets_are_brought_down_and_said_once(
    forget: None, tmp_path: Path
) -> None:
    register(Greedy)
    path = tmp_path / "sheet.toml"
    path.write_text(SHEET)
    session = Session(Simulation(load_level(path)))
    session.advance()
    # 10000 particles at one substep: PARTICLE_PASSES (600000) allows 60 iterations
    assert session.sim.settings.iterations == 60
    assert session.settings_notes == [
        "system 'greedy' set world.iterations to 200, past the level's frame budgets: 60 instead"
    ]
    session.advance()
    assert session.sim.settings.iterations == 60 and session.settings_notes == []


def test_a_plugin_without_a_level_holds_a_custom_system_to_its_bodies_budgets() -> None:
    import esper

    from weft import Cloth, Physics, World

    previous = esper.current_world
    esper.switch_world("greedy-plugin")
    try:
        physics = Physics(settings=World(substeps=1))
        physics.add(Cloth(cols=100, rows=100, spacing=5.0, origin=(100, 700)))
        physics.add_system(Greedy())
        physics.step()
        assert physics.settings.iterations == 60
        assert physics.guard.take_notes() == [
            "system 'greedy' set world.iterations to 200, past the level's frame budgets: 60 instead"
        ]
        physics.close()
    finally:
        esper.switch_world(previous)
        esper.delete_world("greedy-plugin")


FAILING = """
import json
import math

from weft.systems import world
from weft.systems.schedule import Stage, System

class Raises(System):
    '''Raises from its fourth frame on.'''

    name = "raises"
    stage = Stage.FRAME_START

    def process(self, step):
        if step.frame >= 3:
            raise RuntimeError("boom\\nfrom my system")

class Poisons(System):
    '''Puts a NaN into one circle's position from its third frame on.'''

    name = "poisons"
    stage = Stage.SUBSTEP
    after = ("integrate",)

    def process(self, step):
        if step.frame >= 2:
            world.stores().particles.pos[7, 1] = math.nan
"""


@pytest.mark.parametrize(
    ("system", "said"),
    [
        ("failing:Raises", "level.toml: frame 3: system 'raises' raised RuntimeError: boom from my system"),
        (
            "failing:Poisons",
            "level.toml: frame 2: system 'poisons' left a NaN or an infinity in particle positions",
        ),
    ],
)
def test_a_custom_system_that_raises_or_leaves_a_nan_stops_run_with_one_line_and_the_frames_done_written(
    tmp_path: Path, system: str, said: str
) -> None:
    # before: a raise was a 15-line traceback and no metrics or state; a NaN in the positions spread
    # through the level, the run exited 0 and wrote "max_stretch": NaN, which is not JSON
    write_module(tmp_path, "failing", FAILING)
    level = level_with(tmp_path, system)
    metrics, state = tmp_path / "metrics.json", tmp_path / "state.json"
    args = ["run", str(level), "--frames", "30", "--metrics", str(metrics), "--state", str(state)]
    done = run_game(*args, "--allow-import", "failing", path=(tmp_path,))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(said) and line.endswith("the metrics and state of the frames done are written")
    assert json.loads(metrics.read_text())["frames"] <= 3  # valid JSON, of the frames before it
    json.loads(state.read_text())
