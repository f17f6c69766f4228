"""The creatures' faces: a few strokes placed in each body's frame, one look awake and one pressed.

A face is placed in the body's own frame (``head_line`` across, its normal
up), horizontally in units of the body's half width and vertically in units
of its height above the centre, so features slide down and together as the
body squashes; their sizes follow the body's built size. ``SoftBody.pressed``
is the only thing the face knows of the simulation: pressed, the eyes squeeze
shut and tears run down over the cheeks.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from weft.systems.draw.strokes import SEGMENT_FIELDS, segments

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.int64]

WHITE = (255, 255, 255, 255)
TEAR = (150, 212, 255, 235)
"""Tears: a light sky blue, a little see-through."""

SQUASH_RANGE = (0.55, 1.25)
"""Limits of the face's squash and stretch (height or half width over the body's size)."""

ALWAYS, AWAKE, PRESSED = 0, 1, 2
"""When a face stroke shows: always, only while not pressed, only while pressed."""

INK, CHEEK, LIGHT, TEARS = 0, 1, 2, 3
"""The face's colours: the outline's, the cheeks', white, tears' blue."""


@dataclass(frozen=True)
class FaceStroke:
    """One stroke of the face, drawn on the left half and mirrored to the right unless ``centred``.

    ``anchor`` is where it sits: (across, up) as shares of the body's half
    width and of its height above the centre. ``points`` is its polyline
    around the anchor, and ``radius``/``feather`` its half width and soft
    edge, all as shares of the body's size; one point draws a dot.
    """

    anchor: tuple[float, float]
    points: tuple[tuple[float, float], ...]
    radius: float
    color: int = INK
    when: int = ALWAYS
    feather: float = 0.0
    centred: bool = False


EYE = (-0.36, 0.24)
"""The left eye's anchor; everything about the eyes hangs from it."""

TEAR_ANCHOR = (EYE[0] - 0.04, EYE[1])
"""Tears run from the outer half of each eye."""

MOUTH_HALF_WIDTH = 0.065

FACE = (
    # soft cheeks first, under everything else
    FaceStroke((-0.62, 0.02), ((-0.035, 0.0), (0.035, 0.0)), 0.085, CHEEK, feather=0.06),
    # open eyes: an upright oval with two glints (light from the upper left)
    FaceStroke(EYE, ((0.0, -0.022), (0.0, 0.022)), 0.068, INK, AWAKE),
    FaceStroke(EYE, ((-0.022, 0.034),), 0.024, LIGHT, AWAKE),
    FaceStroke(EYE, ((0.024, -0.03),), 0.011, LIGHT, AWAKE),
    # a small cat-like mouth: one "w" across the middle
    FaceStroke(
        (0.0, 0.05),
        tuple(
            (x, -0.032 * abs(math.sin(math.pi * x / MOUTH_HALF_WIDTH)))
            for x in np.linspace(-MOUTH_HALF_WIDTH, MOUTH_HALF_WIDTH, 9).tolist()
        ),
        0.016,
        INK,
        AWAKE,
        centred=True,
    ),
    # squeezed-shut eyes: ">" on the left, "<" on the right
    FaceStroke(EYE, ((-0.055, 0.05), (0.05, 0.0), (-0.055, -0.05)), 0.024, INK, PRESSED),
    # tears: a wavy streak from under each eye down the cheek, ending in a drop with a glint
    FaceStroke(
        TEAR_ANCHOR,
        ((0.0, -0.08), (-0.014, -0.15), (0.0, -0.22), (-0.014, -0.29), (-0.004, -0.34)),
        0.028,
        TEARS,
        PRESSED,
    ),
    FaceStroke(TEAR_ANCHOR, ((-0.006, -0.38),), 0.05, TEARS, PRESSED),
    FaceStroke(TEAR_ANCHOR, ((-0.022, -0.365),), 0.014, LIGHT, PRESSED),
    # a wailing mouth: a small dark oval with a pink tongue
    FaceStroke((0.0, 0.02), ((-0.03, 0.0), (0.03, 0.0)), 0.042, INK, PRESSED, centred=True),
    FaceStroke((0.0, 0.02), ((-0.018, -0.02), (0.018, -0.02)), 0.02, CHEEK, PRESSED, centred=True),
)
"""The face, drawn in this order; the right half mirrors the left."""


@dataclass(frozen=True)
class FaceTemplate:
    """``FACE`` flattened to k segments (``(k,)`` or ``(k, 2)`` arrays), mirrored halves included."""

    anchor: FloatArray
    start: FloatArray
    end: FloatArray
    radius: FloatArray
    feather: FloatArray
    color: IndexArray
    when: IndexArray


@cache
def face_template() -> FaceTemplate:
    """``FACE`` as flat per-segment arrays, built once: each frame only moves them into every body's frame."""
    segments_of: list[tuple] = []
    for stroke in FACE:
        for side in (-1.0, 1.0) if not stroke.centred else (1.0,):
            line = [(side * x, y) for x, y in stroke.points]
            anchor = (side * stroke.anchor[0], stroke.anchor[1])
            pairs = itertools.pairwise(line) if len(line) > 1 else [(line[0], line[0])]
            for start, end in pairs:
                segments_of.append(
                    (anchor, start, end, stroke.radius, stroke.feather, stroke.color, stroke.when)
                )
    anchor, start, end, radius, feather, color, when = zip(*segments_of, strict=True)
    return FaceTemplate(
        anchor=np.array(anchor, dtype=np.float64),
        start=np.array(start, dtype=np.float64),
        end=np.array(end, dtype=np.float64),
        radius=np.array(radius, dtype=np.float64),
        feather=np.array(feather, dtype=np.float64),
        color=np.array(color, dtype=np.int64),
        when=np.array(when, dtype=np.int64),
    )


@dataclass
class BodyFrames:
    """Where each of B bodies is and how it is turned and squashed; every field has B rows."""

    centre: FloatArray
    """``(B, 2)`` mean of the ring points, px."""
    across: FloatArray
    """``(B, 2)`` unit vector across the top of the head (``head_line``): +x when upright."""
    up: FloatArray
    """``(B, 2)`` ``across`` turned a quarter counter-clockwise: the body's up."""
    height: FloatArray
    """``(B,)`` px from the centre up to the skin at the top of the head."""
    half_width: FloatArray
    """``(B,)`` px from the centre out to the skin across the body (half its width along ``across``)."""
    size: FloatArray
    """``(B,)`` px: the built radius plus the bead, the unsquashed ``height`` and ``half_width``."""


def face_rows(
    frames: BodyFrames, palette: FloatArray, pressed: npt.NDArray[np.bool_]
) -> npt.NDArray[np.float32]:
    """Stroke rows ``(B, k, 11)`` of every body's face; strokes not shown now have zero alpha.

    ``palette`` is ``(B, 4, 4)``: each body's ink, cheek, light and tear colours, RGBA 0..255.
    Offsets stretch with the body (``half_width / size`` across, ``height /
    size`` up, within ``SQUASH_RANGE``), so a squashed face squashes too.
    """
    face = face_template()
    size = frames.size[:, None]
    low, high = SQUASH_RANGE
    stretch = np.clip(frames.half_width / frames.size, low, high)[:, None]
    squash = np.clip(frames.height / frames.size, low, high)[:, None]
    across, up = frames.across[:, None], frames.up[:, None]  # (B, 1, 2)
    anchor = (
        frames.centre[:, None]
        + across * (face.anchor[:, 0] * frames.half_width[:, None])[..., None]
        + up * (face.anchor[:, 1] * frames.height[:, None])[..., None]
    )

    def place(offset: FloatArray) -> FloatArray:
        """World px ``(B, k, 2)`` of offsets ``(k, 2)`` (shares of the size) from the anchors."""
        return (
            anchor
            + across * (offset[:, 0] * size * stretch)[..., None]
            + up * (offset[:, 1] * size * squash)[..., None]
        )

    starts, ends = place(face.start), place(face.end)
    count, k = starts.shape[:2]
    colors = palette[:, face.color]  # (B, k, 4), a copy
    shown = (face.when == ALWAYS) | np.where(pressed[:, None], face.when == PRESSED, face.when == AWAKE)
    colors[..., 3] *= shown
    rows = segments(
        starts.reshape(-1, 2),
        ends.reshape(-1, 2),
        (face.radius * size).ravel(),
        colors.reshape(-1, 4),
        feather=(face.feather * size).ravel(),
    )
    return rows.reshape(count, k, SEGMENT_FIELDS)
