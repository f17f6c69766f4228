"""``python -m weft``: the same program as the ``weft`` command (see ``weft.game.cli``)."""

import sys

from weft.game.cli import main

sys.exit(main())
