"""The hand assignment's own solver (`vision.landmarks.assign.min_cost_assignment`) against
SciPy's `linear_sum_assignment`, which it replaces in the live process."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from vision.landmarks.assign import INVALID, min_cost_assignment

# Costs as the assignment makes them: pose distances, 1 + a face distance, 3.0 for a seat's
# region, INVALID for a pair that may not be made; small integers too, so that ties are common.
COST = st.one_of(
    st.sampled_from([0.0, 1.0, 2.0, 3.0, INVALID]),
    st.floats(min_value=0.0, max_value=4.0, allow_nan=False),
)


@st.composite
def matrices(draw) -> np.ndarray:
    n = draw(st.integers(0, 7))
    m = draw(st.integers(0, 9))
    return np.array(draw(st.lists(st.lists(COST, min_size=m, max_size=m), min_size=n, max_size=n)), float).reshape(n, m)


@settings(max_examples=400, deadline=None)
@given(matrices())
def test_least_total_cost_as_scipy(cost: np.ndarray) -> None:
    rows, cols = min_cost_assignment(cost)
    want_rows, want_cols = linear_sum_assignment(cost)
    assert len(rows) == len(cols) == min(cost.shape)
    assert len(set(rows.tolist())) == len(rows) and len(set(cols.tolist())) == len(cols)
    assert list(rows) == sorted(rows)
    assert cost[rows, cols].sum() == pytest.approx(cost[want_rows, want_cols].sum(), abs=1e-6)
    # the pairs that may be made: as many as SciPy's (INVALID outweighs every sum of real costs)
    assert int((cost[rows, cols] < INVALID).sum()) == int((cost[want_rows, want_cols] < INVALID).sum())


def test_worked_example() -> None:
    # two hands, one seat's two sides: the left hand's pose wrist is near, the right only by face
    cost = np.array([[0.1, INVALID], [0.2, 1.4]])
    rows, cols = min_cost_assignment(cost)
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]
    # three hands for two slots: the farthest is left out
    rows, cols = min_cost_assignment(np.array([[0.5, 2.0], [0.1, 0.3], [3.0, 3.0]]))
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1]


@pytest.mark.parametrize("bad", [np.zeros(3), np.array([[0.0, np.nan]]), np.array([[np.inf]])])
def test_bad_matrix_named(bad: np.ndarray) -> None:
    with pytest.raises(ValueError, match="cost matrix"):
        min_cost_assignment(bad)


def test_live_process_does_without_scipy() -> None:
    code = (
        "import sys, numpy as np\n"
        "from vision.landmarks import assign\n"
        "assign.min_cost_assignment(np.ones((2, 4)))\n"
        "print(any(m == 'scipy' or m.startswith('scipy.') for m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
