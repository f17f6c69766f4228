"""``weft`` (or ``python -m weft``): play, run headless, validate levels, benchmark.

A user's mistake (a bad level, a bad script, a bad ``--set``) prints one
line per problem and exits 1, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import statistics
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from weft import __version__
from weft.folders import PACKAGE_DIR, source_checkout
from weft.game.events import ScriptError, load_script, script_problems
from weft.game.level import LevelError, load_level
from weft.game.level.plugins import unchecked
from weft.game.output import output_problem, write_atomically
from weft.game.simulation import Simulation
from weft.game.warmup import kernels_ready
from weft.levels import DEFAULT_LEVEL
from weft.systems.schedule import SystemFailed

USER_ERROR = 1


def command() -> NoReturn:
    """The ``weft`` command and ``python -m weft``: ``main`` on the process's arguments, then the
    process ends at once with its exit code.

    Python's own ending frees every object one by one, numba's kernels and
    LLVM's modules among them: 1 s of a cold ``run`` of the rag doll (0.4 s
    warm) that a player waits through for nothing. So the output is flushed
    and the process ends itself (``os._exit``), skipping that and ``atexit``'s
    functions: every file weft writes is whole and closed before ``main``
    returns (``write_atomically``), and no thread of ours is left writing.
    An exception ``main`` lets out ends the process the usual way.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (``weft run | head``)
            stream.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``weft`` command and ``python -m weft``; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:  # bare `weft`: the level picker
        args = parser.parse_args(["play"])
    command = args.command
    try:
        if command == "play":
            return _play(args)
        if command == "run":
            return _run(args)
        if command == "validate":
            return _validate(args)
        if command == "bench":
            return _bench(args)
        if command == "schema":
            return _schema(args)
        if command == "systems":
            return _systems()
        if command == "warmup":
            return _warmup(args)
    except (LevelError, ScriptError) as error:
        print(error, file=sys.stderr)
        return USER_ERROR
    except KeyboardInterrupt:  # Ctrl-C outside a run's frames: a line, not a traceback
        print(f"weft {command}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    parser.error(f"unknown command {command!r}")
    return USER_ERROR


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="weft",
        description="Weft: tearable cloth and friends, simulated with esper and numba, drawn with Arcade.",
    )
    parser.add_argument("--version", action="version", version=f"weft {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = commands.add_parser("play", help="open the window on a level (the default command)")
    play.add_argument("level", nargs="?", help="level file (default: the level picker)")
    play.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a level key")
    play.add_argument("--record", metavar="FILE", help="write every input event to FILE (JSON) on exit")
    play.add_argument("--replay", metavar="FILE", help="play an input script back in the window")
    _allow_import_option(play)

    run = commands.add_parser("run", help="simulate a level headless and report")
    run.add_argument("level", help="level file")
    run.add_argument("--frames", type=_positive_int, required=True, help="frames of 1/60 s to simulate")
    run.add_argument("--input", metavar="SCRIPT", help="input script (JSON) to replay")
    run.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a level key")
    run.add_argument("--metrics", metavar="OUT", help="write the metrics JSON here")
    run.add_argument("--state", metavar="OUT", help="write every body's positions (JSON) here")
    run.add_argument("--screenshot", metavar="OUT", help="write a PNG of the last frame here")
    run.add_argument("--filmstrip", metavar="OUT", help="write a PNG of every K-th frame here")
    run.add_argument("--every", type=_positive_int, default=10, metavar="K", help="filmstrip spacing (10)")
    run.add_argument("--profile", action="store_true", help="print each system's share of a frame at the end")
    _allow_import_option(run)

    validate = commands.add_parser("validate", help="check level files; exit 1 listing every problem")
    validate.add_argument("levels", nargs="+", metavar="LEVEL")

    bench = commands.add_parser("bench", help="benchmark scenes, side by side with pymunk")
    bench.add_argument("scenes", nargs="*", metavar="SCENE", help="scenes to run (default: all)")
    bench.add_argument("--json", action="store_true", help="print the results as JSON")
    bench.add_argument("--frames", type=_positive_int, default=240, help="measured frames per scene (240)")
    bench.add_argument(
        "--busy",
        action="store_true",
        help="run each scene twice: quiet, then with every other core busy (median and 95th percentile)",
    )
    bench.add_argument(
        "--cold",
        action="store_true",
        help="time first starts instead: a cold run of each shipped level, then a cold warmup (minutes)",
    )

    schema = commands.add_parser("schema", help="regenerate levels/level.schema.json and docs/levels.md")
    schema.add_argument("--check", action="store_true", help="only report whether they are up to date")
    schema.add_argument(
        "--out", metavar="FOLDER", help="write them into FOLDER (levels/, docs/), not the source checkout"
    )

    commands.add_parser("systems", help="list the built-in and custom systems, with stages and parameters")
    warmup = commands.add_parser(
        "warmup",
        help="compile every kernel now (a minute, once per version), for install scripts and CI; "
        "with LEVELs, what those levels need",
    )
    warmup.add_argument(
        "levels", nargs="*", metavar="LEVEL", help="level files (default: every shipped level)"
    )
    warmup.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override a level key"
    )
    _allow_import_option(warmup)
    return parser


def _allow_import_option(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--allow-import",
        action="append",
        default=[],
        metavar="PATTERN",
        help='let the level\'s "module:attr" systems import modules matching PATTERN (fnmatch: my_plugin, '
        "my_plugin.*), found on the import path but never in the current or the level's folder unless "
        "given as FOLDER:PATTERN (./plugins:my_plugin); repeatable; a level file can never allow this itself",
    )


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _play(args: argparse.Namespace) -> int:
    if args.level is None and (args.set or args.replay):
        print(
            "--set and --replay need a LEVEL: without one the window opens on the level picker",
            file=sys.stderr,
        )
        return USER_ERROR
    # on a first start the checks that run kernels wait for them: the window says it compiles first
    level = load_level(args.level, args.set, args.allow_import, kernels_ready()) if args.level else None
    script = load_script(args.replay) if args.replay else []
    if not _has_display():
        print(
            "play needs a display to open its window, and there is none here "
            "(no DISPLAY, or ARCADE_HEADLESS is set); "
            f"`weft run {args.level or DEFAULT_LEVEL} --frames 600 --screenshot out.png` "
            "works headless",
            file=sys.stderr,
        )
        return USER_ERROR
    from weft.game.window import NoWindow, play  # arcade only when a window is wanted

    try:
        play(level, record=args.record, script=script, overrides=args.set, allow_import=args.allow_import)
    except NoWindow:
        where = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or "default"
        print(
            f"play could not open its window: the display {where} does not answer (is its server "
            "running, and may this user connect?); "
            f"`weft run {args.level or DEFAULT_LEVEL} --frames 600 --screenshot out.png` works headless",
            file=sys.stderr,
        )
        return USER_ERROR
    return 0


def _has_display() -> bool:
    """Whether a window can open: on Linux that needs X11 or Wayland, and no headless request."""
    if os.environ.get("ARCADE_HEADLESS"):
        return False
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _run(args: argparse.Namespace) -> int:
    from weft.game.progress import Progress
    from weft.game.session import Session
    from weft.game.warmup import FirstStart, compile_level_apart, compile_like_apart

    outputs = _outputs(args)
    problems = [problem for path, option, kind in outputs if (problem := output_problem(path, option, kind))]
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return OUTPUT_ERROR
    # on a first start the checks that run kernels wait for them (``Simulation`` makes them): the
    # line that says it compiles comes first, and the kernels compile on both cores
    level = load_level(args.level, args.set, args.allow_import, kernels_ready())
    script = load_script(args.input) if args.input else []
    script_lines = script_problems(script, level, args.input) if args.input else []
    if script_lines:
        print("\n".join(script_lines), file=sys.stderr)
        return USER_ERROR
    first_start = FirstStart(Path(args.level), sys.stderr)  # a cold cache compiles: say so
    try:
        compile_level_apart(Path(args.level), args.set)  # on both cores, when cold
        sim = Simulation(level)
        compile_like_apart(sim, Path(args.level), args.set)  # a level of one's own: a plan alike
    except BaseException:  # refused by its kernel checks, or interrupted: no line after the error
        first_start.cancel()
        raise
    session = Session(sim)
    session.follow(script)
    pictures = None
    if args.screenshot or args.filmstrip:
        from weft.game.offscreen import Offscreen  # an offscreen GL context only when a picture is asked for

        pictures = Offscreen(session)
    strip = None
    if pictures and args.filmstrip:
        from weft.game.filmstrip import Filmstrip

        strip = Filmstrip(pictures.size, args.frames // args.every)
    progress = Progress(args.frames, label=Path(args.level).name)  # draws only on a terminal (stderr)
    profile: list[tuple[dict[str, float], float]] | None = [] if args.profile else None
    failure: SystemFailed | None = None
    with progress, _stop_signals() as stop:
        for k in progress.track(args.frames):
            before = sim.frame
            if profile is not None:
                sim.schedule.timings = {}
            try:
                session.advance()
            except SystemFailed as error:  # the level's own code: one line, and the frames done written
                failure = error
                break
            timings = sim.schedule.timings
            # a frame stepped on the schedule timed (not paused by the script, nor rebuilt by it)
            if profile is not None and timings is not None and sim.frame == before + 1:
                profile.append((timings, sim.step_ms[-1]))
            first_start.first_frame_done()
            # a script's value clamped or refused, a custom system's setting brought back into range
            for note in session.event_notes + session.settings_notes:
                print(f"{Path(args.level).name}: frame {sim.frame}: {note}", file=sys.stderr)
            if strip is not None and (k + 1) % args.every == 0:
                strip.add(f"frame {sim.frame}", pictures.capture())
            if stop.caught is not None:
                break
        stopped = stop.caught
        cut_short = stopped is not None or failure is not None
        failed = _write_outputs(args, sim, None if cut_short else pictures, strip)
    name = Path(args.level).name
    written = [option for option, asked in (("metrics", args.metrics), ("state", args.state)) if asked]
    kept = f"; the {' and '.join(written)} of the frames done are written" if written else ""
    if failure is not None:
        print(f"{name}: {failure}{kept}", file=sys.stderr)
        return USER_ERROR
    if stopped is not None:
        print(f"{name}: stopped by {stopped.name} after frame {sim.frame}{kept}", file=sys.stderr)
        return 128 + stopped.value
    print(_summary(Path(args.level).name, sim.metrics()))
    if profile:
        print(profile_table(profile))
    return OUTPUT_ERROR if failed else 0


OUTPUT_ERROR = 2
"""Exit code of a run whose outputs cannot be written (checked before it starts)."""


def _outputs(args: argparse.Namespace) -> list[tuple[Path, str, tuple[str, ...]]]:
    """Every output file ``run`` was asked for: its path, option and the suffixes it must have."""
    asked = [
        (args.metrics, "--metrics", ()),
        (args.state, "--state", ()),
        (args.screenshot, "--screenshot", (".png",)),
        (args.filmstrip, "--filmstrip", (".png",)),
    ]
    return [(Path(path), option, kind) for path, option, kind in asked if path]


def _write_outputs(args: argparse.Namespace, sim: Simulation, pictures: Any, strip: Any) -> bool:
    """Write the metrics and state first, then the pictures; True if any could not be written.

    A picture that fails (GL, disk) is one line and never costs the metrics and the state.
    """
    from weft.game.filmstrip import save_png

    writes = []
    if args.metrics:
        writes.append(("--metrics", lambda: _write_json(args.metrics, sim.metrics())))
    if args.state:
        writes.append(("--state", lambda: _write_json(args.state, sim.state())))
    if pictures is not None and strip is not None:
        writes.append(("--filmstrip", lambda: strip.save(Path(args.filmstrip))))
    if pictures is not None and args.screenshot:
        writes.append(("--screenshot", lambda: save_png(pictures.capture(), Path(args.screenshot))))
    failed = False
    for option, write in writes:
        try:
            write()
        except Exception as error:  # an output that fails is one line; the others are still written
            failed = True
            print(
                f"{option}: not written: {type(error).__name__}: {' '.join(str(error).split())}",
                file=sys.stderr,
            )
    return failed


class _StopSignals:
    """Notes SIGINT or SIGTERM during a run (``caught``): the run stops after the frame it is in and
    writes what was finished. A second signal does not wait (a ``KeyboardInterrupt``)."""

    def __init__(self) -> None:
        self.caught: signal.Signals | None = None

    def __call__(self, number: int, frame: Any) -> None:
        if self.caught is not None:
            raise KeyboardInterrupt
        self.caught = signal.Signals(number)


@contextlib.contextmanager
def _stop_signals() -> Iterator[_StopSignals]:
    handler = _StopSignals()
    previous = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield handler
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


def _summary(name: str, metrics: dict[str, Any]) -> str:
    """One line on what ran: the bodies the level has, the step's cost and the stability measures."""
    counts = metrics["counts"]
    settled = metrics["settled_frame"]
    parts = [f"{name}: {metrics['frames']} frames"]
    if counts["particles"]:
        parts.append(f"{counts['particles']} particles")
    if counts["threads"]:
        alive = counts["threads"] - counts["torn"]
        parts.append(f"{alive}/{counts['threads']} threads alive ({counts['torn']} torn)")
    if counts["rigid_bodies"]:
        parts.append(f"{counts['rigid_bodies']} boxes ({counts['sleeping']} asleep)")
    parts.append(f"step {metrics['step_ms']['median']:.2f} ms median / {metrics['step_ms']['p95']:.2f} p95")
    if counts["constraints"]:
        parts.append(f"max stretch {metrics['max_stretch'] * 100:.2f}%")
    if counts["rigid_bodies"]:
        parts.append(f"max penetration {metrics['max_penetration']:.3f} px")
    parts.append(f"settled {'never' if settled is None else f'at frame {settled}'}")
    parts.append(f"hash {metrics['state_hash'][:12]}")
    return ", ".join(parts)


def profile_table(frames: Sequence[tuple[dict[str, float], float]]) -> str:
    """``weft run --profile``: each system's median ms a frame over ``frames`` (each frame's
    ``Schedule.timings`` and its step's ms), in the order they first ran, with its share of the median
    step; the rest is the schedule's own work and the step's around it (the thread choice, the
    world's entry). Medians: a first frame that loads kernels takes 100 times a usual one."""
    names = list(dict.fromkeys(name for timings, _ in frames for name in timings))
    rows = [
        (name, statistics.median(timings.get(name, 0.0) * 1e3 for timings, _ in frames)) for name in names
    ]
    rest = [ms - sum(timings.values()) * 1e3 for timings, ms in frames]
    rows.append(("(between and around)", statistics.median(rest)))
    step = statistics.median(ms for _, ms in frames)
    width = max(len(name) for name, _ in rows)
    lines = [f"profile: median ms a frame over {len(frames)} frames; the step {step:.3f} ms"]
    for name, ms in rows:
        lines.append(f"  {name:<{width}}  {ms:7.3f}  {100 * ms / step if step else 0.0:5.1f}%")
    return "\n".join(lines)


def _write_json(path: str, data: Any) -> None:
    """``data`` as JSON, written atomically; a NaN or an infinity (not JSON) written as null."""
    write_atomically(Path(path), json.dumps(_json_safe(data), indent=2) + "\n")


def _json_safe(data: Any) -> Any:
    """``data`` with every float that is not finite made None."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {key: _json_safe(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [_json_safe(value) for value in data]
    return data


def _validate(args: argparse.Namespace) -> int:
    failed = False
    for path in args.levels:
        try:
            level = load_level(path)
        except LevelError as error:
            failed = True
            print(error, file=sys.stderr)
        else:
            print(f"{path}: ok")
            for line in unchecked(level):  # names validate may not import to check
                print(line)
    return USER_ERROR if failed else 0


def _bench(args: argparse.Namespace) -> int:
    try:
        from weft.bench.run import run_scenes  # pymunk lives in bench/, never in the engine
    except ImportError as error:  # BenchUnavailable, or pymunk half there
        print(error, file=sys.stderr)
        return USER_ERROR
    return run_scenes(args.scenes, frames=args.frames, as_json=args.json, busy=args.busy, cold=args.cold)


def _warmup(args: argparse.Namespace) -> int:
    from weft.game.warmup import prepare_physics, report_to

    levels = [Path(level) for level in args.levels] or None
    problems = []
    for level in levels or ():  # every level's problems said before any line says it compiles
        try:
            load_level(level, args.set, args.allow_import, build=False)
        except LevelError as error:
            problems += error.problems
    if problems:
        raise LevelError(problems)
    seconds = prepare_physics(report_to(sys.stderr), levels, args.set, args.allow_import)
    print(f"physics ready in {seconds:.1f} s")
    return 0


def _systems() -> int:
    from weft.game.system_list import system_listing

    listing = system_listing()
    print(listing.text)
    for failure in listing.failures:
        print(failure, file=sys.stderr)
    return USER_ERROR if listing.failures else 0


def _schema(args: argparse.Namespace) -> int:
    from weft.game.level.reference import write_reference

    if args.out is None and not source_checkout():
        print(
            f"weft schema rewrites the files of a source checkout, and this copy of Weft is installed "
            f"({PACKAGE_DIR}), which is never written to: pass --out FOLDER to write the schema and "
            "the docs there",
            file=sys.stderr,
        )
        return USER_ERROR
    stale = write_reference(check_only=args.check, out=Path(args.out) if args.out else None)
    for path in stale:
        print(f"{path}: {'out of date' if args.check else 'written'}")
    return USER_ERROR if args.check and stale else 0
