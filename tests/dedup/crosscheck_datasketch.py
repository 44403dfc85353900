"""Cross-check the dedup goldens against datasketch (instructor script, trusted; not a graded test).

    .venv/bin/python tests/dedup/crosscheck_datasketch.py

- every stored lsh_params golden equals datasketch.lsh._optimal_param on the same
  (threshold, num_perm, fp_weight, fn_weight);
- the reference MinHasher's estimates and datasketch.MinHash's estimates of the stored
  estimator pairs are both within the stated Hoeffding bound of the exact Jaccard.
Exits non-zero on any disagreement.
"""

import json
import math
import sys
from pathlib import Path

from datasketch import MinHash
from datasketch.lsh import _optimal_param

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "solutions"))

from dedup import MinHasher, estimate_jaccard


def load(kind: str, vis: str) -> dict:
    return json.loads((HERE / kind / f"{vis}.json").read_text())


def main() -> int:
    bad = 0
    for vis, test_id in (("public", "test_lsh_params"), ("hidden", "test_lsh_params_weighted")):
        cases = load("inputs", vis)[test_id]
        goldens = load("goldens", vis)["tests"][test_id]["observations"]
        names = list(goldens)
        for case in cases:
            head = f"lsh_params({case['threshold']}, {case['num_perm']}"
            exact = [f"{head}, {case['fp_weight']}, {case['fn_weight']})",
                     f"{head}, {case['fp_weight']})", f"{head})"]
            if (case["fp_weight"], case["fn_weight"]) != (0.5, 0.5):
                exact.pop()  # a weighted case is never recorded under the defaults' name
            found = [n for n in exact if n in goldens] or [n for n in names if n.startswith(head)]
            ours = goldens[found[0]]["expected"]
            theirs = list(_optimal_param(case["threshold"], case["num_perm"], case["fp_weight"],
                                         case["fn_weight"]))
            ok = ours == theirs
            bad += not ok
            args = (case["threshold"], case["num_perm"], case["fp_weight"], case["fn_weight"])
            print(f"{'ok ' if ok else 'BAD'} lsh_params{args}: golden {ours}, "
                  f"datasketch {theirs}")
    est = load("inputs", "public")["test_estimator_error"]
    k = est["num_perm"]
    bound = math.sqrt(math.log(2 * len(est["pairs"]) / 1e-7) / (2 * k))
    hasher = MinHasher(k, seed=11)
    for i, pair in enumerate(est["pairs"]):
        a, b = set(pair["a"]), set(pair["b"])
        exact = len(a & b) / len(a | b)
        ma, mb = MinHash(num_perm=k), MinHash(num_perm=k)
        ma.update_batch([s.encode() for s in a])
        mb.update_batch([s.encode() for s in b])
        ours = estimate_jaccard(hasher.signature(a), hasher.signature(b))
        theirs = ma.jaccard(mb)
        ok = abs(ours - exact) <= bound and abs(theirs - exact) <= bound
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} pair {i}: exact {exact:.3f} reference {ours:.3f} "
              f"datasketch {theirs:.3f} (bound {bound:.3f})")
    print("all agree" if not bad else f"{bad} disagreements")
    return int(bad > 0)


if __name__ == "__main__":
    sys.exit(main())
