"""Procedural cloth patterns: seamless RGBA tiles woven from warp and weft threads.

A tile is one repeat of the pattern. It is built the way the fabric is: every
column of the tile is a *warp* thread with a colour, every row a *weft*
thread with a colour, and a weave decides which of the two lies on top at
each crossing. Woven patterns (gingham, plaid) get their blended squares from
that alone: where a coloured warp crosses a light weft, half the crossings
show each colour and the eye (or the mipmap) mixes them, as in real gingham.
Printed-looking patterns (stripes, checker) take the colour from the design
and keep only the weave's relief, so they stay crisp.

Everything is whole-array numpy; every feature's period divides the tile
size, so the tile wraps without a seam.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Color = tuple[int, int, int, int]

THREADS_PER_TILE = 32
"""Threads across one repeat: coarse enough that the weave still shows at the
default 52 px repeat (1.6 screen px a thread), fine enough to read as cloth."""

PLAID_THREADS_PER_TILE = 64
"""A tartan sett needs more, narrower threads to hold its stripes."""

RELIEF = 0.16
"""Depth of the brightness dip at a thread's edges (0 = flat print)."""

SLUB = 0.035
"""Thread-to-thread brightness jitter: real yarn is never perfectly even."""

SHOW_THROUGH = 0.3
"""Share of the lower thread's colour seen at a crossing: yarn is fuzzy, not opaque, so
two-colour crossings read as a soft blend instead of a hard pixel checkerboard."""

# Stripe and sett layouts per number of colours: (colour index, width in threads).
# Index 0 is the main colour, 1 the light ground, 2 and 3 accents.
_STRIPES: dict[int, list[tuple[int, int]]] = {
    2: [(0, 12), (1, 4), (0, 3), (1, 13)],
    3: [(0, 12), (1, 5), (2, 3), (1, 12)],
    4: [(0, 10), (1, 4), (2, 3), (1, 4), (3, 2), (1, 9)],
}
_HALF_SETT: dict[int, list[tuple[int, int]]] = {
    2: [(0, 12), (1, 2), (0, 4), (1, 14)],
    3: [(2, 10), (0, 2), (2, 4), (1, 2), (0, 14)],
    4: [(2, 8), (0, 2), (2, 4), (3, 2), (0, 10), (1, 2), (0, 4)],
}


def pattern_image(name: str, colors: tuple[Color, ...], size: int = 256) -> npt.NDArray[np.uint8]:
    """A seamless ``(size, size, 4)`` uint8 RGBA tile of pattern ``name``, row 0 at the top.

    ``colors`` holds 2 to 4 RGBA colours: the main colour, the light ground,
    then up to two accents. ``size`` must be a multiple of 64 so every
    thread is a whole number of pixels.

    Example::

        tile = pattern_image("gingham", ((200, 85, 61, 255), (242, 233, 220, 255)))
        PIL.Image.fromarray(tile).save("gingham.png")
    """
    if not 2 <= len(colors) <= 4:
        raise ValueError(f"expected 2 to 4 colours for pattern {name!r}, got {len(colors)}")
    if size < 64 or size % 64:
        raise ValueError(f"expected a tile size that is a multiple of 64, got {size}")
    palette = np.asarray(colors, dtype=np.float64)
    n = len(colors)
    if name == "gingham":
        rgba, relief = _gingham(palette, n, size)
    elif name == "stripes":
        rgba, relief = _stripes(palette, n, size)
    elif name == "checker":
        rgba, relief = _checker(palette, n, size)
    elif name == "plaid":
        rgba, relief = _plaid(palette, n, size)
    else:
        raise ValueError(f"unknown pattern {name!r}: expected gingham, stripes, checker or plaid")
    shaded = rgba.copy()
    shaded[..., :3] *= relief[..., None]
    return np.clip(np.rint(shaded), 0, 255).astype(np.uint8)


def _thread_index(size: int, threads: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """For each pixel along one axis: which thread it lies on, and where across it (0..1)."""
    width = size // threads
    pixel = np.arange(size)
    return pixel // width, (pixel % width + 0.5) / width


def _layout(stripes: list[tuple[int, int]], threads: int) -> npt.NDArray[np.int64]:
    """Colour index of each thread of a repeat, from (colour, width) runs summing to ``threads``."""
    sequence = np.concatenate([np.full(width, colour) for colour, width in stripes])
    if len(sequence) != threads:
        raise ValueError(f"a stripe layout must fill its {threads} threads, got {len(sequence)}")
    return sequence


def _weave(
    size: int, threads: int, twill: bool
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Which thread is on top at each pixel, and the relief (brightness factor, mean 1) it makes.

    Plain weave: warp over weft where ``(col + row)`` is even. 2/2 twill (tartans):
    warp over two, under two, shifted by one each row, which draws the diagonal ribs.
    The thread on top is lit like a cylinder across its width and dips where it
    passes under its neighbour at the ends of its float.
    Returns ``(warp_on_top, relief, warp thread per column, weft thread per row)``.
    """
    warp, across_x = _thread_index(size, threads)
    weft, across_y = _thread_index(size, threads)
    col, row = warp[None, :], weft[:, None]
    if twill:
        warp_on_top = (col + row) % 4 < 2
        # position along the two-crossing float of the thread on top
        along_warp = (((row - col) % 4) % 2 + across_y[:, None]) / 2.0
        along_weft = (((col - row) % 4) % 2 + across_x[None, :]) / 2.0
    else:
        warp_on_top = (col + row) % 2 == 0
        along_warp = np.broadcast_to(across_y[:, None], (size, size))
        along_weft = np.broadcast_to(across_x[None, :], (size, size))
    across = np.where(warp_on_top, across_x[None, :], across_y[:, None])
    along = np.where(warp_on_top, along_warp, along_weft)
    relief = (1.0 - RELIEF * (2.0 * across - 1.0) ** 2) * (1.0 - 0.5 * RELIEF * (2.0 * along - 1.0) ** 4)
    # a fixed seed: the same colours give the same tile on every run
    jitter = np.random.default_rng(7).normal(0.0, SLUB, size=(2, threads))
    relief *= 1.0 + np.where(warp_on_top, jitter[0][col], jitter[1][row])
    return warp_on_top, relief / relief.mean(), warp, weft


def _interlace(
    warp_on_top: npt.NDArray[np.bool_],
    warp_colors: npt.NDArray[np.float64],
    weft_colors: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Colour ``(size, size, 4)`` of the crossing threads: mostly the one on top, a little of the other.

    ``warp_colors`` is ``(size, 4)`` per column, ``weft_colors`` ``(size, 4)`` per row.
    """
    warp = warp_colors[None, :, :]
    weft = weft_colors[:, None, :]
    top = np.where(warp_on_top[..., None], warp, weft)
    under = np.where(warp_on_top[..., None], weft, warp)
    return (1.0 - SHOW_THROUGH) * top + SHOW_THROUGH * under


def _gingham(
    palette: npt.NDArray[np.float64], n: int, size: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Bands of the main colour over the ground, both ways; the weave mixes them where one crosses.

    A third colour runs as a thin windowpane line through the ground; a fourth
    colours the weft bands, so warp and weft bands differ.
    """
    threads = THREADS_PER_TILE
    warp_on_top, relief, warp, weft = _weave(size, threads, twill=False)
    ground = [(0, 16), (1, 16)] if n == 2 else [(0, 16), (1, 7), (2, 2), (1, 7)]
    warp_colors = _layout(ground, threads)
    weft_colors = warp_colors.copy()
    if n == 4:
        weft_colors[weft_colors == 0] = 3
    return _interlace(warp_on_top, palette[warp_colors[warp]], palette[weft_colors[weft]]), relief


def _stripes(
    palette: npt.NDArray[np.float64], n: int, size: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Vertical stripes (they hang like a curtain): a wide main band, the ground, accent pinstripes."""
    threads = THREADS_PER_TILE
    _, relief, warp, _ = _weave(size, threads, twill=False)
    colors = _layout(_STRIPES[n], threads)
    rgba = np.broadcast_to(palette[colors[warp]][None, :, :], (size, size, 4))
    return rgba, relief


def _checker(
    palette: npt.NDArray[np.float64], n: int, size: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Two by two squares: main and ground; accents take the other squares of the repeat."""
    _, relief, _, _ = _weave(size, THREADS_PER_TILE, twill=False)
    half = size // 2
    square_x = np.arange(size)[None, :] // half
    square_y = np.arange(size)[:, None] // half
    # colour of square [row][col]: with accents the dark squares alternate main and
    # accent along the diagonal instead of repeating one colour
    table = {
        2: np.array([[0, 1], [1, 0]]),
        3: np.array([[0, 1], [1, 2]]),
        4: np.array([[0, 1], [3, 2]]),
    }[n]
    index = table[square_y, square_x]
    return palette[index], relief


def _plaid(
    palette: npt.NDArray[np.float64], n: int, size: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """A tartan: the same mirrored sett in warp and weft, woven 2/2 twill so crossings blend."""
    threads = PLAID_THREADS_PER_TILE
    warp_on_top, relief, warp, weft = _weave(size, threads, twill=True)
    half = _layout(_HALF_SETT[n], threads // 2)
    sett = np.concatenate([half, half[::-1]])
    return _interlace(warp_on_top, palette[sett[warp]], palette[sett[weft]]), relief
