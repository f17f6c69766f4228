"""Behaviour: esper processors run by an explicit schedule, each calling one numba kernel.

``weft.systems.schedule`` says when each system runs; ``weft.systems.kernels`` holds the
compiled array functions; ``weft.systems.draw`` holds the drawing systems (the only
part that imports arcade).
"""
