"""Same level, same input, same bits."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import run_game
from support.golden import SCRIPT

from weft.game.events import save_script
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.levels import DEFAULT_LEVEL


def run_script(script: list[dict]) -> Session:
    session = Session(Simulation.load(DEFAULT_LEVEL))
    session.run(150, script)
    return session


def test_same_level_and_script_give_the_same_state_hash() -> None:
    first = run_script(SCRIPT)
    second = run_script(SCRIPT)
    assert first.sim.metrics()["counts"]["torn"] > 0  # the script did something
    assert first.sim.state_hash() == second.sim.state_hash()


def test_a_recording_replays_to_the_same_state() -> None:
    live = Session(Simulation.load(DEFAULT_LEVEL))
    # events arrive between ticks, as they do in the window
    by_frame: dict[int, list[dict]] = {}
    for event in SCRIPT:
        by_frame.setdefault(event["frame"], []).append({k: v for k, v in event.items() if k != "frame"})
    for tick in range(150):
        for event in by_frame.get(tick, []):
            live.queue(event)
        live.advance()
    replayed = run_script(live.log)
    assert replayed.sim.state_hash() == live.sim.state_hash()


def test_cli_runs_of_the_same_script_print_the_same_hash(tmp_path: Path) -> None:
    script = tmp_path / "input.json"
    save_script(script, SCRIPT)
    hashes = []
    for k in range(2):
        metrics = tmp_path / f"metrics{k}.json"
        result = run_game(
            "run", str(DEFAULT_LEVEL), "--frames", "120", "--input", str(script), "--metrics", str(metrics)
        )
        assert result.returncode == 0, result.stderr
        hashes.append(json.loads(metrics.read_text())["state_hash"])
    assert hashes[0] == hashes[1]


def test_drawing_pictures_never_changes_the_simulation(tmp_path: Path) -> None:
    script = tmp_path / "input.json"
    save_script(script, SCRIPT)
    common = ("run", str(DEFAULT_LEVEL), "--frames", "100", "--input", str(script))
    plain = run_game(*common, "--metrics", str(tmp_path / "plain.json"))
    drawn = run_game(
        *common,
        "--filmstrip",
        str(tmp_path / "strip.png"),
        "--every",
        "20",
        "--metrics",
        str(tmp_path / "drawn.json"),
    )
    assert plain.returncode == 0 and drawn.returncode == 0, plain.stderr + drawn.stderr
    hashes = [
        json.loads((tmp_path / f"{name}.json").read_text())["state_hash"] for name in ("plain", "drawn")
    ]
    assert hashes[0] == hashes[1]
