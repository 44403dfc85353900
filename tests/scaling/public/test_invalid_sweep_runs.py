"""Task 6: find the runs of a sweep whose setup (data mix, tokenizer, schedule...) differs from
the sweep's baseline: the most common combination, ties going to the one seen first."""

from autograder.harness import graded
from scaling import invalid_sweep_runs

FIELDS = ["data_mix", "tokenizer", "schedule"]


def sweep_runs(rng, n, configs, weights):
    runs = []
    for i in range(n):
        mix, tok, sched = configs[rng.choice(len(configs), p=weights)]
        runs.append({"id": i, "data_mix": mix, "tokenizer": tok, "schedule": sched,
                     "lr": float(rng.choice([3e-4, 6e-4, 1e-3]))})
    return runs


def sweep_cases(rng):
    configs = [("web-v2", "bpe-32k", "cosine"), ("web-v3", "bpe-32k", "cosine"),
               ("web-v2", "bpe-50k", "cosine"), ("web-v2", "bpe-32k", "wsd")]
    majority = sweep_runs(rng, 20, configs, [0.7, 0.1, 0.1, 0.1])
    # a tie: 3 runs of a minority setup come first, then 3 of another
    tie = ([{"id": i, "data_mix": "code-v1", "tokenizer": "bpe-32k", "schedule": "cosine"}
            for i in range(3)]
           + [{"id": i, "data_mix": "web-v2", "tokenizer": "bpe-32k", "schedule": "cosine"}
              for i in range(3, 6)])
    order = [int(j) for j in rng.permutation(6)]
    tie = [tie[j] for j in order]
    # the most common combination is not the field-by-field most common values
    mixed = ([("web-v3", "bpe-32k", "cosine")] * 4 + [("web-v2", "bpe-50k", "cosine")] * 3
             + [("web-v2", "bpe-32k", "wsd")] * 3)
    mixed = [mixed[j] for j in rng.permutation(len(mixed))]
    mixed = [{"id": i, "data_mix": m, "tokenizer": t, "schedule": s}
             for i, (m, t, s) in enumerate(mixed)]
    return {"majority": majority, "tie": tie, "mixed": mixed}


@graded(points=3, cases=sweep_cases)
def test_invalid_sweep_runs(rec, cases):
    bad = invalid_sweep_runs(cases["majority"], FIELDS)
    rec.exact("majority", [run["id"] for run in bad])
    rec.exact("majority_mix_only", [run["id"] for run in invalid_sweep_runs(cases["majority"], ["data_mix"])])
    rec.exact("mixed", [run["id"] for run in invalid_sweep_runs(cases["mixed"], FIELDS)])
    rec.exact("tie", [run["id"] for run in invalid_sweep_runs(cases["tie"], FIELDS)])
