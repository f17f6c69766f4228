"""Kernels against independent references and hand-worked cases."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba.core.cpu_options import ParallelOptions

from weft.game.threads import numba_threads
from weft.systems.kernels import KEPT_CACHES, cache_folder
from weft.systems.kernels.bounds import clamp_to_bounds
from weft.systems.kernels.distance import relax_distances, relax_rigid_distances
from weft.systems.kernels.inside_walls import all_inside_walls, all_inside_walls_in_two
from weft.systems.kernels.jit import ONLY_PRANGE
from weft.systems.kernels.tear import kill_orphans, sweep_cut


def random_mesh(seed: int, n: int = 60, m: int = 150):
    rng = np.random.default_rng(seed)
    pos = rng.uniform(0, 200, (n, 2))
    inv_mass = np.where(rng.random(n) < 0.1, 0.0, rng.uniform(0.2, 2.0, n))
    i = rng.integers(0, n, m).astype(np.uint32)
    j = ((i + rng.integers(1, n, m)) % n).astype(np.uint32)
    rest = rng.uniform(5, 50, m)
    alive = rng.random(m) < 0.9
    return pos, inv_mass, i, j, rest, alive


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31))
def test_rigid_kernel_is_bit_identical_to_the_general_kernel_at_zero_compliance(seed: int) -> None:
    pos, inv_mass, i, j, rest, alive = random_mesh(seed)
    general = pos.copy()
    rigid = pos.copy()
    m = len(i)
    for _ in range(5):
        relax_distances(
            general, inv_mass, i, j, rest, np.zeros(m), np.zeros(m), alive, np.zeros(m, np.uint8), 1 / 60
        )
        relax_rigid_distances(rigid, inv_mass, i, j, rest, alive)
    np.testing.assert_array_equal(general, rigid)


def python_relax(pos, inv_mass, i, j, rest, alive):
    """The PBD projection written out in plain Python, one constraint at a time."""
    pos = pos.copy()
    for c in range(len(i)):
        a, b = int(i[c]), int(j[c])
        w = inv_mass[a] + inv_mass[b]
        if not alive[c] or w == 0:
            continue
        d = pos[a] - pos[b]
        length = math.hypot(*d)
        correction = (length - rest[c]) / w * d / length
        pos[a] -= inv_mass[a] * correction
        pos[b] += inv_mass[b] * correction
    return pos


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31))
def test_rigid_kernel_matches_a_plain_python_projection(seed: int) -> None:
    pos, inv_mass, i, j, rest, alive = random_mesh(seed)
    expected = python_relax(pos, inv_mass, i, j, rest, alive)
    relax_rigid_distances(pos, inv_mass, i, j, rest, alive)
    np.testing.assert_allclose(pos, expected, rtol=0, atol=1e-9)


def test_a_pinned_end_never_moves_and_the_other_takes_the_whole_correction() -> None:
    pos = np.array([[0.0, 0.0], [30.0, 0.0]])
    relax_rigid_distances(
        pos,
        np.array([0.0, 1.0]),
        np.array([0], np.uint32),
        np.array([1], np.uint32),
        np.array([10.0]),
        np.array([True]),
    )
    np.testing.assert_allclose(pos, [[0.0, 0.0], [10.0, 0.0]])


def test_compliant_constraint_converges_to_the_spring_equilibrium() -> None:
    # One free particle hanging from a pin by a compliant thread: XPBD's fixed
    # point is Hooke's law, stretch = compliance × force = α m g.
    pos = np.array([[0.0, 0.0], [0.0, -10.0]])
    prev = pos.copy()
    inv_mass = np.array([0.0, 1.0])
    i, j = np.array([0], np.uint32), np.array([1], np.uint32)
    rest, alpha, g, dt = np.array([10.0]), 1e-3, 980.0, 1 / 60
    for _ in range(3000):
        velocity = (pos[1] - prev[1]) * 0.99
        prev[1] = pos[1]
        pos[1] = pos[1] + velocity + np.array([0.0, -g]) * dt * dt
        lam = np.zeros(1)
        for _ in range(20):
            relax_distances(
                pos, inv_mass, i, j, rest, np.array([alpha]), lam, np.array([True]), np.zeros(1, np.uint8), dt
            )
    assert abs((-pos[1, 1] - 10.0) - alpha * g) < 1e-6


def test_cut_kills_exactly_the_threads_the_stroke_crosses() -> None:
    pos = np.array([[0.0, 0.0], [0.0, 10.0], [5.0, 0.0], [5.0, 10.0], [20.0, 0.0], [20.0, 10.0]])
    i = np.array([0, 2, 4], np.uint32)
    j = np.array([1, 3, 5], np.uint32)
    alive = np.ones(3, bool)
    assert sweep_cut(pos, pos, i, j, alive, -1.0, 5.0, 10.0, 5.0, 0.0, 1.0) == 2
    assert alive.tolist() == [False, False, True]


def test_cut_touching_a_thread_at_either_end_counts() -> None:
    pos = np.array([[0.0, 0.0], [0.0, 10.0], [5.0, 0.0], [5.0, 10.0]])
    i = np.array([0, 2], np.uint32)
    j = np.array([1, 3], np.uint32)
    alive = np.ones(2, bool)
    # from the first thread's middle to the second's top end
    assert sweep_cut(pos, pos, i, j, alive, 0.0, 5.0, 5.0, 10.0, 0.0, 1.0) == 2


def blade_along_y5_cuts(then: list[list[float]], now: list[list[float]]) -> bool:
    """Whether a blade run along y = 5 from x = 0 to 10 cuts the one thread whose ends move from
    ``then`` to ``now`` meanwhile."""
    i, j = np.array([0], np.uint32), np.array([1], np.uint32)
    return (
        sweep_cut(np.array(then), np.array(now), i, j, np.ones(1, bool), 0.0, 5.0, 10.0, 5.0, 0.0, 1.0) == 1
    )


def test_cut_sweeps_a_thread_that_moves_across_the_blades_path() -> None:
    # a vertical thread slides from x = 20 to x = -10: the tip meets it halfway
    assert blade_along_y5_cuts([[20.0, 0.0], [20.0, 10.0]], [[-10.0, 0.0], [-10.0, 10.0]])
    # against the cloth as it is now alone, the thread lies left of the segment: missed
    assert not blade_along_y5_cuts([[-10.0, 0.0], [-10.0, 10.0]], [[-10.0, 0.0], [-10.0, 10.0]])


def test_cut_sees_the_cloth_as_it_was_when_the_blade_was_there() -> None:
    # a thread under the segment's start at first, that then drops away below the blade's end:
    # the tip was at x = 0 when the thread was there, so it is cut, though now it lies elsewhere
    assert blade_along_y5_cuts([[0.0, 0.0], [0.0, 10.0]], [[10.0, -20.0], [10.0, -10.0]])
    assert not blade_along_y5_cuts([[10.0, -20.0], [10.0, -10.0]], [[10.0, -20.0], [10.0, -10.0]])


def test_orphans_die_with_any_parent() -> None:
    alive = np.array([True, False, True, True])
    parents = np.array([[-1, -1], [-1, -1], [0, 1], [0, -1]])
    assert kill_orphans(alive, parents) == 1
    assert alive.tolist() == [True, False, False, True]


def test_bounds_put_points_back_and_floor_friction_halves_sliding() -> None:
    pos = np.array([[-5.0, 50.0], [50.0, -3.0], [50.0, 50.0]])
    prev = np.array([[-5.0, 50.0], [40.0, -3.0], [50.0, 50.0]])
    points = np.zeros(3, np.uint8)
    clamp_to_bounds(
        pos,
        prev,
        np.ones(3),
        np.array([1.0, 1.0, 0.0]),
        points,
        0.0,
        0.0,
        100.0,
        100.0,
        0.5,
        0.6,
        0.0,
        0.1,
        0.0,
        0.0,
    )
    np.testing.assert_allclose(pos, [[1.0, 50.0], [50.0, 1.0], [50.0, 50.0]])
    assert prev[1, 0] == 45.0  # horizontal speed 10 -> 5 px per step


def test_a_circle_bounces_off_the_floor_with_the_restitution_and_its_overshoot_mirrored() -> None:
    # falling 4 px a step, 2 px into the floor (whose edge, inset by the radius, is y = 1)
    pos = np.array([[50.0, -1.0]])
    prev = np.array([[50.0, 3.0]])
    circle = np.ones(1, np.uint8)
    clamp_to_bounds(
        pos, prev, np.ones(1), np.ones(1), circle, 0.0, 0.0, 100.0, 100.0, 0.5, 0.6, 0.0, 0.1, 0.0, 0.0
    )
    np.testing.assert_allclose(pos, [[50.0, 1.0 + 0.6 * 2.0]])
    np.testing.assert_allclose(pos - prev, [[0.0, 0.6 * 4.0]])  # up at 60% of the speed


def test_a_slow_circle_rests_on_the_floor_and_friction_slows_its_slide() -> None:
    pos = np.array([[50.0, 0.99]])
    prev = np.array([[49.0, 1.0]])  # sliding 1 px a step, sinking 0.01 (below the rest speed)
    circle = np.ones(1, np.uint8)
    clamp_to_bounds(
        pos, prev, np.ones(1), np.ones(1), circle, 0.0, 0.0, 100.0, 100.0, 0.5, 0.6, 10.0, 0.1, 0.0, 0.0
    )
    assert pos[0, 1] == 1.0 and prev[0, 1] == 1.0  # no hop
    assert (pos - prev)[0, 0] == pytest.approx(
        1.0 - 10.0 * 0.01
    )  # Coulomb: μ times the normal velocity change


def test_a_moving_wall_throws_what_it_hits() -> None:
    # a circle at rest touching the left wall, which moves right at 3 px a step
    pos = np.array([[0.5, 50.0]])
    prev = pos.copy()
    circle = np.ones(1, np.uint8)
    clamp_to_bounds(
        pos, prev, np.ones(1), np.ones(1), circle, 0.0, 0.0, 100.0, 100.0, 0.5, 0.0, 0.0, 0.1, 3.0, 0.0
    )
    assert pos[0, 0] == 1.0
    assert (pos - prev)[0, 0] == 3.0  # it leaves with the wall's velocity (restitution 0)


def test_the_kernel_cache_folder_is_new_when_any_kernel_file_changes_and_kept_while_none_does(
    tmp_path: Path,
) -> None:
    # a kernel's cache also holds the kernels it calls, which numba does not check
    sources, base = tmp_path / "kernels", tmp_path / "cache"
    sources.mkdir()
    (sources / "solver.py").write_text("def solve(): pass\n")
    (sources / "frame.py").write_text("from solver import solve\n")
    first = cache_folder(sources, base)
    assert first.is_dir() and first.parent == base
    assert cache_folder(sources, base) == first
    (sources / "solver.py").write_text("def solve(): return 1\n")  # a callee changes, not frame.py
    assert cache_folder(sources, base) != first


def test_only_the_newest_kernel_cache_folders_are_kept(tmp_path: Path) -> None:
    base = tmp_path / "cache"
    old = [base / f"{k:016x}" for k in range(KEPT_CACHES + 2)]
    for age, folder in enumerate(old):
        folder.mkdir(parents=True)
        os.utime(folder, (1000.0 + age, 1000.0 + age))
    (tmp_path / "k.py").write_text("x = 1\n")
    current = cache_folder(tmp_path, base)
    kept = sorted(p.name for p in base.iterdir())
    assert kept == sorted([current.name, *(f.name for f in old[-(KEPT_CACHES - 1) :])])


def test_every_kernel_caches_in_the_users_folder_and_numbas_setting_is_left_as_the_host_had_it() -> None:
    import importlib
    import pkgutil

    import numba

    import weft.systems.kernels as kernels

    cached = []
    for module in pkgutil.iter_modules(kernels.__path__):
        found = importlib.import_module(f"weft.systems.kernels.{module.name}")
        for value in vars(found).values():
            cache = getattr(value, "_cache", None)
            if getattr(value, "__module__", None) == found.__name__ and hasattr(cache, "_cache_path"):
                cached.append((value.__name__, Path(cache._cache_path)))
    assert len(cached) > 20
    outside = [name for name, path in cached if kernels.CACHE_DIR not in path.parents]
    assert not outside, f"kernels caching outside {kernels.CACHE_DIR}: {outside}"
    assert os.environ.get("NUMBA_CACHE_DIR", "") == numba.config.CACHE_DIR


def test_the_kernels_copies_of_enum_values_and_sizes_match_their_homes() -> None:
    # kernels import only numpy, numba and math, so they copy a few values from components/: each
    # copy is tied to its home here, where a change to one without the other fails
    from weft.components import ParticleKind, rigid, skin
    from weft.systems.kernels import bone_weights, bounds, box_contact_solver, box_contacts, grid, sweep

    assert grid.CIRCLE == bounds.CIRCLE == sweep.CIRCLE == ParticleKind.CIRCLE
    assert grid.RING == ParticleKind.RING
    assert box_contacts.PLANES == rigid.PLANES
    assert box_contact_solver.WORLD_ITERATIONS == rigid.WORLD_ITERATIONS
    assert bone_weights.MAX_INFLUENCES == skin.MAX_INFLUENCES


def test_only_kernels_with_threads_call_kernels_with_threads_and_their_twins_call_twins() -> None:
    # the one-thread twin of a kernel is its code with each callee with threads swapped for that
    # callee's twin: a kernel without threads calling one with would pull threads into the twins
    import importlib
    import pkgutil

    import numba

    import weft.systems.kernels as kernels
    from weft.systems.kernels.jit import has_threads, one_thread

    threaded = []
    for module in pkgutil.iter_modules(kernels.__path__):
        found = importlib.import_module(f"weft.systems.kernels.{module.name}")
        for value in vars(found).values():
            if isinstance(value, numba.core.registry.CPUDispatcher) and value.__module__ == found.__name__:
                func = value.py_func
                callees = [func.__globals__.get(name) for name in func.__code__.co_names]
                if not has_threads(value):
                    assert not any(has_threads(c) for c in callees), (
                        f"{func.__name__} calls a kernel with threads"
                    )
                    continue
                threaded.append(func.__name__)
                twin = one_thread(value).py_func
                assert not any(has_threads(twin.__globals__.get(name)) for name in twin.__code__.co_names)
                assert kernels.CACHE_DIR in Path(one_thread(value)._cache._cache_path).parents
    assert {"step_boxes", "solve_boxes", "solve_pass", "box_pairs"} <= set(threaded)


WALLS = (0.0, 0.0, 400.0, 300.0)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.floats(0.0, 30.0))
def test_the_walls_test_passes_only_when_the_clamp_would_move_nothing(seed: int, reach: float) -> None:
    rng = np.random.default_rng(seed)
    n = 50
    pos = rng.uniform([-reach, -reach], [400.0 + reach, 300.0 + reach], (n, 2))
    prev = pos + rng.normal(0.0, 2.0, (n, 2))
    radius = rng.choice([0.0, 1.0, 6.0], n)
    inv_mass = np.where(rng.random(n) < 0.1, 0.0, 1.0)
    kind = rng.integers(0, 2, n).astype(np.uint8)
    clamped_pos, clamped_prev = pos.copy(), prev.copy()
    clamp_to_bounds(clamped_pos, clamped_prev, radius, inv_mass, kind, *WALLS, 0.5, 0.5, 0.2, 0.1, 0.0, 0.0)
    inside = all_inside_walls(pos, radius, *WALLS)
    if inside:
        np.testing.assert_array_equal(clamped_pos, pos)
        np.testing.assert_array_equal(clamped_prev, prev)
    if not np.array_equal(clamped_pos, pos) or not np.array_equal(clamped_prev, prev):
        assert not inside


@pytest.mark.parametrize("x, y", [(-0.5, 50.0), (50.0, -0.5), (402.0, 50.0), (50.0, 298.5), (math.nan, 50.0)])
def test_a_disc_past_any_wall_or_not_a_number_fails_the_walls_test(x: float, y: float) -> None:
    pos = np.array([[200.0, 150.0], [x, y], [100.0, 100.0]])
    radius = np.array([1.0, 2.0, 1.0])
    assert all_inside_walls(pos[[0, 2]], radius[[0, 2]], *WALLS)
    assert not all_inside_walls(pos, radius, *WALLS)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.integers(-5, 60))
def test_the_walls_test_in_two_halves_agrees_with_the_test_in_one(seed: int, split: int) -> None:
    rng = np.random.default_rng(seed)
    pos = rng.uniform([-3.0, -3.0], [403.0, 303.0], (50, 2))
    radius = rng.choice([0.0, 1.0], 50)
    with numba_threads(min(2, numba.config.NUMBA_NUM_THREADS)):
        halves = all_inside_walls_in_two(pos, radius, *WALLS, max(split, 0))
    assert halves == all_inside_walls(pos, radius, *WALLS)


def _zeros_then_prange(options: object = ONLY_PRANGE) -> object:
    """A kernel that makes an array with ``np.zeros`` before its ``prange``, as the claims' kernels
    make their counters (compiled anew each call of this function), with ``options`` for numba's
    ``parallel``."""

    @numba.njit(parallel=options)
    def halves(a: np.ndarray) -> float:
        counters = np.zeros(16)
        for half in numba.prange(2):
            a[half] += counters[half] + 1.0
        return a[0]

    return halves


def test_every_threaded_kernel_compiles_with_only_its_pranges_threaded() -> None:
    # numba takes the keys out of a dict of parallel options as it reads them: with the options a
    # shared dict, every kernel compiled after the first got plain parallel=True, its np.zeros a
    # threaded loop of its own (one function more than a kernel with only its prange threaded)
    only_prange = {name: False for name in ("comprehension", "setitem", "inplace_binop", "reduction")}
    only_prange |= {"numpy": False, "stencil": False, "fusion": False, "prange": True}
    reference = _zeros_then_prange(ParallelOptions(only_prange))
    reference(np.zeros(2))
    expected = reference.inspect_llvm(reference.signatures[0]).count("define")
    first, second = _zeros_then_prange(), _zeros_then_prange()
    for kernel in (first, second):
        kernel(np.zeros(2))
        kernel(np.zeros(2, dtype=np.float32))  # a second signature reads the options again
    loops = [k.inspect_llvm(signature).count("define") for k in (first, second) for signature in k.signatures]
    assert loops == [expected] * 4
