"""Shared by ad_modes' public and hidden tests: the test functions f (a library of named
functions written with `ad_modes.ops` and the operators §5.2 lists), their stored constants,
and the recording loops both test sets run on their own inputs.

The API under test is imported here once; tests/ad_modes/crosscheck_torch.py swaps these
module globals (and `ops`) for torch.func / torch.autograd stand-ins and replays the same loops.
Test functions use only `+ - * /` (Python floats on the left), unary `-`, `** constant`,
`ops.sin cos exp log tanh`, `ops.sum(x, axis)` and `ops.dot` on 1-D and 2-D operands, with
constant arrays entering only through `ops.dot`: nothing else of a Dual or a tape value.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from ad_modes import (
    Dual,
    cheaper_mode,
    jacobian_fwd,
    jacobian_rev,
    jvp,
    layernorm_jacobian,
    layernorm_vjp,
    ops,
    softmax_jacobian,
    softmax_vjp,
    vjp,
)

# contract: SPEC §5.2 — Dual, the tape and the layer Jacobians work on NumPy float64 arrays (the
# stored inputs) and equal torch.func in float64; different correct orders of float64
# operations differ by ~1e-13 here, so 1e-8 relative is float64 precision with a wide margin.
TOL = {"atol": 1e-10, "rtol": 1e-8}

# ---- the function library: name -> (f(x, c, P), input shape, constants' shapes) ---------------
# P is the primitive namespace (ad_modes.ops, a counting wrapper, or crosscheck's torch ops);
# c holds the stored constant arrays.


def _mlp(x, c, P):  # R^3 -> R^5; h fans out to three uses
    h = P.tanh(P.dot(c["W1"], x))
    return P.sin(P.dot(c["W2"], h)) + P.dot(c["W2"], h * h) / 3.0 - 0.5 * P.dot(c["W2"], h)


def _products(x, c, P):  # R^4 -> R^4, non-symmetric Jacobian
    a = P.dot(c["A"], x)
    return x * P.cos(a) + a * a * x / (1.0 + x * x)


def _rational(x, c, P):  # R^3 -> R^3: quotients, powers, constants on both sides
    return ((x**3 - 2.0 * x) / (1.5 + P.exp(x)) + (x * x + 1.0) ** 0.5 - 1.0 / (2.0 + P.sin(x))
            + 3.0 - x + P.dot(c["A"], P.tanh(x)) - (-x) ** 2)


def _expand(x, c, P):  # R^2 -> R^6
    e = P.exp(P.dot(c["A"], x) * 0.5)
    return e / (1.0 + e)


def _contract(x, c, P):  # R^6 -> R^2
    return P.log(1.0 + P.exp(P.dot(c["A"], x))) * P.dot(c["B"], P.cos(x))


def _softmax_ops(x, c, P):  # R^5 -> R^5: softmax by ops, then a fixed mixing
    e = P.exp(x)
    return P.dot(c["A"], e / P.dot(c["ones"], e))


def _diamonds(x, c, P):  # R^3 -> R^3: 40 diamonds in a chain, 2^40 paths, ~200 nodes
    y = x
    for _ in range(40):
        a, b = P.sin(y), P.cos(y)
        y = a * b + (a - b) * 0.5
    return P.dot(c["A"], y)


def _fanout(x, c, P):  # R^4 -> R^3: one node used eight times
    h = P.tanh(P.dot(c["A"], x))
    return P.dot(c["B"], h * h * h + h / (2.0 + h * h) - h + P.exp(h) * h)


def _scalar_loss(x, c, P):  # R^n -> R (shape ()): a logistic loss plus a weight decay
    return P.sum(P.log(1.0 + P.exp(P.dot(c["A"], x)))) + 0.1 * P.dot(x, x)


def _inner(x, c, P):  # R^4 -> R: a 1-D · 1-D dot of two variables
    return P.dot(P.sin(x), P.tanh(x)) * P.dot(c["a"], x)


def _vecmat(x, c, P):  # R^3 -> R^4: 1-D · 2-D
    y = P.dot(x, c["B"])
    return y * P.exp(y * 0.2)


def _matrix_in(x, c, P):  # R^{2x3} -> R^{2x4}: 2-D · 2-D
    y = P.dot(x, c["B"])
    return P.tanh(y) * y


def _square_mat(x, c, P):  # R^{2x2} -> R^{2x2}: X·X, both operands variable
    return P.dot(x, x) + P.dot(c["A"], P.sin(x))


def _sum_axis0(x, c, P):  # R^{3x4} -> R^4
    return P.sum(P.sin(x) * x, axis=0)


def _sum_axis1(x, c, P):  # R^{3x4} -> R^3
    return P.sum(P.exp(x * 0.3) / (1.0 + x * x), axis=1) * 2.0


def _column(x, c, P):  # R^{4x1} -> R^{3x1}: a column input, elementwise ops on (k, 1) values
    h = P.tanh(P.dot(c["A"], x))
    return h * h + P.exp(h) / (1.0 + h * h) - P.sin(P.dot(c["A"], x * x))


def _empty_branch(x, c, P):  # R^3 -> R^3 with a zero-width branch: (0,)-shaped values on the tape
    h = P.dot(c["Z"], x)  # (0,): an empty layer, as np.dot gives it
    return P.sin(x) * x + P.dot(c["Zt"], h * h - h / 2.0)


LIBRARY = {
    "mlp": (_mlp, (3,), {"W1": (4, 3), "W2": (5, 4)}),
    "products": (_products, (4,), {"A": (4, 4)}),
    "rational": (_rational, (3,), {"A": (3, 3)}),
    "expand": (_expand, (2,), {"A": (6, 2)}),
    "contract": (_contract, (6,), {"A": (2, 6), "B": (2, 6)}),
    "softmax_ops": (_softmax_ops, (5,), {"A": (5, 5), "ones": "ones"}),
    "diamonds": (_diamonds, (3,), {"A": (3, 3)}),
    "fanout": (_fanout, (4,), {"A": (4, 4), "B": (3, 4)}),
    "scalar_loss": (_scalar_loss, (6,), {"A": (8, 6)}),
    "inner": (_inner, (4,), {"a": (4,)}),
    "vecmat": (_vecmat, (3,), {"B": (3, 4)}),
    "matrix_in": (_matrix_in, (2, 3), {"B": (3, 4)}),
    "square_mat": (_square_mat, (2, 2), {"A": (2, 2)}),
    "sum_axis0": (_sum_axis0, (3, 4), {}),
    "sum_axis1": (_sum_axis1, (3, 4), {}),
    "column": (_column, (4, 1), {"A": (3, 4)}),
    "empty_branch": (_empty_branch, (3,), {"Z": (0, 3), "Zt": (3, 0)}),
}


def function_case(rng, name: str, n: int | None = None) -> dict:
    """Stored inputs for LIBRARY[name]: x, its constants, a tangent v and an output cotangent
    u (two of each: pullbacks are called more than once). n resizes a 1-D input (scalar_loss)."""
    fn, shape, consts = LIBRARY[name]
    if n is not None:
        shape = (n,)
        consts = {k: (2 * n, n) for k in consts}
    c = {}
    for key, s in consts.items():
        if s == "ones":
            c[key] = np.ones((shape[0], shape[0]))
        else:
            c[key] = rng.normal(scale=max(s[-1], 1) ** -0.5, size=s)
    x = rng.uniform(-1.2, 1.2, shape)
    y = np.asarray(fn(x, c, ops_numpy()))
    return {"fn": name, "x": x, "c": c, "v": rng.normal(size=shape), "v2": rng.normal(size=shape),
            "u": rng.normal(size=y.shape), "u2": rng.normal(size=y.shape)}


def ops_numpy():
    """The primitives on plain arrays, for drawing cases (NumPy only: no code under test)."""

    class P:
        sin, cos, exp, log, tanh = np.sin, np.cos, np.exp, np.log, np.tanh
        sum = staticmethod(lambda x, axis=None: np.sum(x, axis=axis))
        dot = staticmethod(np.dot)

    return P


def make_f(case: dict, P=None):
    """The case's function as a one-argument f(x), on the primitives P (default: ops)."""
    fn = LIBRARY[case["fn"]][0]
    prims = ops if P is None else P
    return lambda x: fn(x, case["c"], prims)


def arr(value) -> np.ndarray:
    """An answer as a float64 array (accepts arrays, lists, NumPy or Python scalars)."""
    return np.asarray(value, dtype=np.float64)


def dual_parts(d) -> tuple[np.ndarray, np.ndarray]:
    """(primal, tangent) of a Dual, as float64 arrays."""
    return arr(d.primal), arr(d.tangent)


# ---- Task 1: Dual numbers and jvp -------------------------------------------------------------


def dual_cases(rng) -> dict:
    shape = (2, 3)
    return {"a": rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape),
            "ta": rng.normal(size=shape), "b": rng.uniform(0.5, 1.5, shape),
            "tb": rng.normal(size=shape), "pos": rng.uniform(0.3, 2.0, shape),
            "tp": rng.normal(size=shape), "M": rng.normal(size=(3, 2)), "tM": rng.normal(size=(3, 2)),
            "w": rng.normal(size=3), "tw": rng.normal(size=3), "K": rng.normal(size=(4, 3)),
            "k": rng.normal(size=2), "c": float(np.round(rng.uniform(0.5, 2.0), 3))}


ARITHMETIC = {  # name -> expression of Duals a, b (b and p positive) and a float c
    "a+b": lambda a, b, p, c: a + b, "a-b": lambda a, b, p, c: a - b,
    "a*b": lambda a, b, p, c: a * b, "a/b": lambda a, b, p, c: a / b,
    "c+a": lambda a, b, p, c: c + a, "a+c": lambda a, b, p, c: a + c,
    "c-a": lambda a, b, p, c: c - a, "a-c": lambda a, b, p, c: a - c,
    "c*a": lambda a, b, p, c: c * a, "a*c": lambda a, b, p, c: a * c,
    "c/b": lambda a, b, p, c: c / b, "a/c": lambda a, b, p, c: a / c,
    "-a": lambda a, b, p, c: -a, "a**3": lambda a, b, p, c: a**3,
    "p**0.5": lambda a, b, p, c: p**0.5, "p**-1.5": lambda a, b, p, c: p**-1.5,
    "a*a*b": lambda a, b, p, c: a * a * b, "(a*b)/(p*p)": lambda a, b, p, c: (a * b) / (p * p),
}


def record_dual_arithmetic(rec, cases, names) -> None:
    """Each expression on Duals: the primal and the tangent."""
    for name in names:
        a = Dual(cases["a"], cases["ta"])
        b = Dual(cases["b"], cases["tb"])
        p = Dual(cases["pos"], cases["tp"])
        primal, tangent = dual_parts(ARITHMETIC[name](a, b, p, cases["c"]))
        rec.close(f"{name}.primal", primal, **TOL)
        rec.close(f"{name}.tangent", tangent, **TOL)


def record_dual_ops(rec, cases) -> None:
    """Every primitive of ops on Duals: elementwise, sum over each axis, dot in every shape
    combination (with a constant on either side and with two Duals)."""
    a, p = Dual(cases["a"], cases["ta"]), Dual(cases["pos"], cases["tp"])
    M, w = Dual(cases["M"], cases["tM"]), Dual(cases["w"], cases["tw"])
    results = {
        "sin": ops.sin(a), "cos": ops.cos(a), "exp": ops.exp(a), "log": ops.log(p),
        "tanh": ops.tanh(a), "sum": ops.sum(a), "sum0": ops.sum(a, axis=0),
        "sum1": ops.sum(a, axis=1), "dot(a,M)": ops.dot(a, M), "dot(M,a)": ops.dot(M, a),
        "dot(a,w)": ops.dot(a, w), "dot(w,M)": ops.dot(w, M), "dot(w,w)": ops.dot(w, w),
        "dot(K,Ma)": ops.dot(cases["K"], ops.dot(M, a)), "dot(k,a)": ops.dot(cases["k"], a),
        "dot(a,const)": ops.dot(a, cases["w"]),
    }
    for name, d in results.items():
        primal, tangent = dual_parts(d)
        rec.close(f"{name}.primal", primal, **TOL)
        rec.close(f"{name}.tangent", tangent, **TOL)


def record_torch_free(rec, name: str, f) -> None:
    """Whether f (a CountingFunction) ever received a torch tensor: the Dual and the tape must
    be the student's own, not torch.func / torch.autograd (a low-value verdict, but it makes
    a torch-based shortcut fail every test that records it)."""
    rec.exact(f"{name}.f_saw_torch_tensor", f.saw_torch)


def record_jvps(rec, cases) -> None:
    """jvp(f, x, v) for every stored function: f(x) and J v, for two tangents."""
    for i, case in enumerate(cases):
        f = CountingFunction(case)
        for key in ("v", "v2"):
            y, jv = jvp(f, case["x"], case[key])
            rec.close(f"[{i}].{case['fn']}.{key}.f(x)", arr(y), **TOL)
            rec.close(f"[{i}].{case['fn']}.{key}.Jv", arr(jv), **TOL)
        record_torch_free(rec, f"[{i}].{case['fn']}", f)


# ---- Task 2: the tape and vjp -----------------------------------------------------------------


def record_vjps(rec, cases, repeat: bool = False) -> None:
    """vjp(f, x) for every stored function: f(x) and pullback(u). With repeat: u, u2, then u
    again on the same pullback (each answer must not depend on the calls before it)."""
    for i, case in enumerate(cases):
        f = CountingFunction(case)
        y, pullback = vjp(f, case["x"])
        rec.close(f"[{i}].{case['fn']}.f(x)", arr(y), **TOL)
        keys = ("u", "u2", "u") if repeat else ("u",)
        for k, key in enumerate(keys):
            rec.close(f"[{i}].{case['fn']}.pullback#{k + 1}({key})",
                      arr(pullback(np.array(case[key]))), **TOL)
        record_torch_free(rec, f"[{i}].{case['fn']}", f)


# ---- Task 3: whole Jacobians, counted passes, cheaper_mode ------------------------------------


def record_jacobians(rec, cases, jacobian, tag: str = "J") -> None:
    """jacobian(f, x) (jacobian_fwd or jacobian_rev) for every stored function."""
    for i, case in enumerate(cases):
        f = CountingFunction(case)
        rec.close(f"[{i}].{case['fn']}.{tag}", arr(jacobian(f, case["x"])), **TOL)
        record_torch_free(rec, f"[{i}].{case['fn']}.{tag}", f)


class CountingOps:
    """ad_modes.ops with a counter: every primitive call adds one to `.calls`."""

    def __init__(self):
        self.calls = 0
        for name in ("sin", "cos", "exp", "log", "tanh", "sum", "dot"):
            setattr(self, name, self._counted(name))

    def _counted(self, name):
        def call(*args, **kwargs):
            self.calls += 1
            return getattr(ops, name)(*args, **kwargs)
        return call


class CountingFunction:
    """The case's f on counting primitives, counting its own calls and noting whether any
    call received a torch tensor (the tape and the Dual must be the student's own)."""

    def __init__(self, case: dict):
        self.prims = CountingOps()
        self.f = make_f(case, self.prims)
        self.calls = 0
        self.saw_torch = False

    def __call__(self, x):
        self.calls += 1
        self.saw_torch |= type(x).__module__.partition(".")[0] == "torch"
        return self.f(x)


def record_counts(rec, cases) -> None:
    """Calls of f and primitive evaluations for jacobian_fwd (n calls), jacobian_rev (one
    call), and vjp + one pullback (one call; the pullback evaluates no primitive of f)."""
    for i, case in enumerate(cases):
        tag = f"[{i}].{case['fn']}"
        once = CountingFunction(case)
        once(np.array(case["x"]))  # one plain evaluation: f's own primitive count
        rec.exact(f"{tag}.count.primitives_in_one_f", once.prims.calls)
        for name, jac in (("jacobian_fwd", jacobian_fwd), ("jacobian_rev", jacobian_rev)):
            f = CountingFunction(case)
            rec.close(f"{tag}.{name}.J", arr(jac(f, np.array(case["x"]))), **TOL)
            rec.exact(f"{tag}.count.{name}.f_calls", f.calls)
            rec.exact(f"{tag}.count.{name}.primitives", f.prims.calls)
            record_torch_free(rec, f"{tag}.count.{name}", f)
        f = CountingFunction(case)
        _, pullback = vjp(f, np.array(case["x"]))
        rec.close(f"{tag}.pullback(u)", arr(pullback(np.array(case["u"]))), **TOL)
        rec.exact(f"{tag}.count.vjp+pullback.f_calls", f.calls)
        rec.exact(f"{tag}.count.vjp+pullback.primitives", f.prims.calls)


def record_cheaper_mode(rec, pairs) -> None:
    for i, (n, m) in enumerate(pairs):
        rec.exact(f"cheaper_mode[{i}]", cheaper_mode(int(n), int(m)))


# ---- Task 4: softmax and LayerNorm ------------------------------------------------------------


def record_softmax(rec, cases) -> None:
    """softmax_jacobian(x) and softmax_vjp(x, g) on every case {"x", "g"}."""
    for i, c in enumerate(cases):
        rec.close(f"[{i}].softmax_jacobian", arr(softmax_jacobian(np.array(c["x"]))), **TOL)
        rec.close(f"[{i}].softmax_vjp", arr(softmax_vjp(np.array(c["x"]), np.array(c["g"]))),
                  **TOL)


def _layernorm_kwargs(c: dict) -> dict:
    kwargs = {}
    if c.get("gamma") is not None:
        kwargs["gamma"] = np.array(c["gamma"])
    if c.get("eps") is not None:
        kwargs["eps"] = float(c["eps"])
    return kwargs


def record_layernorm_jacobians(rec, cases) -> None:
    """layernorm_jacobian(x, [gamma], [eps]) on every case (the defaults when absent)."""
    for i, c in enumerate(cases):
        jac = layernorm_jacobian(np.array(c["x"]), **_layernorm_kwargs(c))
        rec.close(f"[{i}].layernorm_jacobian", arr(jac), **TOL)


def record_layernorm_vjps(rec, cases) -> None:
    """layernorm_vjp(x, g, [gamma], [eps]) on every case."""
    for i, c in enumerate(cases):
        out = layernorm_vjp(np.array(c["x"]), np.array(c["g"]), **_layernorm_kwargs(c))
        rec.close(f"[{i}].layernorm_vjp", arr(out), **TOL)


def record_shared_structure(rec, cases) -> None:
    """Both Jacobians are a diagonal minus low rank (softmax: diag(s) − ssᵀ; LayerNorm without γ:
    (1/σ)(I − 11ᵀ/n − x̂x̂ᵀ/n)) with null vector 1: J·1 = 0, and
    their eigenvalues (symmetric J, γ = None) show the low-rank part. Records J·1 and the
    sorted eigenvalues of each."""
    for i, c in enumerate(cases):
        x = np.array(c["x"])
        for name, jac in (("softmax", arr(softmax_jacobian(x))),
                          ("layernorm", arr(layernorm_jacobian(x)))):
            # contract: SPEC §5.2 null vector 1 in float64: J·1 is a sum of a few unit-scale terms
            rec.close(f"[{i}].{name}.J@1", jac @ np.ones(x.size), atol=1e-12)
            eig = np.sort(np.linalg.eigvalsh((jac + jac.T) / 2))
            # contract: SPEC §5.2 float64 Jacobians: eigvalsh of a symmetric float64 matrix is accurate
            # to ~1e-15 of its norm, so 1e-7 leaves room for any float64 computation of J
            rec.close(f"[{i}].{name}.eigenvalues", eig, atol=1e-9, rtol=1e-7)


def peak_bytes(fn, *args, **kwargs) -> tuple[object, int]:
    """fn's result and the peak of memory traced by tracemalloc while it ran (NumPy reports its
    array buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        result = fn(*args, **kwargs)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def record_vjp_memory(rec, cases) -> None:
    """softmax_vjp and layernorm_vjp at n where J (n² floats) is large: the value, and whether
    the peak memory reached half of J's size (an O(n) VJP stays far below)."""
    for i, c in enumerate(cases):
        x, g = np.array(c["x"]), np.array(c["g"])
        half_j = 8 * x.size * x.size // 2
        calls = {"softmax_vjp": (softmax_vjp, (x, g), {}),
                 "layernorm_vjp": (layernorm_vjp, (x, g), {"gamma": np.array(c["gamma"])})}
        for name, (fn, args, kwargs) in calls.items():
            fn(*args, **kwargs)  # once untraced: a first call's one-off costs are not J
            out, peak = peak_bytes(fn, *args, **kwargs)
            rec.close(f"[{i}].{name}", arr(out), **TOL)
            rec.exact(f"[{i}].{name}.memory.peak_at_least_half_of_J", bool(peak >= half_j))


# ---- Task 5: straight-through round() and fake quantization -----------------------------------
# torch is imported only here: round_ste and fake_quantize take torch tensors.


def _tensor(values, dtype_name: str, requires_grad: bool = True):
    import torch

    return torch.tensor(np.asarray(values), dtype=getattr(torch, dtype_name),
                        requires_grad=requires_grad)


def _numpy(t) -> np.ndarray:
    """A torch tensor (or anything array-like) as a float64 array; None stays None."""
    if t is None:
        return None
    t = t.detach() if hasattr(t, "detach") else t
    return np.asarray(t.numpy() if hasattr(t, "numpy") else t, dtype=np.float64)


QUANT_TOL = {"atol": 1e-6, "rtol": 1e-6}  # float32: a few ulp (g·(1/s)·s is not bitwise g)
# contract: SPEC §5.2 "round_ste: forward torch.round": a rounded value is an integer, exactly
# representable, so it is compared bitwise (−0.0 == 0.0). Gradients are float results: QUANT_TOL.
EXACT = {"atol": 0.0, "rtol": 0.0}


def record_round_ste(rec, cases, round_ste) -> None:
    """round_ste(x) on every case {"x", "g", "dtype"}: the value, and x.grad for upstream g;
    then in a chain, loss = sum(c * round_ste(w * s)): the gradient reaching w."""
    for i, c in enumerate(cases):
        x = _tensor(c["x"], c["dtype"])
        y = round_ste(x)
        rec.close(f"[{i}].value", _numpy(y), **EXACT)
        y.backward(_tensor(c["g"], c["dtype"], requires_grad=False))
        rec.close(f"[{i}].grad", _numpy(x.grad), **QUANT_TOL)
        w = _tensor(c["w"], c["dtype"])
        loss = (round_ste(w * float(c["s"])) * _tensor(c["cw"], c["dtype"], False)).sum()
        loss.backward()
        rec.close(f"[{i}].chain.grad", _numpy(w.grad), **QUANT_TOL)


OFFSETS = np.array([-0.4, -0.3, -0.2, -0.1, 0.1, 0.2, 0.3, 0.4])


def quantize_group(rng, kind: str, size: int, n: int, step: float,
                   boundary: bool = False) -> np.ndarray:
    """One group of `size` values for fake_quantize with qmax − qmin = n: t · step for values t
    whose fractional part is 0.1 to 0.4 from an integer, so x / s (s ≈ step) is never within
    0.05 of a rounding tie whatever the float32 rounding of s. Its min and max are t = m and
    t = m + n, so s = (max − min) / n ≈ step. `kind`: "straddle" (min < 0 < max: the grid covers
    the group), "above" (min > 0: z clamps to qmin and t above n + 0.5 is clipped), "below"
    (max < 0: z clamps to qmax and t below −n − 0.5 is clipped), "zeros" (s from the 1e-5
    floor). `boundary`: the clipped kinds also hold the values each side of their clip limit
    (n ± 0.4 and n + 0.6 above; −n ± 0.4 and −n − 0.6 below)."""
    if kind == "zeros":
        return np.zeros(size)
    if kind == "straddle":
        m = rng.integers(-n + 1, 0) + rng.choice(OFFSETS)
    elif kind == "above":
        m = rng.integers(1, 3 if boundary else n + 1) + rng.choice(OFFSETS[5:] if boundary else OFFSETS)
    else:
        m = -rng.integers(1, 3 if boundary else n + 1) + rng.choice(OFFSETS[:3] if boundary else OFFSETS) - n
    edges = [m, m + n]
    if boundary and kind == "above":
        edges += [n - 0.4, n + 0.4, n + 0.6]
    elif boundary and kind == "below":
        edges += [-n + 0.4, -n - 0.4, -n - 0.6]
    inner = rng.integers(int(np.ceil(m)), int(np.floor(m + n)) + 1, size) + rng.choice(OFFSETS, size)
    inner = inner[(inner > m) & (inner < m + n)]
    t = np.concatenate([edges, inner])[:size]
    if t.size < size:  # (rare) too few drawn strictly inside: pad with the midpoint's grid value
        t = np.concatenate([t, np.full(size - t.size, np.floor(m + n / 2) + 0.25)])
    return rng.permutation(t) * step


def quantize_case(rng, shape: tuple[int, ...], group_size: int, qmin: int, qmax: int,
                  kinds: list[str], boundary: bool = False) -> dict:
    """x of `shape` (float32 in the test) whose groups along the last dimension cycle through
    `kinds`, each with its own step; an upstream gradient g of the same shape."""
    count = int(np.prod(shape)) // group_size
    groups = [quantize_group(rng, kinds[k % len(kinds)], group_size, qmax - qmin,
                             float(rng.uniform(0.02, 0.2)), boundary) for k in range(count)]
    return {"x": np.concatenate(groups).reshape(shape), "g": rng.normal(size=shape),
            "group_size": group_size, "qmin": qmin, "qmax": qmax}


def record_fake_quantize(rec, cases, fake_quantize) -> None:
    """fake_quantize(x, group_size, qmin, qmax) on every case (float32): the value, and x.grad
    for a non-uniform upstream gradient g."""
    for i, c in enumerate(cases):
        x = _tensor(c["x"], "float32")
        y = fake_quantize(x, int(c["group_size"]), int(c["qmin"]), int(c["qmax"]))
        rec.close(f"[{i}].value", _numpy(y), **QUANT_TOL)
        y.backward(_tensor(c["g"], "float32", requires_grad=False))
        rec.close(f"[{i}].grad", _numpy(x.grad), **QUANT_TOL)
