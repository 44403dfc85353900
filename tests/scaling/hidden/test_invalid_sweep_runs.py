"""Task 6 (hidden): sweeps given as generators, a run missing a key field, a single key field,
an empty sweep, a stray first run, and a tie."""

from autograder.harness import graded
from scaling import invalid_sweep_runs


def sweep_cases(rng):
    mixes = ["web-v2", "web-v3", "code-v1"]
    runs = []
    for i in range(15):
        mix = mixes[int(rng.choice(3, p=[0.6, 0.3, 0.1]))]
        runs.append({"id": i, "data_mix": mix, "tokenizer": "bpe-32k",
                     "warmup": int(rng.choice([1000, 2000], p=[0.8, 0.2]))})
    missing = [{"id": 100 + i, "data_mix": "web-v2", "tokenizer": "bpe-32k", "warmup": 1000}
               for i in range(4)]
    missing.insert(int(rng.integers(0, 4)), {"id": 99, "data_mix": "web-v2", "warmup": 1000})
    # the sweep's first run is the stray one
    stray_first = ([{"id": 0, "data_mix": "code-v1", "tokenizer": "bpe-32k", "warmup": 1000}]
                   + [{"id": i, "data_mix": "web-v2", "tokenizer": "bpe-32k",
                       "warmup": int(rng.choice([1000, 2000], p=[0.7, 0.3]))}
                      for i in range(1, 9)])
    # a tie, and the tied combinations are not the field-by-field majority
    tie = [("web-v3", "bpe-32k", 1000), ("web-v2", "bpe-50k", 1000), ("web-v3", "bpe-32k", 1000),
           ("web-v2", "bpe-50k", 1000), ("web-v2", "bpe-32k", 2000)]
    tie = [{"id": 200 + i, "data_mix": m, "tokenizer": t, "warmup": w}
           for i, (m, t, w) in enumerate(tie)]
    return {"runs": runs, "missing": missing, "stray_first": stray_first, "tie": tie}


@graded(points=2, cases=sweep_cases)
def test_invalid_sweep_runs_hidden(rec, cases):
    def ids(runs):
        return [run["id"] for run in runs]

    rec.exact("generator", ids(invalid_sweep_runs((r for r in cases["runs"]),
                                                  ["data_mix", "tokenizer", "warmup"])))
    rec.exact("one_field", ids(invalid_sweep_runs(cases["runs"], ["warmup"])))
    rec.exact("missing_field", ids(invalid_sweep_runs(cases["missing"], ["data_mix", "tokenizer"])))
    rec.exact("empty", ids(invalid_sweep_runs([], ["data_mix"])))
    fields = ["data_mix", "tokenizer", "warmup"]
    rec.exact("stray_first", ids(invalid_sweep_runs(cases["stray_first"], fields)))
    rec.exact("tie", ids(invalid_sweep_runs(cases["tie"], fields)))
