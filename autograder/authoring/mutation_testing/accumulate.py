"""The accumulated sample behind tests/mutation_report.md: per assignment, every graded mutant
by its stable key with its verdict, the seed that drew it and the date it was graded, plus the
runs that graded them. Runs with different seeds (on different days) add to one sample; a
mutant graded twice counts once (the latest verdict wins); a stored mutant that is no longer
generated is dropped and said.

A summary (plain data, kept in the report) is
`{"assignment", "generated", "mutants": {key: {"status", "seed", "date"}}, "runs": [{"command",
"seed", "sample", "date", "seconds"}], "dropped": [key], "stale_equivalents": [key]}`;
its figures (killed, survived, equivalent, score, lower bound) are always derived from
"mutants", never stored. The previous format (one run's counts and survivors) is read by
`upgrade`, which redraws that run's seeded sample from its command."""

from __future__ import annotations

import re
from collections.abc import Iterable

STATUSES = ("killed", "survived", "equivalent")
CONFIDENCE = 0.95
_COMMAND = re.compile(r"--sample (?P<n>\d+)|--seed (?P<seed>-?\d+)")


def lower_bound(killed: int, judged: int, confidence: float = CONFIDENCE) -> float | None:
    """Exact (Clopper-Pearson) one-sided lower confidence bound of the true kill rate after
    `killed` of `judged` mutants were killed: beta.ppf(1 - confidence, k, n - k + 1); 0 when
    none was killed, None when none was judged. 40 of 40 gives 0.05 ** (1/40) = 0.928."""
    if judged <= 0:
        return None
    if killed <= 0:
        return 0.0
    from scipy.stats import beta

    return float(beta.ppf(1 - confidence, killed, judged - killed + 1))


def figures(d: dict) -> dict:
    """Counts derived from a summary's mutants: graded (distinct, equivalents included),
    killed, survived, equivalent, score = killed / (killed + survived) and its lower bound."""
    counts = {s: sum(m["status"] == s for m in d["mutants"].values()) for s in STATUSES}
    judged = counts["killed"] + counts["survived"]
    return dict(counts, graded=len(d["mutants"]),
                score=counts["killed"] / judged if judged else None,
                lower_bound=lower_bound(counts["killed"], judged),
                seconds=sum(r.get("seconds") or 0 for r in d["runs"]))


def survivors(d: dict) -> list[str]:
    return sorted(k for k, m in d["mutants"].items() if m["status"] == "survived")


def command_sample(command: str) -> tuple[int | None, int]:
    """(--sample N or None for all, --seed S or 0) of a stored `mutation` command."""
    n, seed = None, 0
    for match in _COMMAND.finditer(command):
        if match["n"] is not None:
            n = int(match["n"])
        else:
            seed = int(match["seed"])
    return n, seed


def is_old(d: dict) -> bool:
    return "mutants" not in d


def upgrade(d: dict, keys_in_order: Iterable[str] | None, equivalents: dict[str, str]) -> dict:
    """A summary in the previous format (one run: counts, survivors, its command) as an
    accumulated one. `keys_in_order` is that run's seeded shuffle of the mutants generated now (see
    `sample`); the first `sampled` of them are that run's mutants: survivors stay survived,
    listed ones equivalent, the rest killed. None (or a generated count that differs from the
    stored one: the solution changed, the draw cannot be redone) keeps no mutant and says so."""
    n, seed = command_sample(d["command"])
    run = {"command": d["command"], "seed": seed, "sample": n, "date": None,
           "seconds": d.get("seconds")}
    keys = list(keys_in_order or [])
    new = {"assignment": d["assignment"], "generated": d["generated"], "mutants": {},
           "runs": [run], "dropped": [], "stale_equivalents": list(d.get("stale_equivalents", []))}
    if keys_in_order is None or len(keys) != d["generated"]:
        new["dropped"] = [f"(all {d['sampled']} of `{d['command']}`: the solution changed, "
                          "its sample cannot be redrawn)"]
        return new
    stored_survivors = set(d.get("survivors", []))
    for key in keys[:d["sampled"]]:
        status = ("survived" if key in stored_survivors
                  else "equivalent" if key in equivalents else "killed")
        new["mutants"][key] = {"status": status, "seed": seed, "date": None}
    return new


def merge(d: dict | None, assignment: str, generated: Iterable[str], graded: dict[str, str],
          run: dict) -> dict:
    """`d` (None: nothing stored yet) with one run's verdicts added: graded maps key -> status
    (latest verdict wins); stored mutants that are no longer generated are dropped (listed in
    "dropped"). `run` is {"command", "seed", "sample", "date", "seconds"}."""
    present = set(generated)
    d = d or {"assignment": assignment, "mutants": {}, "runs": [], "dropped": [],
              "stale_equivalents": []}
    mutants = {k: m for k, m in d["mutants"].items() if k in present}
    dropped = sorted(set(d["mutants"]) - present)
    for key, status in graded.items():
        mutants[key] = {"status": status, "seed": run["seed"], "date": run["date"]}
    return dict(d, generated=len(present), mutants=dict(sorted(mutants.items())),
                runs=[*d["runs"], run],
                dropped=sorted((set(d.get("dropped", [])) | set(dropped)) - set(mutants)))


def reclassified(d: dict, equivalents: dict[str, str]) -> dict:
    """A stored survivor now listed as equivalent counts as equivalent (it kept full marks; the
    list says why no test can fail it); a stored "equivalent" no longer listed was never graded
    and leaves the sample (a later run grades it)."""
    mutants = {}
    for key, m in d["mutants"].items():
        if m["status"] == "survived" and key in equivalents:
            m = dict(m, status="equivalent")
        elif m["status"] == "equivalent" and key not in equivalents:
            continue
        mutants[key] = m
    return dict(d, mutants=mutants)
