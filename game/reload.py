"""Hot reload: watch a level file and the textures it names, reload it when one is saved.

No window here, and no file-watching dependency: the watcher compares each
file's modification time and size a few times a second, which costs a few
``stat`` calls. The window asks ``poll`` every update; tests call ``check``.

Example::

    watcher = LevelWatcher(Path("levels/cloth.toml"))
    level = watcher.poll()          # None: nothing new (or the new file is broken)
    if level is not None:
        session = Session(Simulation(level))
    for line in watcher.problems:   # why the last save could not be used
        print(line)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from weft.game.catalog import Signature, named_files, signature
from weft.game.level import LevelError, load_level
from weft.game.level.loaded import LoadedLevel
from weft.game.level.problems import one_line

POLL_INTERVAL = 0.25
"""s between looks at the files: a save shows within a quarter second, for four stat calls a second."""

SETTLE = 0.2
"""s a changed file must stay unchanged before it is read: an editor's save written in pieces
is read whole, not cut off at a line end (which may well be valid TOML: an empty level)."""


class LevelWatcher:
    """Reloads a level when its file or a texture it names changes; keeps the problems of a bad save.

    ``problems`` is empty while the running level is the file's latest
    version; after a save that does not load, it holds one line per problem
    and the caller keeps running the last good level. It empties again when
    a fixed save loads. Between saves the watched files are the level file,
    the textures of the last good version and those the broken file names
    (so adding a missing texture triggers the next try).
    """

    def __init__(
        self,
        source: Path,
        overrides: Sequence[str] = (),
        allow_import: Sequence[str] = (),
        interval: float = POLL_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
        settle: float = SETTLE,
    ) -> None:
        self.source = Path(source)
        self.overrides = tuple(overrides)
        """``--set KEY=VALUE`` overrides re-applied to every reload (changes made in the panel are not)."""
        self.allow_import = tuple(allow_import)
        """``--allow-import`` patterns, passed on to every reload."""
        self.interval = interval
        self.settle = settle
        self.problems: list[str] = []
        self._clock = clock
        self._last_poll = clock()
        self._good_files = named_files(self.source)
        self._seen = self._signatures(self._good_files)
        self._changing: tuple[dict[Path, Signature], float] | None = None
        """The changed signatures last seen, and since when they have not changed."""

    @property
    def files(self) -> list[Path]:
        """The files being watched."""
        return list(self._seen)

    def poll(self) -> LoadedLevel | None:
        """``check`` at most once every ``interval`` seconds; None in between."""
        now = self._clock()
        if now - self._last_poll < self.interval:
            return None
        self._last_poll = now
        return self.check()

    def check(self) -> LoadedLevel | None:
        """Reload if a watched file changed and has stayed unchanged for ``settle`` s since; the new
        level, or None (no change, still being written, or broken: ``problems``)."""
        current = self._signatures(self._seen)
        if current == self._seen:
            self._changing = None
            return None
        now = self._clock()
        if self._changing is None or self._changing[0] != current:
            self._changing = (current, now)
        if now - self._changing[1] < self.settle:
            return None
        self._changing = None
        files = named_files(self.source)
        # signatures taken before reading: a save landing during the load is seen next time
        before = self._signatures([*files, *self._good_files])
        try:
            level = load_level(self.source, self.overrides, self.allow_import)
        except LevelError as error:
            self.problems = [str(problem) for problem in error.problems]
            self._seen = before
            return None
        except (OSError, RecursionError, ValueError, MemoryError) as error:  # never into the window
            self.problems = [
                one_line(f"{self.source.name}: could not be read: {type(error).__name__}: {error}")
            ]
            self._seen = before
            return None
        self.problems = []
        self._good_files = files
        self._seen = {path: before[path] for path in files}
        return level

    @staticmethod
    def _signatures(files: Sequence[Path]) -> dict[Path, Signature]:
        return {path: signature(path) for path in files}
