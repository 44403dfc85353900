"""Named checks say what they measured: a diagnosis only where the check
computed it (the p-value equals a named variant), otherwise the difference itself."""

from types import SimpleNamespace

import numpy as np
from scipy import stats

from autograder.assignments import load


def _welch(got_p_of, a, b):
    checks = load("repro").checks
    ctx = SimpleNamespace(inputs=[{"a": a, "b": b}], name="welch[0]")
    t = float(stats.ttest_ind(a, b, equal_var=False).statistic)
    return checks.matches_scipy_welch([t, float(got_p_of(t))], ctx)


def _df(a, b):
    va, vb = np.var(a, ddof=1) / len(a), np.var(b, ddof=1) / len(b)
    return (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))


A = [0.3, -1.2, 0.8, 0.1, -0.4, 1.1, 0.2, -0.9, 0.5, 0.05]
B = [2.1, 3.4, 0.9, 2.8, 4.0, 1.7, 3.3]  # mean above A's: t < 0


def test_welch_names_the_tail_only_where_the_tail_is_wrong():
    df = _df(A, B)
    message = _welch(lambda t: 2 * stats.t.sf(t, df), A, B)  # forgot |t|
    assert "the two-sided p needs |t|" in message and "df right" in message
    message = _welch(lambda t: stats.t.sf(abs(t), df), A, B)  # one tail
    assert "doubles it" in message and "df right" in message
    message = _welch(lambda t: 2 * stats.t.sf(abs(t), len(A) + len(B) - 2), A, B)
    assert "df wrong" in message and "tail right" in message


def test_welch_without_a_computed_diagnosis_states_the_difference():
    message = _welch(lambda t: 0.5, A, B)
    assert message.startswith("statistic right; p-value 0.5 expected")
    assert "wrong" not in message and "needs" not in message
    assert _welch(lambda t: 2 * stats.t.sf(abs(t), _df(A, B)), A, B) is None
