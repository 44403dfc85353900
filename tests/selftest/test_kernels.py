"""The children's kernels (SandboxPolicy.kernels, autograder/sandbox/kernels.py) take effect in
the sandboxed child, on the cold path and on the warm one, so that the course self-test's
variants (helpers.kernel_variants, test_course.py) really grade as another machine rounds.

A one-test course records, in the child, the bits of a 64x300 @ 300x77 float32 matmul, its
softmax and its layer norm (torch), of the same product in float64 (numpy's OpenBLAS), and the
CPU capability and thread count torch runs with. On a CPU with AVX2 or AVX-512,
`ATEN_CPU_CAPABILITY=default` changes torch's bits; on an AVX-512 one, `MKL_ENABLE_INSTRUCTIONS
=AVX2` changes them too and `OPENBLAS_CORETYPE=Haswell` numpy's (each skipped with the reason
on a CPU without). A zygote imports torch before it forks: torch reads ATEN_CPU_CAPABILITY
and MKL_ENABLE_INSTRUCTIONS at its first operation but the OpenMP thread count and OpenBLAS's
core type when they load, so a warm child with every variable pinned must give the cold
child's bits, threads and capability (a zygote started without the kernels' environment gives
the default's thread count and numpy bits: the keyed zygote is the defence).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import cpu_flags

from autograder import settings
from autograder.assignments import load
from autograder.backends import RunRequest, host, run, warmbox
from autograder.sandbox import Kernels, SandboxPolicy

TEST_FILE = '''"""Task 1: the bits of a float32 matmul, its softmax and its layer norm."""

import hashlib

import numpy as np
import torch

from autograder.harness import graded


def digest(array) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


@graded(points=1)
def test_kernel_bits(rec):
    generator = torch.Generator().manual_seed(0)
    a = torch.randn(64, 300, generator=generator)
    b = torch.randn(300, 77, generator=generator)
    product = a @ b
    rec.exact("matmul", digest(product.numpy()))
    rec.exact("softmax", digest(torch.softmax(product, -1).numpy()))
    rec.exact("layer_norm", digest(torch.nn.functional.layer_norm(product, (77,)).numpy()))
    rec.exact("numpy_matmul", digest(a.double().numpy() @ b.double().numpy()))
    rec.exact("cpu_capability", torch.backends.cpu.get_cpu_capability())
    rec.exact("threads", torch.get_num_threads())
'''
TORCH_BITS = ("matmul", "softmax", "layer_norm")
FLAGS = cpu_flags()
ALL_PINNED = Kernels(threads=2, aten_cpu_capability="default", mkl_instructions="AVX2",
                     openblas_coretype="Haswell" if "avx2" in FLAGS else None)


@pytest.fixture(scope="module")
def bits_course(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("kernels") / "course"
    tests = root / "tests" / "bits"
    (tests / "public").mkdir(parents=True)
    (tests / "assignment.toml").write_text(
        'package = "bits"\nnumber = 98\ntitle = "bits: the kernels a child computes with"\n'
        'forbidden = []\ntest_timeout = 300\nrun_timeout = 600\nmeasured_timeouts = false\n')
    (tests / "public" / "test_bits.py").write_text(TEST_FILE)
    for kind in ("solutions", "starter"):
        (root / kind / "bits").mkdir(parents=True)
        (root / kind / "bits" / "__init__.py").write_text('"""Nothing to write."""\n')
    yield root
    shutil.rmtree(root, ignore_errors=True)


def recorded(course: Path, kernels: Kernels, tmp_path: Path) -> tuple[str, dict]:
    """(the path its child took, {observation: value}) of the bits test under `kernels`."""
    assignment = load("bits", course)
    request = RunRequest(assignment, assignment.solutions, "gen", None,
                         SandboxPolicy.create(kernels=kernels), inputs_base=tmp_path)
    result = run(request)
    record = result.records["test_kernel_bits"]
    assert record.outcome == "passed", (record.status, record.error, result.stderr_tail[-2000:])
    return result.path, {o["name"]: o["value"] for o in record.obs}


@pytest.fixture(scope="module")
def default_bits(bits_course, tmp_path_factory) -> dict:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(settings.WARM.name, "0")
        return recorded(bits_course, Kernels(), tmp_path_factory.mktemp("default"))[1]


def test_aten_default_kernels_change_torchs_bits(bits_course, default_bits, tmp_path,
                                                 monkeypatch):
    if default_bits["cpu_capability"] == "DEFAULT":
        pytest.skip("torch's best kernels here are its plain ones (no AVX2, no AVX-512): "
                    "ATEN_CPU_CAPABILITY=default changes nothing")
    monkeypatch.setenv(settings.WARM.name, "0")
    path, bits = recorded(bits_course, Kernels(aten_cpu_capability="default"), tmp_path)
    assert path == "cold" and bits["cpu_capability"] == "DEFAULT"
    assert all(bits[k] != default_bits[k] for k in TORCH_BITS), (bits, default_bits)


def test_mkl_avx2_and_openblas_haswell_change_the_bits(bits_course, default_bits, tmp_path,
                                                       monkeypatch):
    if "avx512f" not in FLAGS:
        pytest.skip("no AVX-512 on this CPU: MKL's and OpenBLAS's AVX2 kernels are its own")
    monkeypatch.setenv(settings.WARM.name, "0")
    kernels = Kernels(mkl_instructions="AVX2", openblas_coretype="Haswell")
    path, bits = recorded(bits_course, kernels, tmp_path)
    assert path == "cold" and bits["cpu_capability"] == default_bits["cpu_capability"]
    assert all(bits[k] != default_bits[k] for k in (*TORCH_BITS, "numpy_matmul")), \
        (bits, default_bits)


def test_the_warm_path_computes_with_the_policys_kernels(bits_course, default_bits, tmp_path,
                                                         monkeypatch):
    why = warmbox.probe(SandboxPolicy.create(kernels=ALL_PINNED))
    if why is not None:
        pytest.skip(f"no warm path here: {why}")
    monkeypatch.setenv(settings.WARM.name, "0")
    cold_path, cold = recorded(bits_course, ALL_PINNED, tmp_path / "cold")
    monkeypatch.setenv(settings.WARM.name, "1")
    zygotes = host.BACKEND.warm_zygotes()
    assignment = load("bits", bits_course)
    # a process's first lone child starts cold: the zygote first (conftest.py closes it)
    assert zygotes.get(assignment, True, ALL_PINNED) is not None
    warm_path, warm = recorded(bits_course, ALL_PINNED, tmp_path / "warm")
    assert (cold_path, warm_path) == ("cold", "warm")
    assert warm == cold
    assert warm["threads"] == 2 and warm != default_bits
