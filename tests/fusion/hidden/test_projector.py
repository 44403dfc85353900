"""Task 2 (hidden) — LlavaProjector on other sizes and weights."""

from common import projector_cases, record_projector

from autograder.harness import graded
from fusion import LlavaProjector


@graded(points=5, cases=lambda rng: projector_cases(rng, 4))
def test_projector_hidden(rec, cases):
    for kind in ("linear", "mlp2x_gelu"):
        for i, case in enumerate(cases):
            record_projector(rec, f"{kind}[{i}]", case, kind)
    for kind in ("MLP2X_GELU", "mlp2x_relu", ""):
        rec.raises(f"kind={kind!r}", LlavaProjector, 6, 10, kind)
