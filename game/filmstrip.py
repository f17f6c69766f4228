"""A filmstrip: pictures of a run tiled four to a row at a third of their size (less when the
sheet would pass ``FILMSTRIP_PIXELS``), each labelled.

The sheet is made once at its final size and each picture is shrunk into it
as it is taken, so a long run of a large level holds one full-size picture at
a time, never all of them (200 pictures of an 8192² level would be 40 GB).
"""

from __future__ import annotations

import io
import math
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from weft.game.output import write_atomically

FILMSTRIP_COLUMNS = 4
FILMSTRIP_SCALE = 3
"""Each filmstrip picture is shrunk to 1/3 of its size: 4 columns of 1280 px pictures make 1704 px."""

FILMSTRIP_PIXELS = 64_000_000
"""Most pixels of a whole sheet (192 MB of RGB): beyond it the tiles shrink further, so 200
pictures of an 8192² level make a sheet of this size, not one of 4.5 GB."""

FILMSTRIP_BACKGROUND = (14, 16, 22)
LABEL_COLOR = (236, 236, 240)
LABEL_SIZE = 14


class Filmstrip:
    """A sheet of ``count`` pictures of ``size`` (w, h) px, filled in order by ``add``."""

    def __init__(self, size: tuple[int, int], count: int) -> None:
        width, height = size[0] / FILMSTRIP_SCALE, size[1] / FILMSTRIP_SCALE
        shrink = min(1.0, math.sqrt(FILMSTRIP_PIXELS / (max(count, 1) * width * height)))
        self.tile = (max(1, int(width * shrink)), max(1, int(height * shrink)))
        self.columns = max(1, min(FILMSTRIP_COLUMNS, count))  # fewer pictures than a row: no empty cells
        rows = max(1, math.ceil(count / self.columns))
        size = (self.columns * self.tile[0], rows * self.tile[1])
        self.sheet = Image.new("RGB", size, FILMSTRIP_BACKGROUND)
        self.added = 0
        self._draw = ImageDraw.Draw(self.sheet)
        self._font = _label_font()

    def add(self, label: str, picture: Image.Image) -> None:
        """Shrink ``picture`` into the next tile and label it."""
        x = (self.added % self.columns) * self.tile[0]
        y = (self.added // self.columns) * self.tile[1]
        self.sheet.paste(picture.convert("RGB").resize(self.tile, Image.Resampling.LANCZOS), (x, y))
        draw = self._draw
        # a hairline frame keeps neighbouring tiles apart when their backgrounds match
        draw.rectangle((x, y, x + self.tile[0] - 1, y + self.tile[1] - 1), outline=FILMSTRIP_BACKGROUND)
        left, top, right, bottom = draw.textbbox((x + 8, y + 6), label, font=self._font)
        draw.rectangle((left - 4, top - 3, right + 4, bottom + 3), fill=FILMSTRIP_BACKGROUND)
        draw.text((x + 8, y + 6), label, fill=LABEL_COLOR, font=self._font)
        self.added += 1

    def save(self, path: Path) -> None:
        """Write the sheet as a PNG, atomically."""
        save_png(self.sheet, path)


def save_png(image: Image.Image, path: Path) -> None:
    """Write ``image`` as a PNG at ``path`` in one step (a reader never sees half a picture)."""
    data = io.BytesIO()
    image.save(data, format="PNG")
    write_atomically(path, data.getvalue())


def _label_font() -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's bundled font at a readable size (the bitmap one where FreeType is missing)."""
    try:
        return ImageFont.load_default(size=LABEL_SIZE)
    except (ImportError, TypeError):
        return ImageFont.load_default()
