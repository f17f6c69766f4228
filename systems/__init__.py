"""Behaviour: esper processors run by an explicit schedule, each calling one numba kernel.

``systems.schedule`` says when each system runs; ``systems.kernels`` holds the
compiled array functions; ``systems.draw`` holds the drawing systems (the only
part that imports arcade).
"""
