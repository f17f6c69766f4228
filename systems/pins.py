"""Pins and grabs: particles held on an anchor, with inverse mass 0 while held."""

from __future__ import annotations

from weft.components import PinStore, Stores, WorldSettings
from weft.systems import world
from weft.systems.kernels.pins import PinArrays, Pinning, place_pins
from weft.systems.schedule import Step, System

GLIDE_SPEED = 300.0
"""px/s at most that a level's pin travels to its anchor: pins placed away from where the sheet
was built, or moved by a new layout, draw the sheet after them instead of yanking it."""


def pin(
    stores: Stores, particle: int, anchor: tuple[float, float], owner: int, speed: float = GLIDE_SPEED
) -> int:
    """Hold ``particle`` at ``anchor`` from the next substep on; return the pin's row.

    The particle travels to its anchor at ``speed`` px/s at most (``math.inf``:
    it is there by the end of each frame), in even steps across the substeps
    (see ``PinSystem``); an anchor outside the level's bounds holds it on them.
    """
    particles = stores.particles
    row = stores.pins.add(particle, anchor, particles.inv_mass[particle], owner, speed)
    particles.inv_mass[particle] = 0.0
    return row


def unpin(stores: Stores, row: int) -> None:
    """Release the pin at ``row``; its particle gets its mass back and keeps its velocity."""
    pins = stores.pins
    stores.particles.inv_mass[pins.index[row]] = pins.saved_inv_mass[row]
    pins.remove(row)


def unpin_owned_by(stores: Stores, owner: int) -> None:
    """Release every pin that ``owner`` placed."""
    pins = stores.pins
    for row in reversed(range(pins.count)):
        if pins.owner[row] == owner:
            unpin(stores, row)


class PinSystem(System):
    """Moves every pinned particle from where it is towards its anchor, one substep at a time."""

    name = "pins"
    needs = ("particles", "pins")

    def process(self, step: Step) -> None:
        stores = world.stores()
        particles = stores.particles
        arrays, scalars = pin_arguments(stores.pins, world.settings(), step)
        place_pins(particles.pos, particles.prev, particles.radius, *arrays, *scalars)


def pin_arguments(pins: PinStore, settings: WorldSettings, step: Step) -> tuple[PinArrays, Pinning]:
    """``place_pins``' arguments after the particle arrays, for this substep: the pins' arrays
    (empty with none), then the frame's length, the bounds, whether the substep is the frame's
    first, and its start and end as shares of the frame."""
    n = pins.count
    left, bottom, right, top = settings.bounds
    arrays = (pins.index[:n], pins.start[:n], pins.anchor[:n], pins.speed[:n])
    times = (step.substep == 0, step.substep / step.substeps, (step.substep + 1) / step.substeps)
    return arrays, (step.dt * step.substeps, float(left), float(bottom), float(right), float(top), *times)
