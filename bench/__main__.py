"""``python -m weft.bench [SCENE...] [--json] [--frames N]``: the same as ``weft bench``.

It hands its arguments to the game's CLI, so both spellings share one
parser, one help text and one set of options.
"""

from __future__ import annotations

import sys

from weft.game.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
