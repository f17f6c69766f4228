"""Benchmarks: our engine's scenes timed side by side with pymunk in the same run.

``python -m game bench`` (or ``python -m bench``) runs them; ``bench.run``
holds the registry of scenes. pymunk is imported here and in tests only,
never by the engine.
"""
