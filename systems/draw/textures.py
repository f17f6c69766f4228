"""GPU textures for cloth looks: a procedural tile per (pattern, colours), or an image file.

Both come with a full mipmap chain made on the CPU and uploaded level by
level. ``glGenerateMipmap`` would be simpler, but on Mesa llvmpipe (the
software GL of headless machines and of this project's CI) every draw that
samples a texture mipmapped that way, other than the first one made, costs
about 2 ms more CPU: measured here with two patterns, 1.7 ms against 4.3 ms a
frame. Uploaded levels cost nothing extra, and a 2×2 box filter of a
power-of-two tile keeps every level exactly seamless.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from PIL import Image

from weft.components import ClothLook
from weft.named_files import FileRefused, read_named_image
from weft.systems.draw.patterns import pattern_image

if TYPE_CHECKING:
    from arcade.gl import Context, Texture2D

TILE_SIZE = 256
"""Pixels of one pattern repeat in the texture: the weave keeps 8 texels a thread."""


class ClothTextures:
    """Makes each look's texture once and hands it out again for every sheet and frame.

    A pattern tile takes ~15 ms of numpy to weave, far too slow for a frame,
    so tiles are cached by ``(pattern, colours)``; images by path. An image
    that cannot be read falls back to the look's pattern (the level validator
    reports a missing or oversized file; drawing must not crash on one saved
    over it since: ``weft.named_files.read_image`` checks the header's size first).
    """

    def __init__(self, ctx: Context) -> None:
        self._ctx = ctx
        self._patterns: dict[tuple[str, tuple[tuple[int, int, int, int], ...]], Texture2D] = {}
        self._images: dict[tuple[str, str | None], Texture2D | None] = {}
        self._means: dict[int, tuple[float, float, float, float]] = {}
        """Each texture's mean colour, by ``id``: the caches above keep every texture alive."""

    def texture(self, look: ClothLook) -> tuple[Texture2D, bool]:
        """The texture for ``look``, and whether it is a repeating pattern (False: one image)."""
        if look.texture is not None:
            image = self._image(look.texture, look.folder)
            if image is not None:
                return image, False
        key = (look.pattern, tuple(look.colors))
        texture = self._patterns.get(key)
        if texture is None:
            # the tile's row 0 is its top; GL's first row is the bottom of a texture
            tile = pattern_image(*key, size=TILE_SIZE)[::-1]
            texture = self._patterns[key] = self._upload(_box_mipmaps(tile), repeat=True)
        return texture, True

    def mean_color(self, texture: Texture2D) -> tuple[float, float, float, float]:
        """The average RGBA (0-255) of a texture ``texture`` gave: its 1 × 1 mipmap level."""
        return self._means[id(texture)]

    def _upload(self, levels: list[npt.NDArray[np.uint8]], repeat: bool = False) -> Texture2D:
        texture = upload_mipmaps(self._ctx, levels, repeat)
        self._means[id(texture)] = tuple(float(c) for c in levels[-1].reshape(-1, 4)[0])
        return texture

    def _image(self, path: str, folder: str | None) -> Texture2D | None:
        key = (path, folder)
        if key not in self._images:
            try:
                # flipped so uv (x / width, y / height) is upright with y up, as ctx.load_texture does
                image = read_named_image(path, folder).transpose(Image.Transpose.FLIP_TOP_BOTTOM)
            except FileRefused:  # replaced since it was validated: too big, a FIFO, half saved, moved out
                self._images[key] = None
            else:
                self._images[key] = self._upload(_resized_mipmaps(image))
        return self._images[key]


def upload_mipmaps(ctx: Context, levels: list[npt.NDArray[np.uint8]], repeat: bool = False) -> Texture2D:
    """A texture of mipmap ``levels`` (``(h, w, 4)`` uint8, largest first), trilinear filtered.

    Each level is uploaded as given (GL would make its own from the first, but
    not from premultiplied or box-filtered pixels we chose).
    """
    from pyglet import gl  # arcade is loaded by now: it chose pyglet's headless mode

    wrap = ctx.REPEAT if repeat else ctx.CLAMP_TO_EDGE
    base = levels[0]
    texture = ctx.texture(
        (base.shape[1], base.shape[0]),
        components=4,
        data=np.ascontiguousarray(base).tobytes(),
        wrap_x=wrap,
        wrap_y=wrap,
        filter=(ctx.LINEAR_MIPMAP_LINEAR, ctx.LINEAR),
    )
    gl.glActiveTexture(gl.GL_TEXTURE0 + ctx.default_texture_unit)
    gl.glBindTexture(gl.GL_TEXTURE_2D, texture.glo)
    gl.glPixelStorei(gl.GL_UNPACK_ALIGNMENT, 1)
    for level, pixels in enumerate(levels[1:], start=1):
        pixels = np.ascontiguousarray(pixels)
        height, width = pixels.shape[:2]
        gl.glTexImage2D(
            gl.GL_TEXTURE_2D,
            level,
            gl.GL_RGBA8,
            width,
            height,
            0,
            gl.GL_RGBA,
            gl.GL_UNSIGNED_BYTE,
            pixels.ctypes.data,
        )
    gl.glTexParameteri(gl.GL_TEXTURE_2D, gl.GL_TEXTURE_MAX_LEVEL, len(levels) - 1)
    gl.glPixelStorei(gl.GL_UNPACK_ALIGNMENT, 4)
    return texture


def _box_mipmaps(tile: npt.NDArray[np.uint8]) -> list[npt.NDArray[np.uint8]]:
    """A square power-of-two RGBA tile and its halvings down to 1×1, each the 2×2 mean of the last."""
    levels = [tile]
    level = tile.astype(np.float64)
    while level.shape[0] > 1:
        size = level.shape[0] // 2
        level = level.reshape(size, 2, size, 2, 4).mean(axis=(1, 3))
        levels.append(np.rint(level).astype(np.uint8))
    return levels


def _resized_mipmaps(image: Image.Image) -> list[npt.NDArray[np.uint8]]:
    """An image of any size and its halvings (rounded down, at least 1 px) down to 1×1."""
    levels = [np.asarray(image, dtype=np.uint8)]
    width, height = image.size
    while width > 1 or height > 1:
        width, height = max(1, width // 2), max(1, height // 2)
        levels.append(np.asarray(image.resize((width, height), Image.Resampling.BOX), dtype=np.uint8))
    return levels
