"""The level format: schema, loading with readable errors, and building a world from a level."""

from weft.game.level.load import load_level, parse_key, parse_override
from weft.game.level.loaded import LoadedLevel
from weft.game.level.problems import LevelError, Problem

__all__ = ["LevelError", "LoadedLevel", "Problem", "load_level", "parse_key", "parse_override"]
