"""What the grader may do to a child: the isolation mode, the resource limits and the numeric
kernels it computes with (where the child runs is the backend's `Placement`,
autograder/backends/base.py).

One `SandboxPolicy` is created from the command line (or a caller's arguments) and passed down to
every run; nothing here reads or writes global state.
"""

from __future__ import annotations

import resource
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from .kernels import Kernels


class IsolationMode(StrEnum):
    """How much isolation a policy demands (`--isolation`; a StrEnum: the same string in JSON)."""

    AUTO = "auto"  # every layer this machine has, loud about the missing ones
    STRICT = "strict"  # refuse to run without namespaces, an unprivileged user and rlimits
    NONE = "none"  # the plain child: no sandbox (trusted code, or a machine without one)


MODES = tuple(IsolationMode)

LAYERS = {
    "namespaces": "bubblewrap: PID/network/IPC/mount namespaces, read-only view of what the "
                  "run needs, size-capped private scratch",
    "user": "an unprivileged uid per child",
    "rlimits": "rlimits: address space, CPU, file size, open files, processes",
    "cgroup": "a cgroup per run with memory and pids limits",
}

# Each attack of the adversarial corpus, and the layers that stop it: any one listed layer is
# enough. "engine" is always present (trust boundary, wall timeouts, capped reads, intake).
ATTACKS: dict[str, tuple[str, ...]] = {
    "early exit (sys.exit, os._exit)": ("engine",),
    "killing the grader process": ("namespaces", "user"),
    "lying __eq__/__lt__/__bool__ objects": ("engine",),
    "monkeypatching pytest/numpy/the harness": ("engine",),
    "forged events/observations": ("engine",),
    "writing fake results or other runs' files": ("namespaces", "user"),
    "reading goldens, solutions, other submissions on the host": ("namespaces",),
    "reading hidden tests during public tests": ("engine",),
    "network connections": ("namespaces",),
    "fork bomb": ("cgroup", "user"),
    "memory bomb": ("cgroup", "rlimits"),
    "disk fill": ("namespaces",),
    "endless loop (Python or C)": ("engine",),
    "huge output": ("engine", "rlimits"),
    "signals to other processes": ("namespaces", "user"),
    "daemons/orphans outliving the run": ("namespaces", "cgroup", "user"),
    "files persisting into the next run": ("namespaces", "user"),
    "zip path traversal, symlinks, zip bombs": ("engine",),
    "forbidden modules imported dynamically": ("namespaces",),
    # the children of one submission run one after the other; the fallback also kills by uid
    # and removes the uid's leftovers (docs/SECURITY.md, "No channel between children")
    "channels between a submission's public and hidden children": ("engine",),
    # hidden tests are refused where the child could read the goldens (the box's hidden_refusal)
    "forging hidden scores from readable goldens": ("engine",),
}


class IsolationError(Exception):
    """Strict isolation was asked for and this machine cannot provide it."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one graded run. The rlimits are rendered two ways from one table:
    as `prlimit` arguments (the normal path) and as a preexec function (no prlimit binary)."""

    file_size: int = 128 * 2**20  # bytes any one file the child writes may reach
    address_space: int = 4 * 2**30  # per process; ddp (torch + gloo, 2 ranks) passes with 1 GiB
    cpu_seconds: int = 600  # per process; the parent's wall timeouts normally act long before
    open_files: int = 4096
    processes: int = 1024  # per run uid (threads count)
    memory: int = 4 * 2**30  # per run (cgroup), all processes and tmpfs scratch together
    pids: int = 1024  # per run (cgroup)
    scratch: int = 512 * 2**20  # each of work/ and tmp/ (tmpfs, namespaces layer)
    shm: int = 512 * 2**20  # /dev/shm (torch.multiprocessing shares tensors through it)

    def rlimits(self, full: bool, nproc: bool) -> list[tuple[str, int, int]]:
        """(prlimit flag, resource, value); `full` False: only core dumps and file size."""
        table = [("core", resource.RLIMIT_CORE, 0), ("fsize", resource.RLIMIT_FSIZE, self.file_size)]
        if full:
            table += [("as", resource.RLIMIT_AS, self.address_space),
                      ("cpu", resource.RLIMIT_CPU, self.cpu_seconds),
                      ("nofile", resource.RLIMIT_NOFILE, self.open_files)]
            if nproc:
                table.append(("nproc", resource.RLIMIT_NPROC, self.processes))
        return table

    def prlimit_args(self, full: bool = True, nproc: bool = False) -> list[str]:
        return [f"--{flag}={value}" for flag, _, value in self.rlimits(full, nproc)]

    def apply(self, full: bool = True, nproc: bool = False) -> None:
        """Set the rlimits on the calling process (a preexec function; lowers to the hard
        limit where the hard limit is below ours)."""
        for _, which, value in self.rlimits(full, nproc):
            try:
                resource.setrlimit(which, (value, value))
            except (ValueError, OSError):
                _, hard = resource.getrlimit(which)
                if hard != resource.RLIM_INFINITY and hard < value:
                    resource.setrlimit(which, (hard, hard))


@dataclass(frozen=True)
class SandboxPolicy:
    """How submitted code is run: isolation `mode` (auto: every layer available, loud about the
    missing ones; strict: refuse without namespaces + an unprivileged user + rlimits; none: the
    plain child), its `limits`, layers to treat as missing although the machine has them
    (`disabled`: a caller's choice, e.g. to see what the rest of the layers stop), and the
    `kernels` its children's numeric libraries use (sandbox/kernels.py; default: the
    machine's, one intra-op thread)."""

    mode: IsolationMode = IsolationMode.AUTO
    limits: Limits = field(default_factory=Limits)
    disabled: frozenset[str] = frozenset()
    kernels: Kernels = field(default_factory=Kernels)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"isolation must be one of {', '.join(MODES)}, not {self.mode!r}")
        object.__setattr__(self, "mode", IsolationMode(self.mode))

    @classmethod
    def create(cls, mode: str | None = None, limits: Limits | None = None,
               kernels: Kernels | None = None) -> SandboxPolicy:
        """The policy for this process's command line (None: the defaults)."""
        return cls(mode=mode or "auto", limits=limits or Limits(), kernels=kernels or Kernels())

    def to_json(self) -> dict:
        """Plain JSON data (every limit; `disabled` sorted); `from_json` rebuilds an equal
        policy."""
        return {"mode": self.mode, "limits": asdict(self.limits), "disabled": sorted(self.disabled),
                "kernels": self.kernels.to_json()}

    @classmethod
    def from_json(cls, data: dict) -> SandboxPolicy:
        """The policy `to_json` wrote (TypeError on an unknown limit, ValueError on a mode;
        no "kernels": the default ones)."""
        return cls(mode=data["mode"], limits=Limits(**data["limits"]),
                   disabled=frozenset(data["disabled"]),
                   kernels=Kernels.from_json(data.get("kernels")))
