"""Writing output files atomically: a reader never sees half a file, and a failed write leaves the
old one in place.

The data goes to a new file beside the target (same folder, so the same file system) and is then
renamed over it, which POSIX and Windows both do in one step.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def write_atomically(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text is UTF-8) to ``path`` in one step: aside first, then renamed over it."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    partial = _partial(path)  # opened exclusively, with the user's usual permissions
    try:
        with partial.open("xb") as file:
            file.write(payload)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def output_problem(path: Path, option: str, suffixes: tuple[str, ...] = ()) -> str | None:
    """Why ``path`` cannot take an output of ``option`` (``--metrics``...), in one line, or None.

    Checked before a run starts, so a mistake costs nothing: a folder, a missing folder, a place
    the user cannot write, a device (``/dev/full``: the rename would replace it) or, for a
    picture, a name without ``.png``.
    """
    if suffixes and path.suffix.lower() not in suffixes:
        return f"{option} {path}: expected a file name ending in {' or '.join(suffixes)}, got {path.name!r}"
    if path.is_dir():
        return f"{option} {path}: expected a file name, got a folder"
    if path.exists() and not path.is_file():
        return f"{option} {path}: expected a regular file to write, got a device or other special file"
    folder = path.parent
    if not folder.is_dir():
        return f"{option} {path}: expected an existing folder to write into, got no folder {str(folder)!r}"
    probe = _partial(path)  # the file the write will make: trying it is the only sure test
    try:
        with probe.open("xb"):
            pass
    except OSError as error:
        return (
            f"{option} {path}: expected a folder you can write into, got {str(folder)!r} ({error.strerror})"
        )
    probe.unlink(missing_ok=True)
    return None


def _partial(path: Path) -> Path:
    """A name beside ``path`` no other writer picks."""
    return path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
