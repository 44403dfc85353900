"""Bulk-grading figures. Measured now: similarity clustering of 500 generated submissions
(datasketch MinHashLSH) against exact all-pairs Jaccard, the method it replaced. Not measured
yet (rows say so): 1 vs 2 local jobs on 40 submissions, per-submission overhead, Dask."""

from __future__ import annotations

import itertools
import random
import tempfile
import time
from pathlib import Path

from autograder.similarity import clusters, code_shingles

N = 500


def _program(rng: random.Random, n: int = 20) -> str:
    def expr(depth: int) -> str:
        if depth == 0:
            return rng.choice(["x", "y", "1", "'s'", "x[0]", "len(y)"])
        form = rng.choice(["({} + {})", "({} * {})", "({} - {})", "[{}, {}]", "f({}, {})",
                           "({} if {} else 0)", "{{{}: {}}}", "({} % {})"])
        return form.format(*(expr(depth - 1) for _ in range(form.count("{}"))))

    return "\n".join(f"def f{i}(x, y):\n    return {expr(3)}\n" for i in range(n))


def _all_pairs(subs: dict[str, Path]) -> int:
    shingles = {s: code_shingles(p) for s, p in subs.items()}
    return sum(len(shingles[a] & shingles[b]) / len(shingles[a] | shingles[b]) >= 0.9
               for a, b in itertools.combinations(sorted(shingles), 2))


def rows() -> list[dict]:
    rng = random.Random(0)
    with tempfile.TemporaryDirectory() as tmp:
        subs = {}
        for i in range(N):
            d = Path(tmp) / f"s{i}"
            d.mkdir()
            (d / "m.py").write_text(_program(rng))
            subs[d.name] = d
        started = time.perf_counter()
        clusters(subs)
        ours = time.perf_counter() - started
        started = time.perf_counter()
        _all_pairs(subs)
        peer = time.perf_counter() - started
    missing = "not measured yet"
    return [
        {"group": "bulk", "what": f"similarity clusters, {N} generated submissions",
         "ours": ours, "peer": peer, "peer_name": "exact all-pairs Jaccard", "unit": "s",
         "ratio": ours / peer, "note": "lower is better"},
        *[{"group": "bulk", "what": what, "ours": float("nan"), "peer": None, "peer_name": None,
           "unit": "", "ratio": None, "note": missing}
          for what in ("throughput 2 jobs vs 1, 40 submissions",
                       "per-submission overhead beyond the tests", "Dask vs local")],
    ]


if __name__ == "__main__":
    for row in rows():
        print(row)
