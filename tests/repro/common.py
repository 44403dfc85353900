"""Shared by the repro public and hidden tests (and shipped with the public ones): the global
state the tests set and put back, the builders of stored inputs, and the recording loops both
test sets run on their own inputs. Inputs and helpers only: no expected value lives here.
"""

import copy
import os
import random
from collections.abc import Callable

import numpy as np
import torch
from torch import nn

from autograder.harness import clean_call  # its thread primitives are bound at harness import

# The generators' functions, bound before the student's package is imported: a seed_everything
# that rebinds random.random, np.random.rand or torch.rand (instead of seeding) changes nothing
# the tests draw through.
PY_SEED, PY_RANDOM = random.seed, random.random
NP_SEED, NP_RAND = np.random.seed, np.random.rand
TORCH_SEED, TORCH_RAND = torch.manual_seed, torch.rand

from repro import (  # noqa: E402 (after the bindings above, on purpose)
    atomic_add_simulation,
    deterministic_mode,
    fingerprint,
    ordered_sum,
    seed_everything,
    seed_study,
    significantly_different,
    welch_t_test,
)

WORKSPACE_VARIABLE = "CUBLAS_WORKSPACE_CONFIG"



# ================================================================ Task 1: seed_everything
def set_all_generators(seed: int) -> None:
    """Put Python's, NumPy's and torch's generators in a known state that is not the student's
    (so that a generator the student forgets to seed gives the same, wrong, draws every time)."""
    PY_SEED(seed)
    NP_SEED(seed)
    TORCH_SEED(seed)
    PY_RANDOM(), NP_RAND(), TORCH_RAND(1)


def draws() -> dict:
    """Three draws from each global generator (through the functions bound at import)."""
    return {"python": [PY_RANDOM() for _ in range(3)],
            "numpy": [float(x) for x in NP_RAND(3)],
            "torch": [float(x) for x in TORCH_RAND(3, dtype=torch.float64)]}


def record_reseeding(rec, i: int, seed: int, other_seed: int) -> None:
    """The draws after seed_everything(seed) from two different prior states, then after
    seed_everything(other_seed) (judged by checks.reseeding_repeats_draws), named by case and
    seeds: what a seed draws is free, so the observation's name ties it to these inputs."""
    runs = []
    for prior, s in ((1001, seed), (2002, seed), (1001, other_seed)):
        set_all_generators(prior)
        clean_call(seed_everything, s)
        runs.append(draws())
    rec.check(f"draws[{i}: seed {seed}, other {other_seed}]", runs,
              check="reseeding_repeats_draws")


# ================================================================ Task 2: deterministic_mode
def global_state() -> dict:
    """Every setting deterministic_mode touches, as plain data."""
    return {"deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
            "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
            "cudnn_deterministic": bool(torch.backends.cudnn.deterministic),
            "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
            WORKSPACE_VARIABLE: os.environ.get(WORKSPACE_VARIABLE)}


def set_global_state(state: dict) -> None:
    """Set every setting of `state` (a dict as global_state() returns; None unsets the variable)."""
    torch.use_deterministic_algorithms(state["deterministic_algorithms"], warn_only=state["warn_only"])
    torch.backends.cudnn.deterministic = state["cudnn_deterministic"]
    torch.backends.cudnn.benchmark = state["cudnn_benchmark"]
    if state[WORKSPACE_VARIABLE] is None:
        os.environ.pop(WORKSPACE_VARIABLE, None)
    else:
        os.environ[WORKSPACE_VARIABLE] = state[WORKSPACE_VARIABLE]


def prior_states(rng: np.random.Generator, n: int) -> list:
    """Global states a program could be in before it enters deterministic_mode."""
    workspaces = [None, ":4096:8", ":16:8", ":0:0", None]
    states = []
    for k in range(n):
        mode = bool(rng.integers(0, 2))
        states.append({"deterministic_algorithms": mode,
                       "warn_only": bool(rng.integers(0, 2)) if mode else bool(k % 3 == 0),
                       "cudnn_deterministic": bool(rng.integers(0, 2)),
                       "cudnn_benchmark": bool(rng.integers(0, 2)),
                       WORKSPACE_VARIABLE: workspaces[k % len(workspaces)]})
    return states


def isolated(body: Callable[[], None]) -> None:
    """Run body, then put every global setting back as it was (whatever the code under test
    left behind), so that one test's leftovers cannot change another test's result."""
    saved = global_state()
    try:
        body()
    finally:
        set_global_state(saved)


def record_inside(rec, i: int, prior: dict, enabled: bool) -> None:
    """inside[i].*: the settings inside deterministic_mode(enabled) entered from `prior`."""
    def body():
        set_global_state(prior)
        # contract: SPEC 5.7 deterministic_mode(enabled=True): the default is on
        with deterministic_mode() if enabled else deterministic_mode(False):
            state = global_state()
        rec.exact(f"inside[{i}].deterministic_algorithms", state["deterministic_algorithms"])
        rec.exact(f"inside[{i}].cudnn_deterministic", state["cudnn_deterministic"])
        if enabled:
            rec.exact(f"inside[{i}].warn_only", state["warn_only"])
            rec.exact(f"inside[{i}].cudnn_benchmark", state["cudnn_benchmark"])
            rec.check(f"inside[{i}].{WORKSPACE_VARIABLE}", state[WORKSPACE_VARIABLE],
                      check="deterministic_workspace_config")
    isolated(body)


def record_after(rec, i: int, prior: dict, enabled: bool, body_raises: bool) -> None:
    """after[i].*: the settings after leaving deterministic_mode(enabled) entered from `prior`,
    the block ending normally or by an exception (which must propagate)."""
    inside: list = []

    def block():
        with deterministic_mode(enabled):
            inside.append(global_state())
            if body_raises:
                raise KeyError("raised inside the block")

    def body():
        set_global_state(prior)
        rec.raises(f"after[{i}]: the body's exception propagates", clean_call, block)
        for key, value in global_state().items():
            rec.exact(f"after[{i}].{key}", value)
        # the mode really was set inside (so a block that changes nothing restores nothing)
        rec.exact(f"after[{i}].inside.deterministic_algorithms",
                  inside[0]["deterministic_algorithms"] if inside else None)
    isolated(body)


def nondeterministic_op() -> None:
    """An op PyTorch has no deterministic kernel for, on the CPU too (Tensor.put_ with
    accumulate=False: which of two writes to one slot wins is undefined)."""
    torch.zeros(4).put_(torch.tensor([1, 1]), torch.tensor([1.0, 2.0]))


def record_strictness(rec, i: int, prior: dict) -> None:
    """op[i].*: whether the non-deterministic op raises inside deterministic_mode(True),
    inside deterministic_mode(False), and after leaving both."""
    def inside(enabled):
        with deterministic_mode(enabled):
            nondeterministic_op()

    def body():
        set_global_state(prior)
        rec.raises(f"op[{i}] inside deterministic_mode(True)", inside, True)
        rec.raises(f"op[{i}] inside deterministic_mode(False)", inside, False)
        rec.raises(f"op[{i}] after both", nondeterministic_op)
    isolated(body)


# ================================================================ Task 3: fingerprint
def flip_bit(t: torch.Tensor, element: int, bit: int) -> torch.Tensor:
    """A copy of float32/float64 tensor t with one bit of one element flipped."""
    int_dtype = {torch.float32: torch.int32, torch.float64: torch.int64}[t.dtype]
    flat = t.detach().clone().reshape(-1)
    as_int = flat.view(int_dtype)
    as_int[element] ^= 1 << bit  # bit < 31 for float32, < 63 for float64 (not the sign bit)
    return flat.reshape(t.shape)


def tiny_model(seed: int) -> nn.Module:
    """A small model with parameters and a buffer, built from a seed."""
    TORCH_SEED(seed)
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 2))


def bit_copy(value):
    """A copy of a model (deep copy) or of a list of tensors (contiguous clones): the same bits."""
    if isinstance(value, nn.Module):
        return copy.deepcopy(value)
    return [t.detach().clone() for t in value]


def decoy_arrays(rng: np.random.Generator, count: int = 12) -> list:
    """`count` float32 arrays of 5 elements, each one of three random bases, half of them with
    one mantissa bit of one element flipped: which decoys are bitwise equal is in their bits
    alone (nothing stored names it)."""
    bases = [rng.normal(size=5).astype(np.float32) for _ in range(3)]
    decoys = []
    for _ in range(count):
        d = bases[int(rng.integers(0, 3))].copy()
        if rng.random() < 0.5:
            d.view(np.int32)[int(rng.integers(0, 5))] ^= 1 << int(rng.integers(0, 23))
        decoys.append(d)
    return decoys


def record_digests(rec, pairs: list, cases: dict) -> None:
    """digests: the fingerprints of a pool, in pool order: for each (first, second) of `pairs`
    first, second and a bit copy of first (items 3p, 3p + 1, 3p + 2), then each stored decoy as
    a one-tensor list. Each is fingerprinted on a clean thread, in an order drawn from
    cases["order_seed"]; no name and no expected verdict is anywhere in memory, and the decoys'
    equality is in their bits alone (checks.same_digests_iff: equal digests exactly where the
    solution's are equal)."""
    pool = [item for first, second in pairs for item in (first, second, bit_copy(first))]
    pool += [[torch.from_numpy(np.asarray(d, dtype=np.float32).copy())] for d in cases["decoys"]]
    digests: list = [None] * len(pool)
    for j in np.random.default_rng(int(cases["order_seed"])).permutation(len(pool)).tolist():
        digests[j] = clean_call(fingerprint, pool[j])
    rec.check("digests", digests, check="same_digests_iff")


# ================================================================ Tasks 4-5: float order
def record_ordered_sums(rec, cases: list) -> None:
    """sum[i]: ordered_sum of case i's values (stored with their dtype) in its order."""
    for i, c in enumerate(cases):
        values = torch.from_numpy(np.asarray(c["values"]).copy())
        # contract: SPEC 5.7 ordered_sum is strictly left to right in the values' dtype: bitwise
        rec.exact(f"sum[{i}]", float(ordered_sum(values, [int(k) for k in c["order"]])))


def run_atomic(c: dict) -> torch.Tensor:
    """atomic_add_simulation on a stored case."""
    index = torch.from_numpy(np.asarray(c["index"], dtype=np.int64).copy())
    src = torch.from_numpy(np.asarray(c["src"]).copy())
    return atomic_add_simulation(index, src, int(c["n"]), int(c["trials"]), int(c["seed"]))


def as_array(x) -> np.ndarray:
    """A tensor (or array) as a NumPy array of its own dtype."""
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


# ================================================================ Task 6: seed_study
def study_fields(study) -> dict:
    """The fields of a SeedStudy (dataclass or NamedTuple), as plain floats."""
    return {"mean": float(study.mean), "std": float(study.std),
            "ci95": [float(x) for x in study.ci95], "values": [float(v) for v in study.values]}


def record_table_study(rec, i: int, c: dict) -> None:
    """study[i].*: seed_study of a train_fn that returns a stored value per seed."""
    table = {int(k): float(v) for k, v in zip(c["seeds"], c["values"])}
    called = []

    def train_fn(s):
        called.append(int(s))
        return table[int(s)]

    fields = study_fields(clean_call(seed_study, train_fn, [int(s) for s in c["seeds"]]))
    rec.exact(f"study[{i}].train_fn called with", called)
    rec.exact(f"study[{i}].values", fields["values"])
    # the dtype of the statistics is free (float32 inside is fine): 1e-6 at the values' scale
    # (order 1; a std computed in float32 is off by ~1e-7 absolute, however small it is)
    rec.close(f"study[{i}].mean", fields["mean"], atol=1e-6, rtol=1e-6)
    rec.close(f"study[{i}].std", fields["std"], atol=1e-6, rtol=1e-6)
    rec.check(f"study[{i}].ci95", fields["ci95"], check="t_interval_of_mean")


def noisy_metric(s: int) -> float:
    """A 'final loss' that depends on every global generator (and on the seed only through them)."""
    return 1.0 + PY_RANDOM() + float(NP_RAND()) + float(TORCH_RAND((), dtype=torch.float64))


def record_random_study(rec, i: int, seeds: list) -> None:
    """random[i]: the values of seed_study over `seeds` (with repeats) of noisy_metric, entered
    from a fixed foreign generator state, and beside them noisy_metric measured here after
    seed_everything(s) for each distinct seed (checks.repeated_seeds_repeat: the study's value
    for s is that value, so a study that never calls train_fn cannot pass)."""
    set_all_generators(4242)
    fields = study_fields(clean_call(seed_study, noisy_metric, [int(s) for s in seeds]))
    direct = []
    for s in dict.fromkeys(int(s) for s in seeds):
        set_all_generators(s + 77)
        clean_call(seed_everything, s)
        direct.append(noisy_metric(s))
    rec.check(f"random[{i}].values", {"values": fields["values"], "direct": direct},
              check="repeated_seeds_repeat")


# ================================================================ Task 7: Welch's t-test
def record_welch(rec, i: int, c: dict) -> None:
    """welch[i]: [statistic, pvalue] of welch_t_test(a, b) (checks.matches_scipy_welch)."""
    statistic, pvalue = welch_t_test(list(c["a"]), list(c["b"]))
    rec.check(f"welch[{i}]", [float(statistic), float(pvalue)], check="matches_scipy_welch")


def record_significance(rec, i: int, c: dict) -> None:
    """significant[i]: significantly_different(a, b[, alpha])."""
    a, b = list(c["a"]), list(c["b"])
    verdict = significantly_different(a, b) if c["alpha"] is None else \
        significantly_different(a, b, alpha=c["alpha"])
    rec.exact(f"significant[{i}]", bool(verdict))
