"""GPU checks of repro (plain pytest, not graded): what atomicAdd does to bits on CUDA, and what
deterministic_mode changes. Every test skips without CUDA, with the reason.

    .venv/bin/python -m pytest -q tests/repro/gpu                    # the reference solution
    .venv/bin/python -m pytest -q tests/repro/gpu --impl starter     # another implementation

The grading engine has no skip condition for a graded test, so these are the course's own
checks (run by `make test`), not graded tests: a student's grade never depends on the machine.
"""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[3]
try:
    import repro
except ImportError:  # no --impl: check the reference solution
    sys.path.insert(0, str(ROOT / "solutions"))
    import repro

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="needs CUDA: atomicAdd non-determinism exists only on the GPU")
RUNS = 20


def contended_index_add() -> torch.Tensor:
    """index_add_ of 2**20 float32 values into 16 slots: heavy atomicAdd contention."""
    g = torch.Generator(device="cuda").manual_seed(0)
    src = torch.randn(2**20, device="cuda", generator=g) * 1e3
    index = torch.randint(0, 16, (2**20,), device="cuda", generator=g)
    return torch.zeros(16, device="cuda").index_add_(0, index, src)


def test_atomic_add_differs_run_to_run():
    """Without deterministic mode the same index_add_ gives different bits across runs.
    (Not a guarantee of the hardware, an observation: it needs one differing run in RUNS.)"""
    with repro.deterministic_mode(False):
        digests = {repro.fingerprint([contended_index_add()]) for _ in range(RUNS)}
    assert len(digests) > 1, f"{RUNS} runs of a contended index_add_ were bitwise identical"


def test_deterministic_mode_makes_index_add_repeat():
    with repro.deterministic_mode():
        digests = {repro.fingerprint([contended_index_add()]) for _ in range(RUNS)}
    assert len(digests) == 1


def test_deterministic_mode_raises_without_deterministic_kernel():
    """torch.histc on CUDA has no deterministic kernel: deterministic mode raises instead."""
    x = torch.randn(1000, device="cuda")
    with repro.deterministic_mode(), pytest.raises(RuntimeError, match="deterministic"):
        torch.histc(x, bins=10)
    torch.histc(x, bins=10)  # outside: allowed again


def test_embedding_backward_repeats_in_deterministic_mode():
    """Embedding backward accumulates with atomicAdd; in deterministic mode its gradient repeats."""
    def grad_digest():
        torch.manual_seed(0)
        emb = torch.nn.Embedding(8, 64).cuda()
        ids = torch.randint(0, 8, (4096,), device="cuda")
        (emb(ids) * torch.randn(4096, 64, device="cuda")).sum().backward()
        return repro.fingerprint([emb.weight.grad])

    with repro.deterministic_mode():
        assert len({grad_digest() for _ in range(5)}) == 1


def test_workspace_config_in_a_fresh_process():
    """cuBLAS reads CUBLAS_WORKSPACE_CONFIG when it creates its handle: a matmul in a fresh
    process under deterministic_mode gives the same bits twice."""
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import torch, repro\n"
            "with repro.deterministic_mode():\n"
            "    g = torch.Generator(device='cuda').manual_seed(0)\n"
            "    a = torch.randn(512, 512, device='cuda', generator=g)\n"
            "    print(repro.fingerprint([a @ a]))\n")
    impl = str(Path(repro.__file__).resolve().parents[1])
    out = [subprocess.run([sys.executable, "-c", code, impl], capture_output=True, text=True,
                          timeout=120, check=True).stdout for _ in range(2)]
    assert out[0] == out[1] and out[0]
