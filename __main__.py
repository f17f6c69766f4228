"""``python -m weft``: the same program as the ``weft`` command (see ``weft.game.cli``)."""

from weft.game.cli import command

command()
