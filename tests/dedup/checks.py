"""Parent-side named checks for dedup. Trusted: they never import student code.

Ground truth (exact Jaccard, true contamination) is recomputed here from the stored inputs with
this module's own normalize/shingles, and the LSH S-curve comes from datasketch's own parameter
choice, so nothing the sandbox reports except the observed value is trusted.

Statistical checks assume an ideal hash family (independent random permutations / positions) and
state their false-failure probability; each is below 1e-6.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from scipy.stats import binom

DELTA = 1e-7  # false-failure probability allowed to each statistical check (< 1e-6)


# ---- trusted ground truth --------------------------------------------------------------------

def _normalize(text: str) -> str:
    ### BEGIN SOLUTION
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())
    ### END SOLUTION


def _shingles(text: str, n: int) -> frozenset:
    ### BEGIN SOLUTION
    w = _normalize(text).split()
    return frozenset(" ".join(w[i:i + n]) for i in range(len(w) - n + 1))
    ### END SOLUTION


@lru_cache(maxsize=64)
def _optimal_param(threshold: float, num_perm: int) -> tuple[int, int]:
    from datasketch.lsh import _optimal_param as datasketch_optimal_param

    return datasketch_optimal_param(threshold, num_perm, 0.5, 0.5)


def _s_curve(s: float, b: int, r: int) -> float:
    ### BEGIN SOLUTION
    return 1.0 - (1.0 - s**r) ** b
    ### END SOLUTION


def _poisson_binomial_quantile(probs: list[float], delta: float = DELTA) -> int:
    """Smallest c with P(sum of independent Bernoulli(probs) > c) <= delta."""
    dist = np.zeros(len(probs) + 1)
    dist[0] = 1.0
    for p in probs:
        dist[1:] = dist[1:] * (1 - p) + dist[:-1] * p
        dist[0] *= 1 - p
    tail = 1.0 - np.cumsum(dist)
    return int(np.argmax(tail <= delta))


def _int_list(x, n_max: int) -> list[int] | None:
    if not isinstance(x, list) or not all(type(v) is int and 0 <= v < n_max for v in x):
        return None
    return x


class _Truth:
    """Exact near-duplicate structure of a stored corpus.

    groups: connected components of the 'shares a shingle' graph (independent units: documents in
    different groups have disjoint shingle sets). parts: components of the graph J >= threshold.
    risk[g]: an upper bound on the probability that a correct implementation errs inside group g
    (misses an edge: 1 - S(J) + P[estimated Jaccard falls below the threshold]; or accepts a
    non-edge: S(J)), with (b, r) = datasketch's choice for (threshold, num_perm)."""

    def __init__(self, docs: list[str], threshold: float, num_perm: int, n: int):
        ### BEGIN SOLUTION
        self.n_docs = len(docs)
        sets = [_shingles(d, n) for d in docs]
        b, r = _optimal_param(threshold, num_perm)
        by_shingle = defaultdict(list)
        for i, s in enumerate(sets):
            for g in s:
                by_shingle[g].append(i)
        pairs = {(i, j) for ids in by_shingle.values() for i in ids for j in ids if i < j}
        group_of, part_of = list(range(self.n_docs)), list(range(self.n_docs))

        def find(p, i):
            while p[i] != i:
                p[i] = p[p[i]]
                i = p[i]
            return i

        risk_edges = defaultdict(float)
        for i, j in pairs:
            jac = len(sets[i] & sets[j]) / len(sets[i] | sets[j])
            group_of[find(group_of, i)] = find(group_of, j)
            if jac >= threshold:
                part_of[find(part_of, i)] = find(part_of, j)
                miss = 1 - _s_curve(jac, b, r)
                if jac < 1:
                    miss += binom.cdf(math.ceil(threshold * num_perm), num_perm, jac)
                risk_edges[(i, j)] = miss
            else:
                risk_edges[(i, j)] = _s_curve(jac, b, r)
        self.group = [find(group_of, i) for i in range(self.n_docs)]
        self.part = [find(part_of, i) for i in range(self.n_docs)]
        risk = defaultdict(float)
        for (i, _), p in risk_edges.items():
            risk[self.group[i]] += p
        self.risk = {g: min(1.0, p) for g, p in risk.items()}
        self.allowed = _poisson_binomial_quantile(list(self.risk.values()))
        self.short = [i for i, s in enumerate(sets) if not s]
        ### END SOLUTION

    def members(self) -> dict[int, list[int]]:
        return _members(self.group)


def _members(group: list[int]) -> dict[int, list[int]]:
    out = defaultdict(list)
    for i, g in enumerate(group):
        out[g].append(i)
    return out


@lru_cache(maxsize=16)
def _truth_cached(docs: tuple, threshold: float, num_perm: int, n: int) -> _Truth:
    return _Truth(list(docs), threshold, num_perm, n)


def _truth(inputs: dict) -> _Truth | SimpleNamespace:
    stored = _released_truth(inputs)
    if stored is not None:  # the student release: no ground-truth code, only its results
        return SimpleNamespace(**stored, members=lambda: _members(stored["group"]))
    return _truth_cached(tuple(inputs["docs"]), float(inputs["threshold"]),
                         int(inputs["num_perm"]), int(inputs["n"]))


def _contaminated(train: list[str], evals: list[str], n: int) -> set[int]:
    stored = _released_truth({"train": train, "eval": evals, "n": n})
    if stored is not None:
        return set(stored["contaminated"])
    ### BEGIN SOLUTION
    grams = set().union(*(_shingles(d, n) for d in evals))
    return {i for i, d in enumerate(train) if _shingles(d, n) & grams}
    ### END SOLUTION


# ---- the student release: ground truth precomputed, keyed by its inputs -------------------

TRUTH_FIELDS = (("docs", "threshold", "num_perm", "n"), ("train", "eval", "n"))
RELEASED_TRUTH = Path(__file__).parent / "inputs" / "public_truth.json"


def _truth_key(inputs: dict) -> str | None:
    for fields in TRUTH_FIELDS:
        if all(f in inputs for f in fields):
            blob = json.dumps([fields, [inputs[f] for f in fields]], sort_keys=True, default=str)
            return hashlib.sha256(blob.encode("utf-8")).hexdigest()
    return None


@lru_cache(maxsize=1)
def _released_truths() -> dict:
    if not RELEASED_TRUTH.exists():
        return {}
    return json.loads(RELEASED_TRUTH.read_text(encoding="utf-8"))


def _released_truth(inputs: dict) -> dict | None:
    key = _truth_key(inputs)
    return _released_truths().get(key) if key else None


def release_truth(inputs: dict) -> tuple[str, dict] | None:
    """(key, truth) for one public test's inputs, or None: what the student release stores in
    inputs/public_truth.json so that its checks need no ground-truth code (release.py)."""
    key = _truth_key(inputs)
    if key is None:
        return None
    if "docs" in inputs:
        t = _truth(inputs)
        return key, {"n_docs": t.n_docs, "group": t.group, "part": t.part, "allowed": t.allowed,
                     "short": t.short}
    return key, {"contaminated": sorted(_contaminated(inputs["train"], inputs["eval"],
                                                      int(inputs["n"])))}


# ---- task 2: MinHash -------------------------------------------------------------------------

def signatures_equal(observed, ctx) -> str | None:
    """observed: a list of signatures (lists of ints) that must all be equal and non-empty."""
    if not isinstance(observed, list) or len(observed) < 2:
        return "expected a list of at least two signatures"
    first = observed[0]
    if not isinstance(first, list) or not first:
        return "a signature must be a non-empty list of integers"
    for k, other in enumerate(observed[1:], 1):
        if other != first:
            return f"signature {k} differs from signature 0: {_diff(first, other)}"
    return None


def _diff(a, b) -> str:
    if not isinstance(b, list) or len(a) != len(b):
        return "different lengths"
    bad = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    return f"{len(bad)} of {len(a)} entries differ (first at index {bad[0]})"


def _signature(x) -> list | None:
    """x as a non-empty list of non-negative ints, or None."""
    if not isinstance(x, list) or not x or \
            not all(type(v) is int and v >= 0 for v in x):
        return None
    return x


def _agreement(a: list, b: list) -> float:
    return sum(x == y for x, y in zip(a, b)) / len(a)


def _hoeffding(k: int, n: int = 1) -> float:
    """The deviation of a num_perm=k estimate exceeded with probability <= DELTA / n."""
    return math.sqrt(math.log(2 * n / DELTA) / (2 * k))


def _index(name: str) -> int:
    """The first [i] index of an observation name (0 without one)."""
    m = re.search(r"\[(\d+)\]", name)
    return int(m.group(1)) if m else 0


def min_of_union(observed, ctx) -> str | None:
    """observed: {"union": sig(A | B), "a": sig(A), "b": sig(B)} as lists of ints, for the
    stored case of the observation's index: sig(A | B) == np.minimum(sig(A), sig(B)), and the
    fraction of equal entries of sig(A) and sig(B) estimates the exact Jaccard of the stored
    sets within its Hoeffding bound (so signatures that ignore the set fail)."""
    if not isinstance(observed, dict) or set(observed) != {"union", "a", "b"}:
        return "expected {'union': ..., 'a': ..., 'b': ...}"
    u, a, b = (_signature(observed[k]) for k in ("union", "a", "b"))
    if u is None or a is None or b is None or not len(u) == len(a) == len(b):
        return "each signature must be a non-empty list of non-negative integers, of one length"
    m = [min(x, y) for x, y in zip(a, b)]
    if u != m:
        return ("not_min_of_union",
                "signature(A | B) != np.minimum(signature(A), signature(B)): " + _diff(u, m))
    case = ctx.inputs[_index(ctx.name)]
    sa, sb = set(case["a"]), set(case["b"])
    jac, est = len(sa & sb) / len(sa | sb), _agreement(a, b)
    if abs(est - jac) > _hoeffding(len(a), len(ctx.inputs)):
        return (f"signature(A) and signature(B) agree on {est:.3f} of their entries but the "
                f"sets' Jaccard is {jac:.3f}: the signature must depend on the set")
    return None


def signatures_depend_on_set(observed, ctx) -> str | None:
    """observed: [sig(S), sig(S again), sig(T)], S and T disjoint stored sets: the first two
    equal, and sig(S) vs sig(T) agree on at most half their entries (exact Jaccard 0; an
    ideal family agrees on a fraction beyond 1/2 with probability < 1e-7 for 16+ entries)."""
    if not isinstance(observed, list) or len(observed) != 3:
        return "expected three signatures"
    first, again, other = (_signature(x) for x in observed)
    if first is None or again is None or other is None:
        return "a signature must be a non-empty list of non-negative integers"
    if again != first:
        return f"the same set gave another signature: {_diff(first, again)}"
    if len(other) != len(first) or _agreement(first, other) > 0.5:
        return ("two disjoint sets got signatures that agree on more than half their entries: "
                "the signature must depend on the set")
    return None


def signatures_equal_per_set(observed, ctx) -> str | None:
    """observed: [here, there], each [sig(S), sig(T)] for two disjoint stored sets, computed in
    two processes: equal across processes, num_perm (inputs) entries each, sig(S), sig(T)
    agreeing on at most half, and each with at least half its entries distinct
    (most_entries_distinct)."""
    if not isinstance(observed, list) or len(observed) != 2 or \
            not all(isinstance(x, list) and len(x) == 2 for x in observed):
        return "expected the signatures of two sets from each of two processes"
    here, there = observed
    size = int(ctx.inputs["num_perm"])
    for k in range(2):
        if _signature(here[k]) is None:
            return "a signature must be a non-empty list of non-negative integers"
        if len(here[k]) != size:
            return f"set {k}: a signature of {len(here[k])} entries; num_perm is {size}"
        if there[k] != here[k]:
            return ("differs_across_processes",
                    f"set {k}: the other process gave another signature: {_diff(here[k], there[k])}")
    if len(here[0]) != len(here[1]) or _agreement(here[0], here[1]) > 0.5:
        return ("two disjoint sets got signatures that agree on more than half their entries: "
                "the signature must depend on the set")
    return _few_distinct(here, len(here[0]))


def _few_distinct(sigs: list, k: int) -> str | None:
    """A message when a signature of k entries has fewer than k // 2 distinct values."""
    for j, sig in enumerate(sigs):
        distinct = len(set(sig))
        if distinct < k // 2:
            return (f"signature {j}: only {distinct} distinct values among {k} entries (a "
                    f"set's independent hash functions give about {k})")
    return None


def most_entries_distinct(observed, ctx) -> str | None:
    """observed: [sig(S), sig(T)] of two disjoint stored sets, num_perm in inputs.
    Independent permutations put their minima on unrelated values: with 64-bit (or even 32-bit)
    hash values at most a handful coincide, however small the set; half the entries equal (in
    either signature) means the permutations are not independent, or the signature is not a
    minimum of permuted values. And the signature must depend on the set (the two agree on at
    most half)."""
    k = int(ctx.inputs["num_perm"])
    if not isinstance(observed, list) or len(observed) != 2:
        return "expected two signatures"
    sig, other = (_signature(x) for x in observed)
    if sig is None or other is None or len(sig) != k or len(other) != k:
        return f"expected two signatures of {k} non-negative integers"
    few = _few_distinct([sig, other], k)
    if few:
        return few
    if _agreement(sig, other) > 0.5:
        return ("two disjoint sets got signatures that agree on more than half their entries: "
                "the signature must depend on the set")
    return None


def estimates_within_bound(observed, ctx) -> str | None:
    """observed: {"estimates": estimate_jaccard of each stored pair, "signatures": per pair
    {"union": sig(A | B), "a": sig(A), "b": sig(B)}} (num_perm permutations).
    Each estimate averages num_perm independent indicators of mean J, so by Hoeffding
    P(|est - J| >= t) <= 2 exp(-2 num_perm t^2); t is set so that the union over all pairs
    fails a correct implementation with probability <= 1e-7. The same bound holds for the
    fraction of equal entries of sig(A) and sig(B), computed here, and sig(A | B) must be their
    elementwise minimum: signatures that carry the set itself (with an estimator that reads it)
    satisfy neither, whatever the hash family."""
    pairs, k = ctx.inputs["pairs"], int(ctx.inputs["num_perm"])
    if not isinstance(observed, dict) or set(observed) != {"estimates", "signatures"}:
        return "expected {'estimates': [...], 'signatures': [...]}"
    estimates, signatures = observed["estimates"], observed["signatures"]
    if not isinstance(estimates, list) or len(estimates) != len(pairs) or \
            not isinstance(signatures, list) or len(signatures) != len(pairs):
        return f"expected {len(pairs)} estimates and {len(pairs)} signature triples"
    t = math.sqrt(math.log(2 * len(pairs) / DELTA) / (2 * k))
    worst = None
    for i, (est, sigs, pair) in enumerate(zip(estimates, signatures, pairs)):
        if not isinstance(est, (int, float)) or isinstance(est, bool) or not math.isfinite(est):
            return f"estimate {i} is not a finite number: {est!r}"
        u, a, b = (_signature(sigs.get(key)) if isinstance(sigs, dict) else None
                   for key in ("union", "a", "b"))
        if u is None or a is None or b is None or not len(u) == len(a) == len(b) == k:
            return f"pair {i}: each signature must be a list of {k} non-negative integers"
        m = [min(x, y) for x, y in zip(a, b)]
        if u != m:
            return ("not_min_of_union",
                    f"pair {i}: signature(A | B) != np.minimum(signature(A), signature(B)): "
                    + _diff(u, m))
        sa, sb = set(pair["a"]), set(pair["b"])
        jac = len(sa & sb) / len(sa | sb)
        for what, value in (("estimated", est), ("signatures agreeing on", _agreement(a, b))):
            if abs(value - jac) > t and (worst is None or abs(value - jac) > worst[1]):
                worst = (i, abs(value - jac), what, value, jac)
    if worst:
        i, _, what, value, jac = worst
        return (f"pair {i}: {what} {value:.4f} but the exact Jaccard is {jac:.4f}; with "
                f"{k} permutations the error exceeds {t:.3f} with probability < 1e-7")
    return None


# ---- task 4: near-duplicate clusters and deduplication -------------------------------------

def clusters_match_truth(observed, ctx) -> str | None:
    """observed: list of clusters (lists of doc indices). Unlisted docs are singletons.
    Every group must be partitioned exactly as the J >= threshold graph partitions it, except in
    at most `allowed` groups, where `allowed` is the 1 - 1e-7 quantile of the number of groups in
    which a correct implementation errs (S-curve of datasketch's (b, r); see _Truth)."""
    truth = _truth(ctx.inputs)
    if not isinstance(observed, list):
        return "expected a list of clusters"
    label = list(range(truth.n_docs))
    seen = set()
    for c in observed:
        c = _int_list(c, truth.n_docs)
        if c is None or not c:
            return "each cluster must be a non-empty list of document indices in range"
        if seen & set(c) or len(set(c)) != len(c):
            return "a document appears in two clusters (clusters must be disjoint)"
        seen |= set(c)
        for i in c:
            label[i] = c[0]
    for i in truth.short:
        if any(label[j] == label[i] for j in range(truth.n_docs) if j != i):
            return (f"document {i} has fewer than n words (no shingles) but was clustered with "
                    "others: a text without shingles is never a duplicate")
    bad = []
    for g, docs in truth.members().items():
        mine = {i: label[i] for i in docs}
        same_truth = all((truth.part[i] == truth.part[j]) == (mine[i] == mine[j])
                         for i in docs for j in docs if i < j)
        outside = any(label[j] in set(mine.values()) for j in range(truth.n_docs)
                      if truth.group[j] != g)
        if not same_truth or outside:
            bad.append(min(docs))
    return _verdict(bad, truth, "clusters")


def kept_match_truth(observed, ctx) -> str | None:
    """observed: deduplicate's sorted kept indices. In each group, exactly the lowest index of
    each true component must be kept, except in at most `allowed` groups (as above)."""
    truth = _truth(ctx.inputs)
    kept = _int_list(observed, truth.n_docs)
    if kept is None:
        return "expected a list of document indices in range"
    if kept != sorted(set(kept)):
        return "kept indices must be sorted and unique"
    missing_short = [i for i in truth.short if i not in set(kept)]
    if missing_short:
        return (f"document {missing_short[0]} has no shingles (fewer than n words) and must be "
                "kept: it is never a duplicate")
    want = defaultdict(set)
    for i, p in enumerate(truth.part):
        want[truth.group[i]].add(min(j for j in range(truth.n_docs) if truth.part[j] == p))
    got = defaultdict(set)
    for i in kept:
        got[truth.group[i]].add(i)
    bad = [g for g in truth.members() if got[g] != want[g]]
    return _verdict(bad, truth, "groups")


def _verdict(bad: list, truth: _Truth, what: str) -> str | None:
    if len(bad) <= truth.allowed:
        return None
    return (f"{len(bad)} groups of related documents are split or merged wrongly (first at "
            f"document {min(bad)}); a correct LSH pipeline with the S-curve's (b, r) gets more "
            f"than {truth.allowed} wrong with probability < 1e-7")


# ---- task 5: Bloom filter --------------------------------------------------------------------

def bloom_answers(observed, ctx) -> str | None:
    """observed: the filter's answer (bool) to each stored query, the queries being the added
    items and absent ones shuffled. Every added item must be found (no false negatives). The
    tested filter may round m up and k to an integer, and its fill fluctuates: its true
    false-positive rate is at most 1.25 x the target (the rounding costs < 2%, the standard
    formula's error < 5% at these sizes). The false-positive count is then at most
    Binomial(absent, 1.25 p); the bound is its 1 - 1e-7 quantile."""
    queries, present = ctx.inputs["queries"], set(ctx.inputs["present"])
    if not isinstance(observed, list) or len(observed) != len(queries) or \
            not all(isinstance(a, bool) for a in observed):
        return f"expected {len(queries)} answers (True or False), one per query"
    missing = sum(1 for q, a in zip(queries, observed) if q in present and not a)
    if missing:
        return ("false_negatives", f"{missing} of {len(present)} added items are reported absent: "
                "a Bloom filter never has false negatives")
    p, absent = float(ctx.inputs["error_rate"]), len(queries) - len(present)
    positives = sum(1 for q, a in zip(queries, observed) if q not in present and a)
    bound = int(binom.ppf(1 - DELTA, absent, 1.25 * p))
    if positives > bound:
        return ("too_many_false_positives",
                f"{positives} false positives in {absent} queries: rate {positives / absent:.4f}"
                f" for target {p}; a correct filter exceeds {bound} with probability < 1e-7")
    return None


# ---- task 6: decontamination -----------------------------------------------------------------

# the handout's contract: at most 1% of the clean docs (at least 2) flagged. A correct filter at
# the suggested 1e-6 per n-gram flags a clean doc of these corpora (about 3,500 clean n-grams)
# with Poisson mean below 0.01: three or more with probability below 2e-7 per test
CLEAN_FLAG_FRACTION = 0.01
CLEAN_FLAGS_ALLOWED = 2


def contamination_flags(observed, ctx) -> str | None:
    """observed: sorted indices returned by contaminated(train, eval, n). Every train doc that
    truly shares a normalized n-gram with the eval set must be flagged (a Bloom filter has no
    false negatives); at most max(2, 1%) of the clean ones may be."""
    train, evals, n = ctx.inputs["train"], ctx.inputs["eval"], int(ctx.inputs["n"])
    flagged = _int_list(observed, len(train))
    if flagged is None:
        return "expected a list of train-document indices in range"
    truth = _contaminated(train, evals, n)
    missed = sorted(truth - set(flagged))
    if missed:
        return (f"{len(missed)} of {len(truth)} contaminated training documents were not flagged"
                f" (first: {missed[0]}, which shares a normalized {n}-gram with the eval set); "
                "a Bloom filter never gives false negatives")
    clean = len(train) - len(truth)
    extra = len(set(flagged) - truth)
    allowed = max(CLEAN_FLAGS_ALLOWED, int(CLEAN_FLAG_FRACTION * clean))
    if extra > allowed:
        first = min(set(flagged) - truth)
        return (f"{extra} clean documents flagged (at most {allowed} of {clean} allowed; first: "
                f"{first}, which shares no normalized {n}-gram with the eval set)")
    return None
