"""Level thumbnails for the picker: rendered headless once, cached on disk by content.

A thumbnail is the level after ``THUMBNAIL_FRAMES`` frames (things have
fallen and draped), drawn by ``Offscreen`` and shrunk to ``THUMBNAIL_SIZE``.
It is stored in the user's cache folder (``~/.cache/weft/thumbnails`` on
Linux), never in the project, under the sha256 of the level file and the
textures it names: an edited level gets a new picture, an unchanged one is
never rendered again.

Rendering takes from 0.1 s to 2 s a level (5050 boxes), too long for one
frame of the picker, so a ``ThumbnailJob`` does it in pieces and the picker
gives it a few milliseconds each update. Measured on this project's 2-core
machine (llvmpipe), most pieces take under 10 ms; the longest are building
a level (0.4 s for the first one, which loads numba's compiled kernels;
0.24 s for the rag doll's skin weights), one frame of the 5050 boxes (40 ms)
and drawing or saving a picture (30-130 ms). So the first picker after an
install or an edit stutters now and then while the pictures appear; a
second process would avoid that at the cost of its own start-up and GL
context, and once cached no picture is drawn again.
"""

from __future__ import annotations

import hashlib
import io
import time
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from weft.budgets import LEVEL_FILE_BYTES, TEXTURE_FILE_BYTES
from weft.folders import user_cache
from weft.game.catalog import named_files
from weft.game.level import load_level
from weft.game.output import write_atomically
from weft.game.session import Session
from weft.game.simulation import Simulation
from weft.named_files import FileRefused, read_capped

if TYPE_CHECKING:
    from weft.game.offscreen import Offscreen

THUMBNAIL_FRAMES = 60
"""Frames simulated before the picture (1 s): the level as it looks once things have settled a little."""

THUMBNAIL_SIZE = (384, 216)
"""px: the largest the picker shows a thumbnail (its preview); list rows shrink it further."""

RENDER_SCALE = 2
"""Thumbnails are drawn at twice their size and shrunk: smoother edges than drawing them small, and
far cheaper than drawing a 4400 px level at full size."""

THUMBNAIL_VERSION = "1"
"""Part of the cache key: bump it when the pictures should be made again (a drawing change)."""


def default_cache_dir() -> Path:
    """The user's cache folder for thumbnails: ``~/.cache/weft/thumbnails`` on Linux (``weft.folders``)."""
    return user_cache("thumbnails")


def content_key(source: Path) -> str:
    """sha256 (hex) of the level file, the textures it names and the thumbnail format version."""
    digest = hashlib.sha256(f"weft thumbnail {THUMBNAIL_VERSION} {THUMBNAIL_SIZE}".encode())
    for path in named_files(source):
        digest.update(path.name.encode())
        try:  # a texture may be a FIFO or /dev/zero: read as the loader reads it, capped
            digest.update(read_capped(path, max(LEVEL_FILE_BYTES, TEXTURE_FILE_BYTES), "a file"))
        except FileRefused:
            digest.update(b"(missing)")
    return digest.hexdigest()


def render_size(width: float, height: float) -> tuple[int, int]:
    """px to draw a level of ``width`` × ``height`` world px in: its shape, within ``RENDER_SCALE``
    thumbnails."""
    most_width, most_height = (RENDER_SCALE * side for side in THUMBNAIL_SIZE)
    scale = min(most_width / width, most_height / height)
    return (max(1, round(width * scale)), max(1, round(height * scale)))


class ThumbnailCache:
    """Thumbnail PNGs of levels in ``directory`` (default: the user cache folder), made on demand.

    Example::

        cache = ThumbnailCache()
        png = cache.render(Path("levels/cloth.toml"))   # renders once; later calls return the file
    """

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_cache_dir()

    def path(self, level: Path) -> Path:
        """Where the thumbnail of ``level``'s current content is (or will be) stored."""
        return self.directory / f"{content_key(level)}.png"

    def cached(self, level: Path) -> Path | None:
        """The stored thumbnail of ``level``'s current content, or None if it was not made yet."""
        path = self.path(level)
        return path if path.is_file() else None

    def job(self, level: Path) -> ThumbnailJob:
        """A job that renders ``level``'s thumbnail in slices (done at once if it is cached)."""
        return ThumbnailJob(level, self.path(level))

    def render(self, level: Path) -> Path:
        """The thumbnail of ``level``, rendered now if it is not cached; raises ``LevelError`` if broken."""
        cached = self.cached(level)
        if cached is not None:
            return cached
        job = self.job(level)
        while not job.work(budget=float("inf")):
            pass
        return job.target


class ThumbnailJob:
    """Renders one thumbnail a piece at a time: build the level, step it frame by frame, set up the
    drawing, draw it, save the PNG.

    ``work`` runs pieces until its budget is spent and returns True once the
    PNG exists. Each piece is short except building a big level and drawing
    (tens of milliseconds each on a software GL), and no two of those share
    a slice once the budget is spent. A level that fails to load raises
    ``LevelError`` from ``work``.
    """

    def __init__(self, level: Path, target: Path) -> None:
        self.level = level
        self.target = target
        self.done = target.is_file()
        self._session: Session | None = None
        self._offscreen: Offscreen | None = None
        self._image: Image.Image | None = None

    def work(self, budget: float) -> bool:
        """Work for up to ``budget`` seconds (at least one piece); True when the thumbnail is saved."""
        started = time.perf_counter()
        while not self.done:
            self._advance()
            if time.perf_counter() - started > budget:
                break
        return self.done

    def cancel(self) -> None:
        """Drop a half-done render (its world is deleted); ``work`` would start it again."""
        if self._session is not None:
            self._session.sim.close()
        self._session = self._offscreen = self._image = None

    def _advance(self) -> None:
        """Do the next piece of the work."""
        if self._image is not None:
            self._save(self._image)
        elif self._session is None:
            self._session = Session(Simulation(load_level(self.level)))
        elif self._session.sim.frame < THUMBNAIL_FRAMES:
            self._session.sim.step()
        elif self._offscreen is None:
            from weft.game.offscreen import Offscreen  # arcade only once a picture is drawn

            left, bottom, right, top = self._session.sim.settings.bounds
            self._offscreen = Offscreen(self._session, render_size(right - left, top - bottom))
        else:
            image = self._offscreen.capture()
            self.cancel()
            self._image = image

    def _save(self, image: Image.Image) -> None:
        image.thumbnail(THUMBNAIL_SIZE, Image.Resampling.LANCZOS)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        # atomically: a picker in another process never reads half a PNG
        picture = io.BytesIO()
        image.save(picture, format="PNG")
        write_atomically(self.target, picture.getvalue())
        self._image = None
        self.done = True
