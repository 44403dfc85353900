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



def test_welch_on_nearly_identical_samples_prints_no_warning_while_another_thread_judges(
        monkeypatch):
    """scipy warns of precision loss on nearly identical samples; the parent judges gradings
    in threads, so a check may not rely on a `catch_warnings()` block: another thread leaving
    its own block (entered after this process judged its first Welch case) restores the
    filters in the middle of this one (the demo printed scipy's warning). Here that other
    thread's exit is played just before scipy computes."""
    import warnings

    checks = load("repro").checks
    a = [0.3] * 5 + [0.30000000000000004]
    b = [x + 1e-16 for x in a]
    ctx = SimpleNamespace(inputs=[{"a": a, "b": b}], name="welch[0]")
    real = stats.ttest_ind
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("default")
        checks.matches_scipy_welch([0.0, 1.0], ctx)  # the process's first Welch case
        outside = list(warnings.filters)  # what another thread's exit would restore

        def ttest_ind(*args, **kwargs):
            warnings.filters[:] = outside
            return real(*args, **kwargs)

        monkeypatch.setattr(checks.stats, "ttest_ind", ttest_ind)
        checks.matches_scipy_welch([0.0, 1.0], ctx)
    assert not [w for w in shown if "Precision loss" in str(w.message)]
