"""Task 2 — LlavaProjector: LLaVA's linear map, LLaVA-1.5's two-layer GELU MLP, and no other kind."""

from common import projector_cases, record_projector

from autograder.harness import graded
from fusion import LlavaProjector


@graded(points=5, cases=lambda rng: projector_cases(rng, 3))
def test_projector(rec, cases):
    for kind in ("linear", "mlp2x_gelu"):
        for i, case in enumerate(cases):
            record_projector(rec, f"{kind}[{i}]", case, kind)
    for kind in ("mlp", "mlp3x_gelu", "identity"):
        rec.raises(f"kind={kind}", LlavaProjector, 8, 4, kind)
