"""Parent-side checks for fusion (trusted: they run in the grader, never in the sandbox).

The resolution checks compute the truth with transformers' own `smart_resize`, in the parent
(`load_smart_resize`); the sandbox only reports what the student's code returned.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.util
import math
import os
import re
from pathlib import Path

import numpy as np

TOKEN_AREA = 28 * 28  # pixels per LM token: 14-px patches merged 2 x 2
SMART_RESIZE_MODULE = "transformers.models.qwen2_vl.image_processing_pil_qwen2_vl"


def load_smart_resize():
    """transformers' own `smart_resize`, compiled from its installed source alone where that
    function needs nothing but `math` and builtins: importing its module loads transformers'
    image stack and torch (3.6 CPU s in every grading process, for one pure function).
    Otherwise (a transformers whose function needs more), the module's, imported.
    crosscheck_transformers.py checks the two agree on every stored size."""
    spec = importlib.util.find_spec("transformers")  # a top-level name: nothing is imported
    if spec is not None and spec.origin:
        path = Path(spec.origin).parent.joinpath(*SMART_RESIZE_MODULE.split(".")[1:])
        try:
            tree = ast.parse(path.with_suffix(".py").read_text(encoding="utf-8"))
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module([], [])
        found = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "smart_resize"]
        if len(found) == 1 and not found[0].decorator_list:
            node = found[0]
            local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)} | {
                n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            free = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} - local
            if free <= set(dir(builtins)) | {"math"}:
                namespace = {"math": math, "__builtins__": builtins}
                exec(compile(ast.Module([node], []), str(path.with_suffix(".py")), "exec"), namespace)
                return namespace["smart_resize"]
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return importlib.import_module(SMART_RESIZE_MODULE).smart_resize


smart_resize = load_smart_resize()


def _index(name: str) -> int:
    m = re.search(r"\[(\d+)\]$", name)
    return int(m.group(1)) if m else 0


def _finite_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def is_positive(observed, ctx) -> str | None:
    """A change (of the output, of a gradient) that must not be zero."""
    if not _finite_number(observed):
        return f"expected a finite number, got {observed!r}"[:200]
    if observed <= 1e-6:
        what = {"gate_gradient": "the gates get no gradient at initialisation"}
        return what.get(ctx.name.split("[")[0], "expected a non-zero change") + f" (change {observed:g})"
    return None



# ---------------------------------------------------------------- raw outputs judged here
def _array(value, shape=None) -> np.ndarray | None:
    """value as a finite float64 array (of `shape` when given), or None."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if not np.all(np.isfinite(arr)) or (shape is not None and arr.shape != tuple(shape)):
        return None
    return arr


def _arrays(observed, keys) -> tuple[dict, str | None]:
    """The named finite arrays of one dict observation, all of one shape, or a message."""
    if not isinstance(observed, dict) or not all(k in observed for k in keys):
        return {}, f"expected the outputs {', '.join(keys)}"
    arrays = {k: _array(observed[k]) for k in keys}
    bad = [k for k, a in arrays.items() if a is None]
    if bad:
        return {}, f"the output {bad[0]} is not a finite array"
    shapes = {a.shape for a in arrays.values()}
    if len(shapes) != 1:
        return {}, f"the outputs have different shapes {sorted(shapes)}"
    return arrays, None


def _differ(a: np.ndarray, b: np.ndarray, scale: float, rel: float = 1e-4) -> bool:
    """Whether a and b differ by more than rel·scale somewhere (1e-4: beyond float32 noise)."""
    return float(np.abs(a - b).max(initial=0.0)) > rel * scale


def reads_media(observed, ctx) -> str | None:
    """observed: {"x", "media", "other_media"}: the input (or the output at init) and the
    outputs with the gates opened (or trained) on the stored media and on other media. That must
    change the output, and differently for other media: the blocks read the media. (1e-6 of
    the scale: code that does not read the media gives bitwise the same output.)"""
    arrays, message = _arrays(observed, ("x", "media", "other_media"))
    if message:
        return message
    scale = max(1.0, float(np.abs(arrays["x"]).max(initial=0.0)))
    if not _differ(arrays["media"], arrays["x"], scale, rel=1e-6):
        return "with the gates opened (or trained) the output is the same as with them closed: no gated block acts"
    if not _differ(arrays["media"], arrays["other_media"], scale, rel=1e-6):
        return "with the gates opened the output is the same for two different media: the media are not read"
    return None


def tanh_scaled(observed, ctx) -> str | None:
    """observed: [added(g1), added(g2)] (+ added(g2) on other media for the attention branch),
    what the block added to x with one gate at g1, then at g2 (the other gate 0). They must be
    non-zero, added(g1) = tanh(g1)/tanh(g2)·added(g2), and the attention branch must change
    with the media."""
    g1, g2 = ctx.inputs[_index(ctx.name)]["gates"]
    want_items = 3 if ctx.name.startswith("attn") else 2
    if not (isinstance(observed, list) and len(observed) == want_items):
        return f"expected {want_items} additions"
    a1, a2 = (_array(a) for a in observed[:2])
    if a1 is None or a2 is None or a1.shape != a2.shape:
        return "expected two finite additions of one shape"
    scale = float(np.abs(a2).max(initial=0.0))
    if scale <= 1e-6:
        return f"with the gate at {g2:.3g} the block adds nothing to x"
    want = math.tanh(g1) / math.tanh(g2)
    if float(np.abs(a1 - want * a2).max()) > 1e-5 * scale:
        got = float(a1 @ a2 / (a2 @ a2))
        return (f"with the gate at {g1:.3g} instead of {g2:.3g} the addition scales by {got:.6g}, "
                f"tanh({g1:.3g})/tanh({g2:.3g}) = {want:.6g}")
    if want_items == 3:
        a3 = _array(observed[2])
        if a3 is None or a3.shape != a2.shape:
            return "expected a finite addition on the other media"
        if not _differ(a3, a2, scale, rel=1e-6):
            return "the cross-attention branch adds the same for two different media: it does not read the media"
    return None


def gates_compose(observed, ctx) -> str | tuple[str, str] | None:
    """observed: the block's outputs {"x", "both", "composed", "ff_first", "parallel",
    "other_media"} (see common.record_both_gates): with both gates open the output must be
    `composed`, the gated cross-attention then the gated MLP on its result, built from the
    block itself one gate at a time (exact for every right block; 1e-5 of the scale allows a
    block that computes in float32). An output equal to one of the wrong orders is tagged with it. The
    outputs are those of the stored input x (outputs recorded on other inputs fail), the open
    gates change it, and other media change it again (the block reads the media)."""
    arrays, message = _arrays(observed, ("x", "both", "composed", "ff_first", "parallel",
                                         "other_media"))
    if message:
        return message
    x = _array(ctx.inputs[_index(ctx.name)]["x"])
    if x is None or x.shape != arrays["x"].shape or _differ(arrays["x"], x, 1.0, rel=1e-12):
        return "the outputs are not those of the test's input x"
    scale = max(1.0, float(np.abs(x).max(initial=0.0)))

    def same(name: str) -> bool:
        return not _differ(arrays["both"], arrays[name], scale, rel=1e-5)

    if same("x"):
        return "with both gates open the block returns x unchanged"
    if not _differ(arrays["both"], arrays["other_media"], scale, rel=1e-6):
        return ("with both gates open the output is the same for two different media: the media "
                "are not read")
    if same("composed"):
        return None
    if same("ff_first"):
        return ("ff_before_attention", "with both gates open the block runs the MLP first and "
                "the cross-attention on its result: attention comes first, then the MLP")
    if same("parallel"):
        return ("ff_reads_block_input", "with both gates open the MLP reads the block's input, "
                "not x after the gated cross-attention")
    return ("with both gates open the output is not x + tanh(attn_gate)·xattn(x, media), then "
            "x + tanh(ff_gate)·ff(x) on that result (each gate scales its own branch)")


def resampler_properties(observed, ctx) -> str | None:
    """observed: the resampler's raw outputs {"out", "permuted", "alone", "other_media",
    "same_mean"} (see common.record_resampler). Shape (B, num_latents, dim); the same output
    for permuted media tokens and for each batch element alone; a different one for other
    media and for media with the same token mean (attention, not mean pooling)."""
    case = ctx.inputs[_index(ctx.name)]
    media = np.asarray(case["media"])
    shape = (media.shape[0], case["num_latents"], case["dim"])
    arrays, message = _arrays(observed, ("out", "permuted", "alone", "other_media", "same_mean"))
    if message:
        return message
    if arrays["out"].shape != shape:
        return f"expected outputs of shape {shape}, got {arrays['out'].shape}"
    scale = max(1.0, float(np.abs(arrays["out"]).max()))
    if _differ(arrays["permuted"], arrays["out"], scale):
        change = float(np.abs(arrays["permuted"] - arrays["out"]).max())
        return (f"permuting the media tokens changed the output (by up to {change:.3g}): it must "
                "not depend on the tokens' order")
    if _differ(arrays["alone"], arrays["out"], scale):
        return "resampling one batch element alone gives another output: batch elements are mixed"
    if not _differ(arrays["other_media"], arrays["out"], scale):
        return "the output does not change when the media change"
    if not _differ(arrays["same_mean"], arrays["out"], scale):
        return ("media with the same mean token give the same output: the latents must attend to the "
                "tokens, not to their mean")
    return None


# ---------------------------------------------------------------- rope_2d: the relative property
# Scores of unit-scale vectors, rotated with float32 tables (transformers' Qwen2-VL vision rotary
# computes in float32: a correct choice, SPEC §5.8 fixes no dtype inside): equal to 1e-5 of the
# largest score; a 1D-position or row/column mix-up is off by a large fraction of it.
SCORE_TOL = 1e-5
def _score_table(scores, h: int, w: int) -> tuple[dict, str | None]:
    """{(Δrow, Δcol): score} of one grid, or a message when one (Δrow, Δcol) has two values."""
    n = h * w
    try:
        scores = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        scores = None
    if scores is None or scores.shape != (n, n) or not np.all(np.isfinite(scores)):
        return {}, f"expected a {n} x {n} matrix of finite scores for a {h} x {w} grid"
    scale = max(1.0, float(np.abs(scores).max()))
    scores = scores.tolist()
    table, where = {}, {}
    for i in range(n):
        for j in range(n):
            delta = (j // w - i // w, j % w - i % w)
            if delta not in table:
                table[delta], where[delta] = scores[i][j], (i, j)
            elif abs(table[delta] - scores[i][j]) > SCORE_TOL * scale:
                (a, b) = where[delta]
                return {}, (f"on the {h} x {w} grid the score of patches {divmod(a, w)}->{divmod(b, w)} and "
                            f"{divmod(i, w)}->{divmod(j, w)} differ ({table[delta]:.6g} vs {scores[i][j]:.6g}) "
                            f"although both are (Δrow, Δcol) = {delta} apart")
    return table, None


def relative_2d(observed, ctx) -> str | None:
    """observed: [S1, S2], S = rope(q)·rope(k)ᵀ over all patch pairs of a grid_h x w grid, for the
    two widths of the case. The score must depend only on (Δrow, Δcol) — the same on both
    widths —, split as f(Δrow) + g(Δcol) (half the planes turn with the row, half with the
    column), and change with the row and with the column."""
    case = ctx.inputs[_index(ctx.name)]
    h, widths = case["grid_h"], case["widths"]
    if not (isinstance(observed, list) and len(observed) == 2):
        return "expected the score matrices of two grids"
    tables = []
    for scores, w in zip(observed, widths):
        table, message = _score_table(scores, h, w)
        if message:
            return message
        tables.append(table)
    scale = max(1.0, max(abs(v) for t in tables for v in t.values()))
    (t1, t2), (w1, w2) = tables, widths
    for delta in sorted(t1.keys() & t2.keys()):
        if abs(t1[delta] - t2[delta]) > SCORE_TOL * scale:
            return (f"the score of two patches {delta} (Δrow, Δcol) apart is {t1[delta]:.6g} on a grid {w1} wide "
                    f"but {t2[delta]:.6g} on one {w2} wide: the rotation must depend on the row and the column, "
                    "not on the flat index row·width + column")
    for table, w in zip(tables, widths):
        for (dr, dc), v in table.items():
            if abs(v - table[(dr, 0)] - table[(0, dc)] + table[(0, 0)]) > SCORE_TOL * scale:
                return (f"on the {h} x {w} grid score(Δ={dr},{dc}) is not score(Δrow) + score(Δcol): half "
                        "of the rotation planes must turn with the row only, the other half with the column only")
        base = table[(0, 0)]
        if max(abs(table[(dr, 0)] - base) for dr in range(-h + 1, h)) <= 1e-3 * scale:
            return "the score does not change with the row: no rotation encodes the row"
        if max(abs(table[(0, dc)] - base) for dc in range(-w + 1, w)) <= 1e-3 * scale:
            return "the score does not change with the column: no rotation encodes the column"
    return None


# ---------------------------------------------------------------- Qwen2-VL resolution
def _smart_resize(height: int, width: int, limits) -> list[int] | str:
    """transformers' own smart_resize (factor 28), or "ValueError" where it raises."""
    kwargs = {} if limits is None else {"min_pixels": limits[0], "max_pixels": limits[1]}
    try:
        return [int(v) for v in smart_resize(height, width, factor=28, **kwargs)]
    except ValueError:
        return "ValueError"


def equals_smart_resize(observed, ctx) -> str | None:
    """observed: per stored size, [h, w] (resize[j]) or a token count (tokens[j]), or the name
    of the exception raised; the truth is transformers' smart_resize with limits j."""
    sizes, limits = ctx.inputs["sizes"], ctx.inputs["limits"][_index(ctx.name)]
    tokens = ctx.name.startswith("tokens")
    if not isinstance(observed, list) or len(observed) != len(sizes):
        return f"expected {len(sizes)} results"
    for (h, w), got in zip(sizes, observed):
        want = _smart_resize(h, w, limits)
        if tokens and want != "ValueError":
            want = want[0] * want[1] // TOKEN_AREA
        if got != want:
            where = f"{h}x{w}" + ("" if limits is None else f" (min_pixels={limits[0]}, max_pixels={limits[1]})")
            return f"{where}: got {got!r}, transformers' smart_resize gives {want!r}"[:300]
    return None


def valid_fit(observed, ctx) -> str | None:
    """observed: fit_images_to_context's [[h, w], ...] or the exception's name. Where even every
    image resized at max_pixels=min_pixels takes more than the budget, ValueError is due (every
    policy must raise). Where that fits but 4 tokens an image do not, ValueError is accepted
    (smart_resize's floor can give fewer than 4 tokens: both readings of the boundary are
    right) and so is a valid fit. Budgets that hold the defaults must get them; otherwise
    sides are multiples of 28, no larger than the default, the tokens fit and at least half of
    the budget is used."""
    case = ctx.inputs[_index(ctx.name)]
    sizes, budget = case["sizes"], case["max_tokens"]
    defaults = [_smart_resize(h, w, None) for h, w in sizes]
    default_tokens = sum(h * w // TOKEN_AREA for h, w in defaults)
    at_min = [_smart_resize(h, w, (3136, 3136)) for h, w in sizes]
    floor_tokens = sum(min(h, dh) * min(w, dw) // TOKEN_AREA for (h, w), (dh, dw) in zip(at_min, defaults))
    if floor_tokens > budget:
        if observed != "ValueError":
            return (f"{len(sizes)} images cannot fit in {budget} tokens even resized at max_pixels=min_pixels "
                    f"({floor_tokens} tokens): expected ValueError")
        return None
    if observed == "ValueError" and 4 * len(sizes) > budget:
        return None
    if isinstance(observed, str):
        return f"raised {observed} though the images fit in {budget} tokens"
    if default_tokens <= budget:
        if observed != defaults:
            return (f"the defaults {defaults} ({default_tokens} tokens) fit in {budget}: "
                    f"they must be kept, got {observed}")[:300]
        return None
    if not (isinstance(observed, list) and len(observed) == len(sizes)
            and all(isinstance(s, list) and len(s) == 2 and all(type(v) is int for v in s) for s in observed)):
        return f"expected {len(sizes)} [h, w] pairs of ints"
    for (h, w), (dh, dw) in zip(observed, defaults):
        if h % 28 or w % 28 or h < 28 or w < 28:
            return f"{h}x{w}: both sides must be positive multiples of 28"
        if h > dh or w > dw:
            return f"{h}x{w} is larger than the default resize {dh}x{dw}"
    used = sum(h * w // TOKEN_AREA for h, w in observed)
    if used > budget:
        return f"the images take {used} tokens, over the budget of {budget}"
    if used < budget / 2:
        return f"the images take {used} tokens of a budget of {budget}: shrunk far more than needed"
    return None
