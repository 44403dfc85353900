"""The hint rule (SPEC §3 "Hints"; autograder/grading/hints.py): a mutant's hint
fires only when the whole failing test fits it, never on one tiny observation beside failures
it does not explain, and across a run the best-supported mutant comes first."""

from types import SimpleNamespace

from autograder.grading import store
from autograder.grading.compare import Observed
from autograder.grading.hints import Fit, low_information, mutant_fits, rank_across_run, ranked_hints
from autograder.grading.report import ALSO_PREFIX, HINT_PREFIX

GOLDEN = {"n": 4, "order": [0, 1, 2, 3], "mean": 1.5}
TEST = store.TestSpec("t", 1.0, None, "test_t.py",
                      {k: store.ObservationSpec("exact", expected=v) for k, v in GOLDEN.items()},
                      1, "t")


def observed(**changes):
    return {k: Observed(changes.get(k, v)) for k, v in GOLDEN.items()}


def hints(mutants, seen, failing, **kw):
    return ranked_hints(TEST, seen, failing, mutants, None, None, **kw)


def test_a_passing_observation_the_mutant_fails_contradicts_it():
    padded = store.MutantValues("padded", "padded", {"t": {"n": 5, "order": [0, 1, 2, 3, 0]}})
    # the student's length is the mutant's, but their order is right: not the padding bug
    assert hints([padded], observed(n=5), {"n"}) == []
    assert hints([padded], observed(n=5, order=[0, 1, 2, 3, 0]), {"n", "order"}) == ["padded"]


def test_every_failing_observation_where_the_mutant_differs_must_match():
    m = store.MutantValues("m", "m", {"t": {"order": [3, 2, 1, 0], "mean": 2.5}})
    assert hints([m], observed(order=[3, 2, 1, 0], mean=9.5), {"order", "mean"}) == []
    assert hints([m], observed(order=[3, 2, 1, 0], mean=2.5), {"order", "mean"}) == ["m"]


def test_one_tiny_observation_beside_unexplained_failures_names_nothing():
    short = store.MutantValues("short", "short", {"t": {"n": 3}})
    # n alone is a small integer; the student also fails order, which `short` does not explain
    assert hints([short], observed(n=3, order=[1, 0, 2]), {"n", "order"}) == []
    # where the tiny difference is all the test says, it may name the mutant
    assert hints([short], observed(n=3), {"n"}) == ["short"]
    assert low_information(True) and low_information(12) and not low_information(2.5)
    assert not low_information("RecursionError") and not low_information(10**6)


def test_an_unkept_value_neither_confirms_nor_contradicts():
    big = store.MutantValues("big", "big", {"t": {"mean": 2.5}}, unkept={"t": ["order"]})
    assert hints([big], observed(order=[9], mean=2.5), {"order", "mean"}) == ["big"]
    # but the mutant fails `order`, so a student who passes it is not this mutant
    assert hints([big], observed(mean=2.5), {"mean"}) == []


def test_local_mode_leaves_pending_observations_open():
    m = store.MutantValues("m", "m", {"t": {"order": [3, 2, 1, 0], "mean": 2.5}})
    seen = {"n": Observed(4), "order": Observed([3, 2, 1, 0])}
    assert hints([m], seen, {"order"}, pending=frozenset({"mean"})) == ["m"]


def test_across_the_run_the_best_supported_mutant_comes_first():
    a, b = Fit("a", 1, 0, 0), Fit("b", 1, 0, 1)
    # test 1: both fit one observation; test 2: only b fits, on three: b leads everywhere
    assert rank_across_run([[a, b], [Fit("b", 3, 0, 1)]]) == [["b", "a"], ["b"]]
    assert rank_across_run([[a, b]]) == [["a", "b"]]  # a tie keeps the mutants' order
    fits = mutant_fits(TEST, observed(mean=2.5), {"mean"},
                       [store.MutantValues("x", "x", {"t": {"mean": 2.5}})], None, None)
    assert fits == [Fit("x", 1, 0, 0)]
    assert HINT_PREFIX != ALSO_PREFIX


def test_a_mutant_explaining_too_little_of_the_failure_names_nothing():
    m = store.MutantValues("m", "m", {"t": {"order": [3, 2, 1, 0]}})
    # the order is the mutant's, but n and mean fail too: one match, two unexplained
    assert hints([m], observed(n=5, order=[3, 2, 1, 0], mean=9.5), {"n", "order", "mean"}) == []
    assert hints([m], observed(order=[3, 2, 1, 0], mean=9.5), {"order", "mean"}) == []
    assert hints([m], observed(order=[3, 2, 1, 0]), {"order"}) == ["m"]


def test_a_mutant_another_test_contradicts_names_nothing_in_the_run():
    m = store.MutantValues("m", "m", {"t": {"mean": 2.5}, "u": {"v": 7.5}}, ("t", "u"))
    other = store.TestSpec("u", 1.0, None, "test_u.py",
                           {"v": store.ObservationSpec("exact", expected=1.5)}, 1, "u")
    refuted: set[str] = set()
    fits = mutant_fits(TEST, observed(mean=2.5), {"mean"}, [m], None, None, refuted=refuted)
    assert [f.hint for f in fits] == ["m"] and not refuted
    # the student passes u, which the mutant fails: its fit on t is a coincidence
    assert mutant_fits(other, {"v": Observed(1.5)}, set(), [m], None, None,
                       refuted=refuted) == [] and refuted == {"m"}
    assert rank_across_run([fits, []], refuted) == [[], []]


def test_a_tag_several_mutants_share_names_none_of_them():
    spec = store.ObservationSpec("check", expected=[1, 2], check="c")
    test = store.TestSpec("t", 1.0, None, "test_t.py", {"a": spec}, 1, "t")
    checks = SimpleNamespace(c=lambda observed, ctx: None if observed == [1, 2]
                             else ("too_many", "too many positives"))
    one = store.MutantValues("one", "one", {"t": {"a": [9, 9]}}, ("t",), tags={"t": {"a": "too_many"}})
    two = store.MutantValues("two", "two", {"t": {"a": [8, 8]}}, ("t",), tags={"t": {"a": "too_many"}})
    seen = {"a": Observed([7, 7])}  # the symptom, but neither mutant's values
    assert ranked_hints(test, seen, {"a"}, [one, two], None, checks) == []
    assert ranked_hints(test, seen, {"a"}, [one], None, checks) == ["one"]  # a unique tag names
    assert ranked_hints(test, {"a": Observed([9, 9])}, {"a"}, [one, two], None, checks) == ["one"]
