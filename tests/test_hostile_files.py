"""Levels, maps, textures and scripts from strangers: nothing hangs, crashes, exhausts memory or escapes.

Each case of issue 19 as a small generated file. Whatever reads it runs in a
subprocess bounded by a timeout and by an address-space limit, so a
regression fails the test instead of taking the machine down; the limits are
generous (they guard against hangs and blow-ups, they do not time anything).
"""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import esper
import pytest
from support.cli import ROOT

from weft.budgets import BOX_OVERLAPS, BOXES, NESTING, PARTICLE_PASSES, PARTICLES, SCRIPT_EVENTS, TEXTURE_SIDE
from weft.game.level import LevelError, load_level
from weft.game.level.problems import Problem
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.named_files import FileRefused, image_size

MEMORY = 3_000_000_000
"""Bytes of address space a subprocess may take: above what Weft needs, far below any blow-up."""

TIMEOUT = 120
"""s a subprocess may take: a hang fails, a slow machine does not."""


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def weft(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m weft ARGS`` headless, within ``MEMORY`` and ``TIMEOUT``."""
    env = {**os.environ, "ARCADE_HEADLESS": "1", "PYTHONPATH": ""}
    return subprocess.run(
        [sys.executable, "-m", "weft", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit_memory,
    )


def refused(result: subprocess.CompletedProcess[str], *expected: str) -> list[str]:
    """The stderr lines of a run that failed cleanly (exit 1 or 2, no traceback), each expected
    fragment found in some line."""
    assert result.returncode in (1, 2), (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    for fragment in expected:
        assert any(fragment in line for line in lines), (fragment, result.stderr)
    return lines


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_header(width: int, height: int) -> bytes:
    """A 57-byte PNG claiming ``width`` × ``height``: signature, IHDR, an empty IDAT, no pixels."""
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", b"") + _chunk(b"IEND", b"")


def write_png(path: Path, width: int, height: int) -> Path:
    """A real, tiny PNG of ``width`` × ``height`` (all pixels opaque white)."""
    row = b"\x00" + b"\xff" * (4 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(row * height))
        + _chunk(b"IEND", b"")
    )
    return path


SKELETON = """
[[skeleton]]
name = "pole"
joints = [{ name = "a", at = [0, 0] }, { name = "b", at = [0, 80] }]
bones = [{ name = "ab", head = "a", tail = "b" }]
skin = { texture = "TEXTURE" }
"""


def problems(path: Path, *overrides: str) -> list[str]:
    with pytest.raises(LevelError) as caught:
        load_level(path, list(overrides))
    lines = [str(problem) for problem in caught.value.problems]
    assert all("\n" not in line for line in lines)
    return lines


# -- textures: confined, regular, sized from the header before decoding ---------------------------


def test_a_png_header_claiming_20000_squared_is_refused_without_decoding(tmp_path: Path) -> None:
    (tmp_path / "huge.png").write_bytes(png_header(20000, 20000))
    level = tmp_path / "level.toml"
    level.write_text("[[cloth]]\ntexture = 'huge.png'\n" + SKELETON.replace("TEXTURE", "huge.png"))
    lines = refused(weft("validate", str(level)), "cloth.0.texture", "skeleton.0.skin.texture")
    assert all(f"at most {TEXTURE_SIDE} px wide and tall" in line for line in lines)
    assert all("20000 × 20000" in line for line in lines)  # over Pillow's own bomb limit: read off the header
    (tmp_path / "huge.png").write_bytes(png_header(12000, 12000))  # under Pillow's, over ours
    assert all("12000 × 12000" in line for line in refused(weft("validate", str(level))))


def test_a_bomb_in_another_format_is_refused_by_its_pixels(tmp_path: Path) -> None:
    # a BMP header claiming 30000²: Pillow refuses it before it gives the size; only a PNG's we read
    info = struct.pack("<IiiHHIIiiII", 40, 30000, 30000, 1, 24, 0, 0, 2835, 2835, 0, 0)
    (tmp_path / "huge.bmp").write_bytes(b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + info + bytes(16))
    with pytest.raises(FileRefused, match="of 900000000 pixels"):
        image_size(tmp_path / "huge.bmp")


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.png", "link.png", "fifo.png", "folder.png"])
def test_a_texture_outside_the_folder_or_not_a_regular_file_is_refused(tmp_path: Path, name: str) -> None:
    home = tmp_path / "level"
    home.mkdir()
    write_png(tmp_path / "outside.png", 4, 4)
    (home / "link.png").symlink_to(tmp_path / "outside.png")
    os.mkfifo(home / "fifo.png")
    (home / "folder.png").mkdir()
    level = home / "level.toml"
    level.write_text(f"[[cloth]]\ntexture = {json.dumps(name)}\n")
    (line,) = refused(weft("validate", str(level)), "cloth.0.texture")
    assert "outside" in line or "not a regular file" in line or "a folder" in line


def test_a_small_texture_in_the_folder_is_fine_and_the_totals_are_budgeted(tmp_path: Path) -> None:
    write_png(tmp_path / "cloth.png", 8, 8)
    level = tmp_path / "level.toml"
    level.write_text("[[cloth]]\ntexture = 'cloth.png'\ncols = 4\nrows = 4\n")
    assert load_level(level).model.cloth[0].texture == "cloth.png"


def test_a_texture_replaced_by_a_huge_one_is_drawn_as_the_pattern_not_raised(tmp_path: Path) -> None:
    from weft.named_files import FileRefused, read_image

    path = tmp_path / "t.png"
    path.write_bytes(png_header(20000, 20000))
    with pytest.raises(FileRefused, match="at most 4096 px"):
        read_image(path)  # what the cloth and skin drawing call, catching FileRefused


def test_a_texture_swapped_for_a_link_outside_after_validation_is_not_drawn(tmp_path: Path) -> None:
    from weft.components import Sheet
    from weft.named_files import FileRefused, read_named_image

    folder = tmp_path / "level"
    folder.mkdir()
    write_png(folder / "cloth.png", 8, 8)
    secret = write_png(tmp_path / "secret.png", 8, 8)
    level = folder / "level.toml"
    level.write_text("[[cloth]]\ntexture = 'cloth.png'\ncols = 4\nrows = 4\n")
    sim = Simulation(load_level(level))
    try:
        with sim.physics.entered():
            ((_, sheet),) = esper.get_component(Sheet)
    finally:
        sim.close()
    look = sheet.look
    assert read_named_image(look.texture, look.folder).size == (8, 8)
    (folder / "cloth.png").unlink()
    (folder / "cloth.png").symlink_to(secret)  # swapped between validation and the first draw
    with pytest.raises(FileRefused, match="lies outside"):
        read_named_image(look.texture, look.folder)  # what the cloth and skin textures call


# -- Tiled: templates and their tilesets --------------------------------------------------------------


def tiled_map(folder: Path, template: str) -> Path:
    from test_tiled import shape, tiled_map  # the map builder of the Tiled tests

    obj = shape(1, "box", 100, 100, 40, 40)
    data = tiled_map([{"id": 1, "template": template, "x": 100, "y": 100}])
    data["layers"][0]["objects"].append({**obj, "id": 2})
    path = folder / "map.tmj"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("tileset", ["/dev/zero", "fifo.tsj", "zero.tsj", "../../etc/passwd"])
def test_a_template_naming_a_device_fifo_or_outside_tileset_is_refused(tmp_path: Path, tileset: str) -> None:
    os.mkfifo(tmp_path / "fifo.tsj")
    (tmp_path / "zero.tsj").symlink_to("/dev/zero")
    template = {"type": "template", "object": {"class": "box", "width": 40, "height": 40, "gid": 1}}
    template["tileset"] = {"firstgid": 1, "source": tileset}
    (tmp_path / "crate.tj").write_text(json.dumps(template))
    path = tiled_map(tmp_path, "crate.tj")
    refused(weft("validate", str(path)), "template.tileset.source")


@pytest.mark.parametrize("source", ["/dev/zero", "fifo.tj"])
def test_a_template_that_is_a_device_or_fifo_is_refused(tmp_path: Path, source: str) -> None:
    os.mkfifo(tmp_path / "fifo.tj")
    path = tiled_map(tmp_path, source)
    refused(weft("validate", str(path)), "template:")


def test_deep_tiled_groups_and_class_properties_are_refused_not_recursed(tmp_path: Path) -> None:
    from test_tiled import tiled_map as one_layer_map

    data = one_layer_map([])
    layer = data["layers"][0]
    for k in range(400):  # 800 deep: json.dumps itself recurses
        layer = {"type": "group", "name": f"g{k}", "opacity": 1, "visible": True, "layers": [layer]}
    data["layers"] = [layer]
    path = tmp_path / "deep.tmj"
    path.write_text(json.dumps(data))
    refused(weft("validate", str(path)), f"nested at most {NESTING} deep")
    value: dict = {}
    for _ in range(900):
        value = {"inner": value}
    data = one_layer_map([])
    data["properties"] = [{"name": "x", "type": "class", "value": value}]
    path.write_text(json.dumps(data))
    refused(weft("validate", str(path)), f"nested at most {NESTING} deep")


# -- nesting, budgets, numbers ----------------------------------------------------------------------


def test_a_toml_file_nested_2000_deep_is_one_line(tmp_path: Path) -> None:
    level = tmp_path / "deep.toml"
    level.write_text("x = " + "[" * 2000 + "]" * 2000 + "\n")
    refused(weft("validate", str(level)), f"nested at most {NESTING} deep")
    level.write_text("[world]\ngravity = " + "[" * 100 + "]" * 100 + "\n")
    (line,) = problems(level)
    assert "world.gravity" in line and f"nested at most {NESTING} deep" in line


def test_a_set_nested_2000_deep_is_one_line(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("")
    result = weft("run", str(level), "--frames", "1", "--set", "world.gravity=" + "[" * 3000 + "]" * 3000)
    refused(result, "--set world.gravity", "nested")
    result = weft("run", str(level), "--frames", "1", "--set", "a." * 2000 + "b=1")
    refused(result, f"nested at most {NESTING} deep")


def test_budgets_are_summed_over_tables(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("".join(f"[[cloth]]\nname = 'c{k}'\ncols = 400\nrows = 400\n" for k in range(100)))
    (line,) = problems(level)
    assert f"expected at most {PARTICLES} particles" in line and "cloth.0" in line
    level.write_text("".join(f"[[boxes]]\nname = 'b{k}'\ncount = {BOXES}\n" for k in range(20)))
    (line,) = problems(level)
    assert f"expected at most {BOXES} boxes" in line and "boxes.1" in line


def piled_pyramids(copies: int) -> str:
    """A level of ``copies`` of pyramid.toml's 55-box pyramid, every one at the same place."""
    table = "layout = 'pyramid'\ncount = 10\nsize = [40, 40]\nbase = [640, 0]\n"
    return "[world.rigid]\nsubsteps = 2\n" + "".join(
        f"[[boxes]]\nname = 'p{k}'\n{table}" for k in range(copies)
    )


def test_boxes_piled_inside_each_other_are_refused_at_the_table_that_passes_the_budget(
    tmp_path: Path,
) -> None:
    level = tmp_path / "pile.toml"
    level.write_text(piled_pyramids(100))  # 272250 pairs: 0.8 s a frame while they pushed apart
    started = time.perf_counter()
    for command in ("validate", "run"):
        (line,) = refused(weft(command, str(level), *(["--frames", "1"] if command == "run" else [])))
        # copy k overlaps the 55 × k boxes before it: past 2000 pairs at copy 9 (55 × 45 = 2475)
        assert line == (
            f"{level}: boxes.9: expected at most {BOX_OVERLAPS} overlapping box pairs at the start, got "
            f"{55 * 45} (counting up to this table): boxes placed inside each other (line {3 + 9 * 6})"
        )
    assert time.perf_counter() - started < TIMEOUT
    level.write_text(piled_pyramids(9))  # 1980 pairs: within the budget
    assert load_level(level).model.boxes[8].name == "p8"


@pytest.mark.parametrize(
    "table", ["[[boxes]]\ndensity = 5e-324", "[world.rigid]\ncontact_hertz = 5e-324\ndamping_ratio = 0.0"]
)
def test_subnormal_values_that_would_divide_to_nonsense_are_refused(tmp_path: Path, table: str) -> None:
    level = tmp_path / "level.toml"
    level.write_text(table + "\n")
    (line,) = problems(level)
    assert "expected a number >=" in line and "5e-324" in line


def test_a_key_or_value_holding_a_newline_stays_on_one_line(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text('[world]\n"bad\\nkey" = 1\n[[cloth]]\npattern = "gin\\ngham"\n')
    lines = problems(level)
    assert len(lines) == 2 and any("bad\\nkey" in line for line in lines)


def test_validate_of_4000_problems_is_linear(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("".join(f"[[boxes]]\nname = 'b{k}'\ncount = -1\n" for k in range(4000)))
    started = time.perf_counter()
    lines = refused(weft("validate", str(level)))
    took = time.perf_counter() - started
    assert len(lines) == 4000
    assert took < 60, f"validate took {took:.1f} s for 4000 problems (about 2 s measured here)"


# -- run time: clamped, never raised --------------------------------------------------------------


def test_the_tilt_tool_clamps_gravity_into_the_schema_and_says_so(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text(
        "[world]\ngravity = [-20000, -20000]\n[tools]\navailable = ['tilt']\nstart = 'tilt'\n"
        "[[balls]]\ncount = 4\n"
    )
    session = Session(Simulation(load_level(level)))
    session.apply({"type": "key_press", "key": "RIGHT"})
    session.apply({"type": "mouse_drag", "x": 0.0, "y": 0.0, "dx": 300.0, "dy": 0.0, "buttons": ["left"]})
    gx, gy = session.sim.level.model.world.gravity
    assert -20000 <= gx <= 20000 and -20000 <= gy <= 20000
    assert "clamped" in session.message
    session.run(2)


def test_a_slider_or_script_set_beyond_the_range_is_clamped_and_a_wrong_one_reported(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("[[balls]]\ncount = 4\n")
    session = Session(Simulation(load_level(level)))
    session.apply({"type": "set", "key": "world.iterations", "value": 10**9})
    assert session.sim.level.model.world.iterations == 200 and "clamped to 200" in session.message
    session.apply({"type": "set", "key": "world.gravty", "value": 1})
    assert "did you mean 'gravity'" in session.message
    session.run(2)


SHEET = "[world]\nsubsteps = 1\n[[cloth]]\ncols = 100\nrows = 100\nspacing = 5.0\norigin = [100, 700]\n"
"""A 100 × 100 sheet at one substep: 10000 particles, so ``PARTICLE_PASSES`` allows 60 iterations."""


def test_iterations_set_past_the_frame_budgets_are_clamped_to_the_most_they_allow(tmp_path: Path) -> None:
    from weft.game.level.load import with_value

    level_file = tmp_path / "level.toml"
    level_file.write_text(SHEET)
    level = load_level(level_file)
    with pytest.raises(LevelError, match="particle passes a frame"):
        with_value(level, ("world", "iterations"), 200)  # a level file or --set is refused...
    changed, notes = with_value(level, ("world", "iterations"), 200, clamp=True)  # ...a tool is clamped
    assert changed.model.world.iterations == PARTICLE_PASSES // 10000 == 60
    assert notes == ["world.iterations: 200 clamped to 60, the most the level's budgets allow"]
    changed, notes = with_value(level, ("world", "iterations"), 10**9, clamp=True)
    assert changed.model.world.iterations == 60 and notes[0].endswith("clamped to 200")
    changed, notes = with_value(level, ("world", "iterations"), 40, clamp=True)
    assert changed.model.world.iterations == 40 and notes == []
    session = Session(Simulation(level))
    session.apply({"type": "set", "key": "world.iterations", "value": 200})
    assert session.sim.settings.iterations == 60
    assert "200 clamped to 60, the most the level's budgets allow" in session.message
    session.run(1)


def test_run_says_on_stderr_what_a_script_set_past_the_budgets_was_clamped_to(tmp_path: Path) -> None:
    level_file = tmp_path / "level.toml"
    level_file.write_text(SHEET)
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"frame": 1, "type": "set", "key": "world.iterations", "value": 200}]))
    done = subprocess.run(
        [sys.executable, "-m", "weft", "run", str(level_file), "--frames", "3", "--input", str(script)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "clamped" in line]
    assert said == [  # the event at tick 1 comes before frame 2, the first stepped with the value
        "level.toml: frame 2: world.iterations: clamped into what the level allows (world.iterations: 200 "
        "clamped to 60, the most the level's budgets allow)"
    ]


def test_a_count_set_past_a_total_budget_is_clamped_and_a_rule_between_keys_still_refused(
    tmp_path: Path,
) -> None:
    from weft.game.level.load import with_value

    level_file = tmp_path / "level.toml"
    level_file.write_text(
        "[world]\nbounds = [0, 0, 8192, 8192]\n[world.rigid]\nsubsteps = 4\niterations = 1\n"
        "[[boxes]]\nname = 'a'\nlayout = 'pyramid'\ncount = 100\nbase = [2000, 0]\n"
        "[[boxes]]\nname = 'b'\nlayout = 'pyramid'\ncount = 10\nbase = [6000, 0]\n"
    )
    level = load_level(level_file)
    with pytest.raises(LevelError, match=f"expected at most {BOXES} boxes"):
        with_value(level, ("boxes", 1, "count"), 60)
    changed, notes = with_value(level, ("boxes", 1, "count"), 60, clamp=True)
    # the large pyramid's 5050 boxes leave room for a pyramid 43 wide (946 boxes) within BOXES
    assert changed.model.boxes[1].count == 43 and 5050 + 946 <= BOXES < 5050 + 44 * 45 // 2
    assert notes == ["boxes.1.count: 60 clamped to 43, the most the level's budgets allow"]
    with pytest.raises(LevelError, match="expected a sheet inside the world"):
        with_value(load_level(_written(tmp_path, SHEET)), ("cloth", 0, "cols"), 300, clamp=True)


def _written(folder: Path, text: str) -> Path:
    path = folder / "other.toml"
    path.write_text(text)
    return path


def test_a_script_with_bad_events_is_refused_before_the_run(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("[[balls]]\ncount = 4\n")
    script = tmp_path / "script.json"
    events = [
        {"frame": 0, "type": "set", "key": "world.gravty", "value": [0, 1]},
        {"frame": 1, "type": "tool", "name": "explode"},
        {"frame": True, "type": "key_press", "key": "SPACE"},
        {"frame": 2, "type": "set", "key": "world.iterations", "value": "many"},
    ]
    script.write_text(json.dumps(events))
    refused(weft("run", str(level), "--frames", "3", "--input", str(script)), "event 2.frame")
    script.write_text(json.dumps([events[0], events[1], events[3]]))
    refused(
        weft("run", str(level), "--frames", "3", "--input", str(script)),
        "event 0: ",
        "event 1.name: expected a tool the level offers",
        "event 2: ",
    )


def test_a_script_of_a_million_events_is_refused_by_its_length(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("")
    script = tmp_path / "script.json"
    event = {"frame": 0, "type": "key_press", "key": "D"}
    script.write_text(json.dumps([event] * 1_000_000))
    refused(weft("run", str(level), "--frames", "1", "--input", str(script)), "of at most 32 MB")
    script.write_text(json.dumps([event] * (SCRIPT_EVENTS + 1), separators=(",", ":")))
    result = weft("run", str(level), "--frames", "1", "--input", str(script))
    refused(result, f"at most {SCRIPT_EVENTS} events")
    script.write_text("[" * 5000 + "]" * 5000)
    refused(weft("run", str(level), "--frames", "1", "--input", str(script)), "nested")


# -- imports --------------------------------------------------------------------------------------


SYSTEM = """
from weft.systems.schedule import Stage, System


class Wells(System):
    name = "wells"
    stage = Stage.FRAME_END

    def process(self, *args, **kwargs):
        pass
"""


def test_allow_import_never_imports_from_the_current_or_the_levels_folder(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    (tmp_path / "wells.py").write_text(f"open({str(marker)!r}, 'w').close()\n" + SYSTEM)
    level = tmp_path / "level.toml"
    level.write_text('[[system]]\nname = "wells:Wells"\n')
    result = weft("run", str(level), "--frames", "1", "--allow-import", "wells", cwd=tmp_path)
    refused(result, "could not import 'wells'")
    assert not marker.exists()
    assert "None" not in result.stderr
    result = weft("run", str(level), "--frames", "1", "--allow-import", f"{tmp_path}:wells", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert marker.exists()


# -- outputs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "target", "expected"),
    [
        ("--metrics", "FOLDER", "got a folder"),
        ("--state", "FOLDER/missing/state.json", "got no folder"),
        ("--screenshot", "FOLDER/shot", "ending in .png"),
        ("--metrics", "/dev/full", "device"),
    ],
)
def test_every_output_mistake_is_one_line_before_the_run(
    tmp_path: Path, option: str, target: str, expected: str
) -> None:
    level = tmp_path / "level.toml"
    level.write_text("")
    result = weft("run", str(level), "--frames", "1", option, target.replace("FOLDER", str(tmp_path)))
    (line,) = refused(result, expected)
    assert result.returncode == 2 and line.startswith(option)


def test_sigterm_during_a_run_writes_the_metrics_and_state_of_the_frames_done(tmp_path: Path) -> None:
    level = tmp_path / "level.toml"
    level.write_text("[[balls]]\ncount = 200\n")
    metrics, state, shot = tmp_path / "m.json", tmp_path / "s.json", tmp_path / "shot.png"
    env = {**os.environ, "ARCADE_HEADLESS": "1", "PYTHONPATH": ""}
    args = ["run", str(level), "--frames", "10000000", "--metrics", str(metrics), "--state", str(state)]
    process = subprocess.Popen(
        [sys.executable, "-m", "weft", *args, "--screenshot", str(shot)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_limit_memory,
    )
    time.sleep(10.0)  # past the imports: the handler is set before the first frame (which may compile)
    process.terminate()
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 128 + 15, err
    assert "Traceback" not in err and "stopped by SIGTERM" in err
    assert json.loads(metrics.read_text())["frames"] >= 0
    assert "bodies" in json.loads(state.read_text())
    assert not shot.exists() and not list(tmp_path.glob(".*.partial"))


def test_problem_lines_escape_control_characters() -> None:
    assert str(Problem("a\nb.toml", ("k\r",), "got 'x\ny'")) == "a\\nb.toml: k\\r: got 'x\\ny'"


def test_the_finiteness_guard_names_the_first_system_that_makes_a_nan(tmp_path: Path) -> None:
    module = tmp_path / "poison.py"
    module.write_text(
        "import numpy as np\n"
        "from weft.systems import world\n"
        "from weft.systems.schedule import Stage, System\n\n\n"
        "class Poison(System):\n"
        "    name = 'poison'\n"
        "    stage = Stage.FRAME_END\n\n"
        "    def process(self, step):\n"
        "        world.stores().particles.pos[0, 0] = np.nan\n"
    )
    level = tmp_path / "level" / "level.toml"
    level.parent.mkdir()
    level.write_text('[[balls]]\ncount = 4\n[[system]]\nname = "poison:Poison"\n')
    env = {**os.environ, "ARCADE_HEADLESS": "1", "PYTHONPATH": str(tmp_path), "WEFT_CHECK_FINITE": "1"}
    code = "import sys; from weft.game.cli import main; sys.exit(main(sys.argv[1:]))"
    result = subprocess.run(
        [sys.executable, "-c", code, "run", str(level), "--frames", "2", "--allow-import", "poison"],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert (
        "NonFinite: frame 0: system 'poison' left a non-finite value in particle positions" in result.stderr
    )


def test_hot_reload_lists_a_2000_deep_save_and_keeps_the_last_good_level(tmp_path: Path) -> None:
    from weft.game.reload import LevelWatcher

    level = tmp_path / "level.toml"
    level.write_text("[[balls]]\ncount = 4\n")
    watcher = LevelWatcher(level, settle=0)
    level.write_text("[[balls]]\ncount = 4\nx = " + "[" * 2000 + "]" * 2000 + "\n")
    os.utime(level, ns=(2_000_000_000_000, 2_000_000_000_000))
    assert watcher.check() is None
    (line,) = watcher.problems
    assert f"nested at most {NESTING} deep" in line


def test_the_picker_hashes_a_level_whose_texture_is_dev_zero_without_hanging(tmp_path: Path) -> None:
    (tmp_path / "zero.png").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo.png")
    level = tmp_path / "level.toml"
    level.write_text("[[cloth]]\ntexture = 'zero.png'\n[[cloth]]\nname = 'b'\ntexture = 'fifo.png'\n")
    code = (
        "from pathlib import Path; from weft.game.thumbnails import content_key; "
        f"print(content_key(Path({str(level)!r})))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limit_memory,
    )
    assert result.returncode == 0 and len(result.stdout.strip()) == 64, result.stderr


def test_a_filmstrip_of_a_huge_level_is_one_sheet_of_bounded_size() -> None:
    from PIL import Image

    from weft.game.filmstrip import FILMSTRIP_PIXELS, Filmstrip

    strip = Filmstrip((8192, 8192), 200)  # 200 pictures of an 8192² level: 4.5 GB at a third of their size
    width, height = strip.sheet.size
    assert width * height <= FILMSTRIP_PIXELS
    strip.add("frame 1", Image.new("RGB", (64, 64)))  # each picture is shrunk into its tile as taken
    assert strip.added == 1 and strip.sheet.size == (width, height)
