"""Cross-check the dedup goldens against datasketch (instructor script, trusted; not a graded test).

    .venv/bin/python tests/dedup/crosscheck_datasketch.py

- every stored lsh_params golden equals datasketch.lsh._optimal_param on the same
  (threshold, num_perm, fp_weight, fn_weight);
- the reference MinHasher's estimates and datasketch.MinHash's estimates of the stored
  estimator pairs are both within the stated Hoeffding bound of the exact Jaccard, and
  datasketch's signatures and estimates (public and hidden estimator tests) pass the tests'
  named check, min-of-union included (a datasketch-backed implementation scores them).
Exits non-zero on any disagreement.
"""

import math
import sys
from pathlib import Path
from types import SimpleNamespace

from datasketch import MinHash
from datasketch.lsh import _optimal_param

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1]), str(HERE.parents[1] / "solutions")]

from checks import estimates_within_bound  # noqa: E402 (this folder's parent-side checks)

from autograder.authoring.crosscheck import Golden, main  # noqa: E402
from dedup import MinHasher, estimate_jaccard  # noqa: E402

LSH_TESTS = {("public", "test_lsh_params"), ("hidden", "test_lsh_params_weighted")}


def lsh_params(golden: Golden):
    """Each stored (threshold, num_perm, fp_weight, fn_weight) case: golden == datasketch."""
    names = golden.observed()
    for case in golden.cases:
        head = f"lsh_params({case['threshold']}, {case['num_perm']}"
        exact = [f"{head}, {case['fp_weight']}, {case['fn_weight']})",
                 f"{head}, {case['fp_weight']})", f"{head})"]
        if (case["fp_weight"], case["fn_weight"]) != (0.5, 0.5):
            exact.pop()  # a weighted case is never recorded under the defaults' name
        found = [n for n in exact if n in names] or [n for n in names if n.startswith(head)]
        ours = golden.expected(found[0])
        theirs = list(_optimal_param(case["threshold"], case["num_perm"], case["fp_weight"],
                                     case["fn_weight"]))
        yield golden.finding(found[0], None if ours == theirs else
                             f"golden {ours}, datasketch {theirs}")


def _datasketch_signature(shingles, k: int, seed: int) -> list:
    m = MinHash(num_perm=k, seed=seed)
    m.update_batch([s.encode() for s in shingles])
    return [int(v) for v in m.hashvalues]


def estimator_error(golden: Golden):
    """The reference MinHasher's and datasketch.MinHash's estimates of the stored pairs are both
    within the stated Hoeffding bound of the exact Jaccard, and datasketch's signatures and
    estimates, recorded as the test records a submission's, pass the test's named check
    (min-of-union and the bound on the signatures' agreement too): a datasketch-backed
    implementation scores the test."""
    est = golden.cases
    k, seed = est["num_perm"], int(est.get("seed", 11))
    bound = math.sqrt(math.log(2 * len(est["pairs"]) / 1e-7) / (2 * k))
    hasher = MinHasher(k, seed=seed)
    recorded = {"estimates": [], "signatures": []}
    for i, pair in enumerate(est["pairs"]):
        a, b = set(pair["a"]), set(pair["b"])
        exact = len(a & b) / len(a | b)
        sig_a, sig_b = _datasketch_signature(a, k, seed), _datasketch_signature(b, k, seed)
        ours = estimate_jaccard(hasher.signature(a), hasher.signature(b))
        theirs = sum(x == y for x, y in zip(sig_a, sig_b)) / k
        recorded["estimates"].append(theirs)
        recorded["signatures"].append({"union": _datasketch_signature(a | b, k, seed),
                                       "a": sig_a, "b": sig_b})
        ok = abs(ours - exact) <= bound and abs(theirs - exact) <= bound
        yield golden.finding(f"pair {i}", None if ok else
                             f"exact {exact:.3f} reference {ours:.3f} datasketch {theirs:.3f} "
                             f"(bound {bound:.3f})")
    problem = estimates_within_bound(recorded, SimpleNamespace(inputs=est, name="estimates"))
    yield golden.finding("estimates", problem and f"datasketch fails the named check: {problem}")


def datasketch_oracle(golden: Golden):
    if (golden.visibility, golden.id) in LSH_TESTS:
        yield from lsh_params(golden)
    elif golden.id in ("test_estimator_error", "test_estimator_error_hidden"):
        yield from estimator_error(golden)


if __name__ == "__main__":
    sys.exit(main(__file__, datasketch_oracle, "datasketch"))
