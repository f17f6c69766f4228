"""Weft is one package, ``weft``: it runs beside a user's own game files, and its wheel is complete.

The wheel is built from a copy of the checkout (so the checkout gains no ``build/``) without an
isolated build environment (so without the network), then installed, not editable, into a new
virtual environment that borrows this one's dependencies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from support.cli import ROOT

import weft
from weft.levels import LEVELS_DIR

SHIPPED = sorted(p.relative_to(LEVELS_DIR) for p in LEVELS_DIR.rglob("*") if p.suffix in (".toml", ".tmj"))

USER_FILES = {
    "game.py": "raise SystemExit('the user\\'s own game.py ran')\n",
    "components.py": "raise ImportError('the user\\'s own components.py was imported')\n",
    "systems.py": "raise ImportError('the user\\'s own systems.py was imported')\n",
    "bench.py": "raise ImportError('the user\\'s own bench.py was imported')\n",
    "levels/__init__.py": "raise ImportError('the user\\'s own levels/ was imported')\n",
    "levels/mine.toml": '[level]\nname = "Mine"\n\n[[boxes]]\ncount = 2\n',
}
"""A user's game folder whose names Weft's own subpackages once had (each fails if imported)."""


def _user_folder(folder: Path) -> Path:
    for name, text in USER_FILES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def _run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "ARCADE_HEADLESS": "1", **env}
    environment.pop("PYTHONPATH", None)
    return subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=600)


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, f"{done.args}: {done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


@pytest.mark.parametrize("launcher", ["weft", "python -m weft"])
def test_weft_runs_from_a_folder_holding_a_users_own_game_levels_components_systems_and_bench(
    tmp_path: Path, launcher: str
) -> None:
    folder = _user_folder(tmp_path)
    script = Path(sysconfig.get_path("scripts")) / "weft"
    command = [str(script)] if launcher == "weft" else [sys.executable, "-m", "weft"]

    assert _ok(_run([*command, "--version"], folder)).strip() == f"weft {weft.__version__}"
    assert "usage: weft" in _ok(_run([*command, "--help"], folder))
    assert "ok" in _ok(
        _run([*command, "validate", str(LEVELS_DIR / "cloth.toml"), "levels/mine.toml"], folder)
    )
    summary = _ok(_run([*command, "run", "levels/mine.toml", "--frames", "3"], folder))
    assert summary.startswith("mine.toml: 3 frames") and "2 boxes" in summary
    assert "grab" in _ok(_run([*command, "systems"], folder))


def test_the_installed_distribution_offers_weft_and_no_other_top_level_name(tmp_path: Path) -> None:
    code = "import importlib.util as u; print([n for n in NAMES if u.find_spec(n)])".replace(
        "NAMES", repr(["game", "systems", "components", "levels", "bench", "weft"])
    )
    assert _ok(_run([sys.executable, "-c", code], tmp_path)).strip() == "['weft']"
    missing = _run([sys.executable, "-m", "game"], tmp_path)
    assert missing.returncode == 1 and "No module named game" in missing.stderr


def test_bench_without_pymunk_says_how_to_install_it(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['pymunk'] = None; from weft.game.cli import main; sys.exit(main(['bench']))"
    )
    done = _run([sys.executable, "-c", code], tmp_path)

    assert done.returncode == 1
    assert 'pip install "weft-physics[bench]"' in done.stderr and "Traceback" not in done.stderr


def test_schema_refuses_to_write_into_an_installed_copy_and_writes_into_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from weft import folders
    from weft.game.cli import main

    monkeypatch.setattr(folders, "source_checkout", lambda: False)
    monkeypatch.setattr("weft.game.cli.source_checkout", lambda: False)
    assert main(["schema"]) == 1
    assert "pass --out FOLDER" in capsys.readouterr().err

    assert main(["schema", "--out", str(tmp_path)]) == 0
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == [
        "docs/architecture.md",
        "docs/extending.md",
        "docs/levels.md",
        "docs/tiled.md",
        "levels/level.schema.json",
        "levels/tiled/weft.tiled-project",
    ]
    assert (tmp_path / "levels" / "level.schema.json").read_text() == (
        LEVELS_DIR / "level.schema.json"
    ).read_text()


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the checkout."""
    source = tmp_path_factory.mktemp("source") / "weft"
    junk = shutil.ignore_patterns(".git", "__pycache__", "build", "dist", "*.egg-info", ".venv", ".*_cache")
    shutil.copytree(ROOT, source, ignore=junk)
    out = tmp_path_factory.mktemp("wheel")
    built = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(source),
        ],
        source,
    )
    assert built.returncode == 0, built.stderr
    assert "SetuptoolsDeprecationWarning" not in built.stderr + built.stdout
    (path,) = out.glob("weft_physics-*.whl")
    return path


def test_the_wheel_holds_only_the_weft_package_with_every_level_texture_tiled_file_and_the_licence(
    wheel: Path,
) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    info = f"weft_physics-{weft.__version__}.dist-info"
    assert {name.split("/")[0] for name in names} == {"weft", info}
    for level in SHIPPED:
        assert f"weft/levels/{level.as_posix()}" in names
    for data in ("level.schema.json", "tiled/weft.tiled-project", "textures/dawn.png", "textures/doll.png"):
        assert f"weft/levels/{data}" in names
    assert "weft/systems/first_start.txt" in names  # the first start's record of box kernels
    assert f"{info}/licenses/LICENSE" in names
    assert not [name for name in names if name.startswith(("weft/tests/", "weft/docs/", "weft/examples/"))]
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Topic :: Scientific/Engineering :: Physics" in metadata
    assert "Provides-Extra: bench" in metadata


def test_installed_from_the_wheel_every_shipped_level_validates_and_runs_and_nothing_writes_into_it(
    wheel: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    _ok(_run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], tmp_path))
    bin_dir = venv / ("Scripts" if sys.platform == "win32" else "bin")
    python = bin_dir / "python"
    _ok(_run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", str(wheel)], tmp_path))
    where = _ok(_run([str(python), "-c", "import weft; print(weft.__file__)"], tmp_path)).strip()
    package = Path(where).parent
    assert package.parent.name == "site-packages", package  # this copy, not the checkout
    before = {p: p.stat().st_mtime_ns for p in package.rglob("*")}
    folder = _user_folder(tmp_path / "game")
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "NUMBA_DISABLE_JIT": "1"}  # kernels as Python

    assert _ok(_run([str(bin_dir / "weft"), "--version"], folder)).strip() == f"weft {weft.__version__}"
    levels = [str(package / "levels" / level) for level in SHIPPED]
    checked = _ok(_run([str(bin_dir / "weft"), "validate", *levels], folder, **cache))
    assert checked.count(": ok") == len(SHIPPED)
    for level in levels:
        _ok(_run([str(bin_dir / "weft"), "run", level, "--frames", "2"], folder, **cache))
    refused = _run([str(bin_dir / "weft"), "schema"], folder)
    assert refused.returncode == 1 and "pass --out FOLDER" in refused.stderr
    after = {p: p.stat().st_mtime_ns for p in package.rglob("*")}
    assert after == before, "the installed package was written to"
