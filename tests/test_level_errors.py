"""A bad level gets one readable line per problem, all at once, and exit code 1: never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import run_game

from weft.game.level import LevelError
from weft.levels import DEFAULT_LEVEL, LEVELS_DIR


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


def validate_lines(path: Path) -> list[str]:
    result = run_game("validate", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    return result.stderr.splitlines()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "[world]\niteratons = 4\n",
            "world.iteratons: expected one of gravity, damping, iterations, substeps, bounds, "
            "floor_friction, background, restitution, friction, max_circles, wind, rigid, got unknown key "
            "'iteratons'; did you mean 'iterations'? (line 2)",
        ),
        (
            '[world]\niterations = "ten"\n',
            'world.iterations: expected an integer, got "ten" (a string) (line 2)',
        ),
        ("[world]\niterations = 0\n", "world.iterations: expected an integer >= 1, got 0 (line 2)"),
        (
            '[[boxes]]\nlayout = "list"\npositions = [[100, 20], [-40, 20]]\n',
            "boxes.0.positions.1: expected the boxes' centres inside the world [0, 0, 1280, 720], got "
            "box 1's at (-40, 20) (line 3)",
        ),
        (
            "[[skeleton]]\nposition = [3000, 300]\n"
            'joints = [{ name = "a", at = [0, 0] }, { name = "b", at = [0, 50] }]\n'
            'bones = [{ name = "ab", head = "a", tail = "b" }]\n',
            "skeleton.0.joints.0.at: expected a joint inside the world [0, 0, 1280, 720] (with `position` "
            "[3000.0, 300.0]), got 'a' at (3000, 300) (line 3)",
        ),
        ("[world]\ndamping = 1.5\n", "world.damping: expected a number <= 1.0, got 1.5 (line 2)"),
        ("[world]\ngravity = [0, nan]\n", "world.gravity.1: expected a finite number, got nan (line 2)"),
        (
            "[[clth]]\ncols = 4\n",
            "clth: expected one of level, world, cloth, balls, creature, boxes, skeleton, system, tools, "
            "panel, view, got unknown key 'clth'; did you mean 'cloth'? (line 1)",
        ),
        (
            '[[cloth]]\npins = { layout = "evry" }\n',
            "cloth.0.pins.layout: expected one of 'every', 'ends', 'top', 'list' or 'none', "
            "got \"evry\" (a string); did you mean 'every'? (line 2)",
        ),
        (
            '[[cloth]]\ncols = 4\nrows = 4\npins = { layout = "list", points = [[1, 9]] }\n',
            "cloth.0.pins.points.0: expected a [column, row] inside the 4 × 4 sheet, got [1, 9] (line 4)",
        ),
        (
            '[[cloth]]\ntexture = "nowhere.png"\n',
            "cloth.0.texture: expected an image file (PNG or JPEG), got 'nowhere.png' (no such file) "
            "(line 2)",
        ),
        (
            "[[balls]]\ncount = 10\nradius = [5, 5]\nregion = [5000, 5000, 6000, 6000]\n",
            "balls.0.region: expected circles inside the world [0, 0, 1280, 720], got 10 of radius up to 5 "
            "packed into region [5000.0, 5000.0, 6000.0, 6000.0] from its bottom left, reaching x 5000 to "
            "5104, y 5000 to 5010 (line 4)",
        ),
        (
            "[[balls]]\npositions = [[10, 10], [-5, 3]]\n",
            "balls.0.positions.1: expected a centre inside the world [0, 0, 1280, 720], got [-5.0, 3.0] "
            "(line 2)",
        ),
    ],
    ids=[
        "unknown key",
        "wrong type",
        "out of range",
        "a box outside",
        "a joint outside",
        "float bound",
        "nan",
        "body kind",
        "choice",
        "pin",
        "file",
        "circles outside",
        "a circle outside",
    ],
)
def test_one_mistake_gives_the_expected_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    assert validate_lines(path) == [f"{path}: {expected}"]


def test_toml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "[world]\niterations = \n")
    assert validate_lines(path) == [
        f"{path}: line 2, column 14: expected valid TOML, got a syntax error: Invalid value"
    ]


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, '[world]\niterations = 0\ndamping = 2.0\n[[cloth]]\ncols = "x"\nfoo = 1\n')
    lines = validate_lines(path)
    assert [line.split(": ")[1] for line in lines] == [
        "world.iterations",
        "world.damping",
        "cloth.0.cols",
        "cloth.0.foo",
    ]


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    assert validate_lines(missing) == [
        f"{missing}: expected a level file (TOML), got 'nope.toml' (no such file)"
    ]


def test_run_with_a_bad_set_names_the_key(tmp_path: Path) -> None:
    result = run_game("run", "levels/cloth.toml", "--frames", "1", "--set", "world.iterations=-3")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "levels/cloth.toml: world.iterations: expected an integer >= 1, got -3 (set by --set)"
    )


def test_live_set_with_a_bad_value_leaves_the_simulation_unchanged() -> None:
    from weft.game.simulation import Simulation

    sim = Simulation.load(DEFAULT_LEVEL)
    with pytest.raises(LevelError, match=r"world\.iterations: expected an integer <= 200, got 1000"):
        sim.set("world.iterations", 1000)
    assert sim.settings.iterations == 20
    assert sim.level.model.world.iterations == 20


def test_circles_packed_from_a_region_wider_than_the_world_may_start_where_their_rows_fit(
    tmp_path: Path,
) -> None:
    from weft.game.level.load import validate

    small = {"world": {"bounds": [0, 0, 800, 600]}, "balls": [{"count": 10}]}  # the default region
    validate(small, tmp_path / "small.toml")  # ten circles fill the bottom left of it: inside
    small["balls"][0]["count"] = 2000
    with pytest.raises(LevelError) as raised:
        validate(small, tmp_path / "small.toml")
    (problem,) = raised.value.problems
    assert "balls.0.region: expected circles inside the world [0, 0, 800, 600], got 2000" in str(problem)


def test_a_truncated_texture_is_a_problem_where_the_level_names_it(tmp_path: Path) -> None:
    # before: its header was read alone, so validate said ok and the sheet was drawn with the
    # fallback pattern, silently
    whole = (LEVELS_DIR / "textures" / "dawn.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(whole[: len(whole) // 2])
    level = tmp_path / "level.toml"
    level.write_text('[[cloth]]\ntexture = "cut.png"\n')
    (line,) = validate_lines(level)
    assert line == (
        f"{level}: cloth.0.texture: expected an image file (PNG or JPEG), got 'cut.png' "
        "(Truncated File Read) (line 2)"
    )
