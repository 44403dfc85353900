"""`Kernels`: which CPU kernels and how many intra-op threads the children's numeric libraries
use, as the environment variables those libraries read.

By default a child runs what the machine's libraries pick for its CPU, on one intra-op thread
(docs/PERFORMANCE.md: a grader runs several children at once). An instructor may pin the
kernels instead, to grade as another machine would round (a student's laptop without
AVX-512, an older grading server) or to check that the course does not depend on the bits
(`grade --aten-cpu-capability default`; the self-test grades every assignment under such
variants: autograder/grading/float_policy.py says why their bits differ). Each field is one
library's own switch, read by the library in the child, never by the engine:

- `threads`: `OMP_NUM_THREADS` and `MKL_NUM_THREADS`, torch's intra-op pool (1 ..).
- `aten_cpu_capability`: `ATEN_CPU_CAPABILITY`, torch's vectorised ATen kernels (default,
  avx2, avx512 on x86; default, sve256 on arm).
- `mkl_instructions`: `MKL_ENABLE_INSTRUCTIONS`, MKL, torch's BLAS on x86 (SSE4_2, AVX,
  AVX2, AVX512, ...).
- `openblas_coretype`: `OPENBLAS_CORETYPE`, OpenBLAS, numpy's and scipy's BLAS (Prescott,
  Sandybridge, Haswell, SkylakeX, Zen, ...).

A value the CPU cannot run is the library's to handle (torch and MKL fall back to what the
CPU has; OpenBLAS needs a core type the CPU supports). numpy's OpenBLAS keeps one thread: its
pool starts when it loads, and a warm zygote forks with one thread (backends/warmbox.py).
Where each variable is read: torch reads the first three at its first operation or at load,
OpenBLAS at load, so a warm zygote is started with the same environment as its children
(one zygote per Kernels).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

MAX_THREADS = 64
_VALUE = re.compile(r"^[A-Za-z0-9_]{1,32}$")


@dataclass(frozen=True)
class Kernels:
    """The children's numeric environment (module docstring); None: the library's choice."""

    threads: int = 1
    aten_cpu_capability: str | None = None
    mkl_instructions: str | None = None
    openblas_coretype: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) \
                or not 1 <= self.threads <= MAX_THREADS:
            raise ValueError(f"threads must be an integer from 1 to {MAX_THREADS}, "
                             f"not {self.threads!r}")
        for name in ("aten_cpu_capability", "mkl_instructions", "openblas_coretype"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, str) and _VALUE.match(value)):
                raise ValueError(f"{name} must be a word of letters, digits and _, "
                                 f"not {value!r}")

    def env(self) -> dict[str, str]:
        """The child's variables for these kernels (OpenBLAS's thread count stays 1)."""
        env = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": str(self.threads),
               "MKL_NUM_THREADS": str(self.threads)}
        for variable, value in (("ATEN_CPU_CAPABILITY", self.aten_cpu_capability),
                                ("MKL_ENABLE_INSTRUCTIONS", self.mkl_instructions),
                                ("OPENBLAS_CORETYPE", self.openblas_coretype)):
            if value is not None:
                env[variable] = value
        return env

    def describe(self) -> str:
        """One line: what differs from the default ("the machine's default kernels" if none)."""
        default = Kernels()
        parts = [f"{k}={v}" for k, v in asdict(self).items() if v != getattr(default, k)]
        return ", ".join(parts) or "the machine's default kernels, 1 thread"

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict | None) -> Kernels:
        """The Kernels `to_json` wrote (None or {}: the default; TypeError on an unknown
        field, ValueError on a bad value)."""
        return cls(**(data or {}))


DEFAULT_KERNELS = Kernels()
