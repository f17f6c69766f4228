"""The one way a level, map or template reaches another file: confined, regular, size-capped.

A level is data from anyone. A path it names (a texture, a tileset, a
template) must not reach outside the level's folder (``..``, an absolute
path or a symlink pointing away), must not be a device (``/dev/zero`` reads
for ever) or a FIFO (opening one blocks until a writer comes), and is read
with a cap so that a huge file costs at most the cap. The file the user names
on the command line is read the same way, without the confinement. An image
is sized from its header (``image_size``) and decoded only within
``TEXTURE_SIDE`` (``read_image``): the loader, the skin builder and the drawing
code all read images here, the drawing code included because a texture can
be saved over between validation and drawing.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from PIL import Image, UnidentifiedImageError

from weft.budgets import TEXTURE_FILE_BYTES, TEXTURE_SIDE


class FileRefused(ValueError):
    """A file that cannot be used; the message completes "expected ..., got ..."."""


def confined(folder: Path, name: object, what: str) -> Path:
    """The file ``name`` (relative to ``folder``) with symlinks resolved; ``FileRefused`` if it lies
    outside ``folder``, is not a regular file, or does not exist."""
    if not isinstance(name, str) or not name or "\0" in name:
        raise FileRefused(f"expected {what} relative to the level's folder, got {name!r}")
    home = folder.resolve()
    try:
        target = (home / name).resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop
        raise FileRefused(f"expected {what} in the level's folder, got {name!r} ({error})") from None
    if not target.is_relative_to(home):
        raise FileRefused(f"expected {what} in the level's folder, got {name!r} (it lies outside)")
    regular_file(target, what, name)
    return target


def regular_file(path: Path, what: str, shown: object = None) -> os.stat_result:
    """``path``'s status; ``FileRefused`` unless it is an existing regular file (not a folder,
    device or FIFO)."""
    shown = str(path) if shown is None else shown
    try:
        status = path.stat()
    except FileNotFoundError:
        raise FileRefused(f"expected {what}, got {shown!r} (no such file)") from None
    except OSError as error:
        raise FileRefused(f"expected {what}, got {shown!r} ({error.strerror or error})") from None
    if not stat.S_ISREG(status.st_mode):
        kind = "a folder" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise FileRefused(f"expected {what}, got {shown!r} ({kind})")
    return status


@contextmanager
def open_capped(path: Path, limit: int, what: str, shown: object = None) -> Iterator[BinaryIO]:
    """The regular file ``path`` opened for reading, if it holds at most ``limit`` bytes;
    ``FileRefused`` otherwise.

    Opened without blocking and checked again on the open file, so a FIFO or device swapped in
    after a check is refused rather than read.
    """
    shown = str(path) if shown is None else shown
    regular_file(path, what, shown)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise FileRefused(f"expected {what}, got {shown!r} ({error.strerror or error})") from None
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(file.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise FileRefused(f"expected {what}, got {shown!r} (not a regular file)")
        if status.st_size > limit:
            raise FileRefused(
                f"expected {what} of at most {_size(limit)}, got {shown!r} of {_size(status.st_size)}"
            )
        yield file


def read_capped(path: Path, limit: int, what: str, shown: object = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; ``FileRefused`` otherwise."""
    shown = str(path) if shown is None else shown
    with open_capped(path, limit, what, shown) as file:
        try:
            data = file.read(limit + 1)
        except OSError as error:
            raise FileRefused(f"expected {what}, got {shown!r} ({error.strerror or error})") from None
    if len(data) > limit:  # grew while being read
        raise FileRefused(f"expected {what} of at most {_size(limit)}, got {shown!r} of more")
    return data


def read_text_capped(path: Path, limit: int, what: str, shown: object = None) -> str:
    """``read_capped`` decoded as UTF-8; ``FileRefused`` for bytes that are not UTF-8 text."""
    data = read_capped(path, limit, what, shown)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        shown = str(path) if shown is None else shown
        raise FileRefused(
            f"expected {what} in UTF-8, got {shown!r} ({error.reason} at byte {error.start})"
        ) from None


def _size(count: int) -> str:
    return f"{count / 1_000_000:g} MB" if count >= 1_000_000 else f"{count} bytes"


def image_size(path: Path, what: str = "an image file", shown: object = None) -> tuple[int, int]:
    """Width and height of the image file ``path``, read from its header without decoding it;
    ``FileRefused`` if it is not a readable image within ``TEXTURE_FILE_BYTES`` and ``TEXTURE_SIDE``."""
    shown = str(path) if shown is None else shown
    with open_capped(path, TEXTURE_FILE_BYTES, what, shown) as file:
        size = _header_size(file, what, shown)
    return size


def read_image(path: Path, what: str = "an image file", shown: object = None) -> Image.Image:
    """The image file ``path`` decoded as RGBA, once its header says it fits ``TEXTURE_SIDE``;
    ``FileRefused`` for anything else (not an image, too big, truncated)."""
    shown = str(path) if shown is None else shown
    with open_capped(path, TEXTURE_FILE_BYTES, what, shown) as file:
        _header_size(file, what, shown)
        file.seek(0)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the side is checked
                with Image.open(file) as image:
                    return image.convert("RGBA")
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as error:
            raise FileRefused(f"expected a readable {what}, got {shown!r} ({_one_line(error)})") from None


def read_named_image(path: str, folder: str | None) -> Image.Image:
    """The image a level named (absolute ``path``), read again when it is drawn: still inside the
    level's ``folder`` (None: a body added from code without one), still a regular file, still
    within the caps. A file swapped for a symlink to elsewhere after validation is refused here."""
    target = confined(Path(folder), path, "a texture") if folder is not None else Path(path)
    return read_image(target, "a texture", path)


def _header_size(file: BinaryIO, what: str, shown: object) -> tuple[int, int]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(file) as image:  # lazy: reads the header only
                width, height = image.size
                image.verify()  # the whole file's structure (a PNG's chunks), without decoding it
    except Image.DecompressionBombError as error:  # Pillow's own limit, far above ours
        pixels = re.search(r"\((\d+) pixels\)", str(error))
        size = _png_sides(file) or (f"{pixels.group(1)} pixels" if pixels else "far more")
        raise FileRefused(
            f"expected {what} at most {TEXTURE_SIDE} px wide and tall, got {shown!r} of {size}"
        ) from None
    except (OSError, ValueError, SyntaxError) as error:
        why = "not an image Pillow reads" if isinstance(error, UnidentifiedImageError) else _one_line(error)
        raise FileRefused(f"expected {what}, got {shown!r} ({why})") from None
    if width > TEXTURE_SIDE or height > TEXTURE_SIDE:
        raise FileRefused(
            f"expected {what} at most {TEXTURE_SIDE} px wide and tall, got {shown!r} of {width} × {height}"
        )
    return width, height


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_sides(file: BinaryIO) -> str | None:
    """``"W × H"`` from a PNG's header chunk (``IHDR``: the signature, a length, the chunk's name,
    then width and height as big-endian 32-bit integers), or None for another format. Pillow refuses
    a file over its own limit before it gives the size, naming only the pixels it would hold."""
    file.seek(0)
    head = file.read(24)
    if len(head) < 24 or head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        return None
    return f"{int.from_bytes(head[16:20], 'big')} × {int.from_bytes(head[20:24], 'big')}"


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split()) or type(error).__name__
