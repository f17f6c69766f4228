"""Behaviour pinned: each shipped level, run for ``FRAMES`` frames, ends on the stored state hash and
settles at the stored frame (``tests/golden/levels.json``).

Unlike two runs compared in one process, this fails when the behaviour itself changes: a system
reordered, a kernel's arithmetic, a default, a level file. When the change is meant, pin it again with
``python tests/pin.py RUN --write`` and commit the new values with it. The hash is of every position's
bits, so it holds on a machine with the same numpy, numba and CPU family; elsewhere the last bits of a
transcendental may differ, and the failure's list of metrics tells a rounding (every metric as
stored) from a change of behaviour.
"""

from __future__ import annotations

import pytest
from support.golden import FRAMES, SCRIPTED, differences, measure, pinned, run_names


def test_every_shipped_level_and_the_scripted_run_is_pinned() -> None:
    stored = pinned()
    assert sorted(stored) == sorted(run_names()), "pin the new runs: python tests/pin.py --write"
    assert all(values["frames"] == FRAMES for name, values in stored.items() if name != SCRIPTED)
    assert stored[SCRIPTED]["counts"]["torn"] > 0  # the script tears the sheet: the tools are in it
    assert len({values["state_hash"] for values in stored.values()}) == len(stored)


@pytest.mark.parametrize("name", run_names())
def test_a_pinned_run_ends_on_its_state_hash_and_settles_at_its_frame(name: str) -> None:
    old = pinned()[name]
    new = measure(name)
    changed = "\n".join(differences(old, new))
    hint = f"if the change is meant: python tests/pin.py {name!r} --write"
    assert (new["state_hash"], new["settled_frame"]) == (old["state_hash"], old["settled_frame"]), (
        f"{name} behaves differently:\n{changed}\n{hint}"
    )
    assert new == old, f"{name} ends on its hash but its metrics moved:\n{changed}\n{hint}"
