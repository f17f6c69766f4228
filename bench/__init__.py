"""Benchmarks: our engine's scenes timed side by side with pymunk in the same run.

``weft bench`` (or ``python -m weft.bench``) runs them; ``weft.bench.run``
holds the registry of scenes. pymunk is imported here and in tests only,
never by the engine; it comes with the ``bench`` extra.
"""

from importlib.util import find_spec


class BenchUnavailable(ImportError):
    """The benchmark's oracle is not installed."""


if find_spec("pymunk") is None:
    raise BenchUnavailable(
        "weft bench runs each scene beside pymunk, which is not installed: "
        'pip install "weft-physics[bench]" adds it'
    )
