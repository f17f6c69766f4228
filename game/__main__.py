"""``python -m game``: see ``game.cli``."""

import sys

from game.cli import main

sys.exit(main())
