"""Custom systems: registered by name, installed as entry points, or imported only when the user allows it."""

from __future__ import annotations

import importlib.metadata
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pydantic import Field
from support.cli import run_game
from support.plugins import EXAMPLE, example_entry_points, fake_install, write_module

from weft.game.level import LevelError, load_level
from weft.game.simulation import Simulation
from weft.systems import registry
from weft.systems.frame import FRAME_NAMES
from weft.systems.registry import RegistryError, SystemParams, register
from weft.systems.schedule import Stage, Step, System

ROOT = Path(__file__).resolve().parents[1]
WELLS = """
[world]
gravity = [0, 0]
damping = 1.0
substeps = 2

[[balls]]
name = "near"
positions = [[700, 360]]   # 60 px right of the well: inside its core
radius = [5, 5]

[[balls]]
name = "far"
positions = [[340, 360]]   # 300 px left of it: pulled at (100 / 300)² of the strength
radius = [5, 5]

[[balls]]
name = "post"
positions = [[640, 430]]
radius = [5, 5]
fixed = true

[[system]]
name = "NAME"
params = { wells = [[640, 360]], strength = 3600, core = 100 }
"""


@pytest.fixture
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The example plugin importable; what a test registers or imports is forgotten after it."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    registered, modules = set(registry.registered()), set(sys.modules)
    yield
    for name in set(registry.registered()) - registered:
        registry.unregister(name)
    for name in set(sys.modules) - modules:
        if name in ("gravity_wells", "noisy", "allowed_pkg", "elsewhere"):
            del sys.modules[name]


def level_file(folder: Path, name: str, text: str = WELLS) -> Path:
    """The level in a folder of its own: modules beside a level are never imported (see below)."""
    path = folder / "level" / "level.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text.replace("NAME", name))
    return path


def test_a_registered_system_runs_every_substep_and_pulls_circles_towards_the_well(
    plugins: None, tmp_path: Path
) -> None:
    import gravity_wells  # noqa: F401  (its @register makes "gravity_wells" a name levels can use)

    sim = Simulation(load_level(level_file(tmp_path, "gravity_wells")))
    assert sim.schedule.names(Stage.SUBSTEP)[-3:] == ["gravity_wells", "broadphase", "sweep"]
    start = {name: sim.positions(name)[0].copy() for name in ("near", "far", "post")}
    sim.step(3)
    # Verlet under a constant pull a: after m substeps of dt the move is a dt² m (m + 1) / 2
    dt = 1 / 120
    near = start["near"] - sim.positions("near")[0]
    assert near == pytest.approx([3600 * dt**2 * 6 * 7 / 2, 0.0], abs=1e-9)  # 5.25 px towards the well
    far = sim.positions("far")[0] - start["far"]
    assert far[0] == pytest.approx(400 * dt**2 * 21, rel=0.01) and far[1] == pytest.approx(0.0, abs=1e-9)
    assert np.array_equal(sim.positions("post")[0], start["post"])  # fixed circles stay


def test_level_systems_survive_set_and_reset_and_repeat_bit_for_bit(plugins: None, tmp_path: Path) -> None:
    import gravity_wells  # noqa: F401

    sim = Simulation(load_level(level_file(tmp_path, "gravity_wells")))
    sim.step(30)
    first = sim.state_hash()
    sim.reset()
    sim.step(30)
    assert sim.state_hash() == first
    sim.set("world.iterations", 3)
    assert "gravity_wells" in sim.schedule.names(Stage.SUBSTEP)
    with pytest.raises(LevelError, match=r"system\.0\.params\.strength: expected a number"):
        sim.set("system.0.params.strength", "strong")
    assert sim.schedule.get("gravity_wells").params.strength == 3600  # type: ignore[attr-defined]
    sim.set("system.0.params.strength", 100.0)
    assert sim.schedule.get("gravity_wells").params.strength == 100.0  # type: ignore[attr-defined]


def test_an_unknown_system_name_gets_a_suggestion_and_the_known_names(plugins: None, tmp_path: Path) -> None:
    import gravity_wells  # noqa: F401

    with pytest.raises(LevelError) as caught:
        load_level(level_file(tmp_path, "gravity_well"))
    message = str(caught.value)
    assert "system.0.name: expected a registered system's name (gravity_wells;" in message
    assert "got 'gravity_well'; did you mean 'gravity_wells'?" in message
    with pytest.raises(LevelError, match="got the built-in 'integrate': built-in systems are always sched"):
        load_level(level_file(tmp_path, "integrate"))


def test_params_are_checked_against_the_declaration_and_errors_name_the_key(
    plugins: None, tmp_path: Path
) -> None:
    import gravity_wells  # noqa: F401

    text = WELLS.replace(
        "[[640, 360]], strength = 3600, core = 100", '[[1, 2, 3]], strength = "strong", cor = 5'
    )
    with pytest.raises(LevelError) as caught:
        load_level(level_file(tmp_path, "gravity_wells", text))
    lines = str(caught.value).splitlines()
    line = 1 + text.splitlines().index(next(row for row in text.splitlines() if row.startswith("params")))
    expected = (
        f'/level.toml: system.0.params.strength: expected a number, got "strong" (a string) (line {line})'
    )
    assert any(row.endswith(expected) for row in lines)
    assert any("system.0.params.cor: " in row and "did you mean 'core'?" in row for row in lines)
    assert any(
        "system.0.params.wells.0: expected a list of at most 2 items, got 3 items" in row for row in lines
    )


def test_module_attr_is_imported_only_with_allow_import(plugins: None, tmp_path: Path) -> None:
    path = level_file(tmp_path, "gravity_wells:GravityWells")
    level = load_level(path)  # loading never imports
    with pytest.raises(LevelError) as caught:
        Simulation(level)
    assert "system.0.name: refused to import 'gravity_wells:GravityWells'" in str(caught.value)
    assert "run with --allow-import gravity_wells" in str(caught.value)
    assert "gravity_wells" not in sys.modules
    with pytest.raises(LevelError, match="refused"):
        Simulation(load_level(path, allow_import=["gravity*.x", "other"]))
    sim = Simulation(load_level(path, allow_import=["gravity_*"]))
    before = sim.positions("near")[0, 0]
    sim.step(1)
    assert sim.positions("near")[0, 0] < before
    with pytest.raises(LevelError, match=r"system\.0\.params\.core: expected a number > 0\.0, got -1"):
        Simulation(load_level(path, ["system.0.params.core=-1"], allow_import=["gravity_wells"]))


def test_allow_import_is_checked_against_where_the_system_is_defined(
    plugins: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_module(
        tmp_path,
        "elsewhere",
        """
        from weft.systems.schedule import Stage, System

        class Sneaky(System):
            name = "sneaky"
            stage = Stage.FRAME_END

            def process(self, step):
                pass
        """,
    )
    (tmp_path / "allowed_pkg").mkdir()
    (tmp_path / "allowed_pkg" / "__init__.py").write_text("from elsewhere import Sneaky\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = level_file(tmp_path, "allowed_pkg:Sneaky", "[[system]]\nname = 'NAME'\n")
    with pytest.raises(LevelError) as caught:
        Simulation(load_level(path, allow_import=["allowed_pkg"]))
    message = str(caught.value)
    assert "it is defined in module 'elsewhere', not in 'allowed_pkg'" in message
    assert "add --allow-import elsewhere" in message
    sim = Simulation(load_level(path, allow_import=["allowed_pkg", "elsewhere"]))
    assert sim.schedule.names(Stage.FRAME_END)[-1] == "sneaky"


def test_an_entry_point_is_found_by_name_and_loaded_only_to_build(
    plugins: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entries = [
        importlib.metadata.EntryPoint(name=name, value=value, group=registry.ENTRY_POINT_GROUP)
        for name, value in example_entry_points().items()
    ]
    real = importlib.metadata.entry_points

    def entry_points(**selection: str) -> object:
        return entries if selection.get("group") == registry.ENTRY_POINT_GROUP else real(**selection)

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    level = load_level(level_file(tmp_path, "gravity_wells"))
    assert "gravity_wells" not in sys.modules  # the name is known from metadata alone
    sim = Simulation(level)
    assert "gravity_wells" in sim.schedule.names(Stage.SUBSTEP)
    before = sim.positions("near")[0, 0]
    sim.step(1)
    assert sim.positions("near")[0, 0] < before


def test_a_system_must_declare_what_levels_and_listings_need(plugins: None) -> None:
    class Drift(System):
        name = "drift"
        stage = Stage.SUBSTEP

        class Params(SystemParams):
            speed: float = 3.0

        def process(self, step: Step) -> None:
            pass

    with pytest.raises(
        RegistryError, match=r"description \(with its unit\) for every parameter.*\['speed'\]"
    ):
        register(Drift)

    class Integrate(System):
        name = "integrate"
        stage = Stage.SUBSTEP

        class Params(SystemParams):
            speed: float = Field(3.0, description="px/s")

        def process(self, step: Step) -> None:
            pass

    with pytest.raises(RegistryError, match="'integrate' is a built-in system; choose another"):
        register(Integrate)


def test_drawing_system_names_are_reserved() -> None:
    import importlib
    import pkgutil

    import weft.systems.draw

    names = set()
    for module in pkgutil.iter_modules(weft.systems.draw.__path__):
        found = importlib.import_module(f"weft.systems.draw.{module.name}")
        names |= {
            value.name
            for value in vars(found).values()
            if isinstance(value, type) and issubclass(value, System) and "name" in vars(value)
        }
    assert names == set(registry.DRAWING_NAMES)


def test_the_example_runs_as_an_installed_plugin_and_is_listed(tmp_path: Path) -> None:
    site = fake_install(tmp_path, "weft-gravity-wells", example_entry_points())
    listed = run_game("systems", path=(site, EXAMPLE))
    assert listed.returncode == 0, listed.stderr
    text = listed.stdout
    substep = text.split("  substep: ", 1)[1].split("\n\n", 1)[0]  # the built-ins of one stage, in order
    assert [line.split()[0] for line in substep.splitlines()[1:]] == list(FRAME_NAMES[Stage.SUBSTEP])
    assert "    integrate        Moves every free particle by its Verlet velocity" in text
    place = "(stage substep; after integrate; before broadphase; needs colliding; entry point "
    assert f"gravity_wells  {place}" in text
    assert "    pins             Moves every pinned particle" in text and "(needs particles, pins)" in text
    assert "of weft-gravity-wells" in text
    assert "strength  float              = 2000.0            Pull within the core, px/s²." in text
    ran = run_game("run", str(EXAMPLE / "wells.toml"), "--frames", "30", path=(site, EXAMPLE))
    assert ran.returncode == 0, ran.stderr
    assert "500 particles" in ran.stdout


def test_validate_never_imports_code(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    write_module(
        tmp_path,
        "noisy",
        f"""
        from pathlib import Path
        Path({str(marker)!r}).write_text("noisy ran")
        raise RuntimeError("noisy ran on import")
        """,
    )
    site = fake_install(tmp_path / "site", "noisy-plugin", {"noisy_pull": "noisy:Pull"})
    level = tmp_path / "level" / "level.toml"  # beside noisy.py it would never be imported
    level.parent.mkdir()
    level.write_text(
        '[[system]]\nname = "noisy:Thing"\n[[system]]\nname = "noisy_pull"\nparams = { x = 1 }\n'
    )
    checked = run_game("validate", str(level), path=(tmp_path, site))
    assert checked.returncode == 0, checked.stderr
    assert (
        "system.0: not checked, as validate never imports code: 'noisy:Thing' is an import" in checked.stdout
    )
    assert "system.1: not checked, as validate never imports code: 'noisy_pull' is an installed plugin" in (
        checked.stdout
    )
    assert not marker.exists()
    level.write_text('[[system]]\nname = "noisy:Thing"\n')
    refused = run_game("run", str(level), "--frames", "1", path=(tmp_path,))
    assert refused.returncode == 1 and not marker.exists()
    assert "refused to import 'noisy:Thing'" in refused.stderr and "--allow-import noisy" in refused.stderr
    allowed = run_game("run", str(level), "--frames", "1", "--allow-import", "noisy", path=(tmp_path,))
    assert allowed.returncode == 1 and marker.exists()
    assert "could not import 'noisy' for 'noisy:Thing': RuntimeError: noisy ran on import" in allowed.stderr
    assert "Traceback" not in allowed.stderr


def test_the_tutorial_shows_the_example_as_it_is(plugins: None, tmp_path: Path) -> None:
    docs = (ROOT / "docs" / "extending.md").read_text()
    source = (EXAMPLE / "gravity_wells.py").read_text()
    assert source.split("\n\n\n", 1)[1].strip() in docs  # the class, line for line
    import gravity_wells  # noqa: F401

    blocks = [block.split("```", 1)[0] for block in docs.split("```toml\n")[1:]]
    blocks = [block for block in blocks if "[[system]]" in block]  # levels, not the pyproject.toml
    assert blocks
    for k, block in enumerate(blocks):
        path = tmp_path / f"example{k}.toml"
        path.write_text(textwrap.dedent(block))
        Simulation(load_level(path, allow_import=["gravity_wells"])).step(2)


def test_a_level_loaded_again_or_after_a_cleared_world_replaces_its_own_systems(
    plugins: None, tmp_path: Path
) -> None:
    import esper
    import gravity_wells

    import weft

    level = EXAMPLE / "wells.toml"
    world = "reloaded-wells"
    esper.switch_world(world)
    try:
        physics = weft.Physics()
        physics.load(level)
        physics.step(2)
        physics.load(level)  # it said: a system named 'gravity_wells' is already scheduled
        assert [physics.body(e).name for e in physics.bodies()] == ["dust", "dust"]
        assert physics.schedule.custom() == {"gravity_wells"}
        esper.clear_database()  # the bodies go, and the systems their level brought
        assert physics.schedule.custom() == set()  # at once, not only once a step has run
        physics.load(level)
        physics.step(2)
        assert [physics.body(e).name for e in physics.bodies()] == ["dust"]
        assert physics.schedule.names(Stage.SUBSTEP).count("gravity_wells") == 1
        physics.schedule.remove("gravity_wells")
        physics.add_system(gravity_wells.GravityWells())  # now the game's own: never replaced
        with pytest.raises(LevelError, match="a system named 'gravity_wells' is already scheduled"):
            physics.load(level_file(tmp_path, "gravity_wells"))
    finally:
        esper.switch_world("default")
        esper.delete_world(world)


def test_a_level_can_place_its_system_itself(plugins: None, tmp_path: Path) -> None:
    import gravity_wells  # noqa: F401

    def placed(where: str) -> Simulation:
        return Simulation(load_level(level_file(tmp_path, "gravity_wells", WELLS + where)))

    assert placed('after = ["shake"]\nbefore = ["integrate"]').schedule.names(Stage.SUBSTEP)[:3] == [
        "shake",
        "gravity_wells",
        "integrate",
    ]
    with pytest.raises(
        LevelError, match=r"system\.0\.before: expected a system in stage .*got 'integrat'; did you mean"
    ):
        placed('before = ["integrat"]')
    with pytest.raises(LevelError, match=r"system\.0: system 'gravity_wells' cannot run after \['sweep'\]"):
        placed('after = ["sweep"]\nbefore = ["shake"]')


def test_the_tutorials_command_line_runs_as_written(tmp_path: Path) -> None:
    docs = (ROOT / "docs" / "extending.md").read_text()
    (command,) = [
        block.split("```", 1)[0]
        for block in docs.split("```console\n")[1:]
        if "--allow-import" in block.split("```", 1)[0]
    ]
    words = command.replace("\\\n", " ").split()
    assert words[:3] == ["$", "weft", "run"]
    args = words[2:]  # from "run" on
    args[args.index("--frames") + 1] = "2"
    args[args.index("--screenshot") + 1] = str(tmp_path / "wells.png")
    done = run_game(*args)  # from the project's folder, as the tutorial's paths are
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "wells.png").stat().st_size > 0


def test_validate_refuses_an_import_listed_twice_as_run_does(tmp_path: Path) -> None:
    # before: validate said ok with two "not checked" lines, and run then refused the second
    level = tmp_path / "level.toml"
    level.write_text('[[system]]\nname = "whirl:Whirl"\n[[system]]\nname = "whirl:Whirl"\n')
    with pytest.raises(
        LevelError, match=r"system\.1\.name: expected a system not already listed \(system\.0\)"
    ):
        load_level(level)
