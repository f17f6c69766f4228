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
    # a name no other writer picks; opened exclusively, with the user's usual permissions
    partial = path.with_name(f".{path.name}.{os.getpid()}-{secrets.token_hex(4)}.partial")
    try:
        with partial.open("xb") as file:
            file.write(payload)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
