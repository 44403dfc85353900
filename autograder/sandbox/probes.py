"""What isolation this machine provides: one probe per layer (cached per process), the loud
lines for a report when layers are missing, and the strict-mode refusal."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from . import bwrap, cgroups
from .policy import ATTACKS, LAYERS, IsolationError, IsolationMode, SandboxPolicy
from .uids import is_root


@dataclass(frozen=True)
class Capabilities:
    namespaces: bool
    user: bool
    rlimits: bool
    cgroup: bool
    why: dict[str, str] = field(default_factory=dict)  # layer -> why it is missing

    def missing(self) -> list[str]:
        return [layer for layer in LAYERS if not getattr(self, layer)]

    def full(self) -> bool:
        return self.namespaces and self.user and self.rlimits

    def uncovered(self) -> list[str]:
        have = {"engine"} | {layer for layer in LAYERS if getattr(self, layer)}
        return [attack for attack, layers in ATTACKS.items() if not have & set(layers)]


NONE = Capabilities(False, False, False, False)
TURNED_OFF = "turned off by the policy (SandboxPolicy.disabled)"


def readable_by_others(path: Path) -> bool:
    """Whether a user with no group in common with the owners (a slot uid) can traverse to
    path and read it (a folder: list and enter it). False when it does not exist."""
    try:
        real = Path(os.path.realpath(path))
        for p in reversed(real.parents):
            if not p.stat().st_mode & 0o001:
                return False
        mode = real.stat().st_mode
        need = 0o005 if stat.S_ISDIR(mode) else 0o004
        return mode & need == need
    except OSError:
        return False


def capabilities(policy: SandboxPolicy) -> Capabilities:
    """The layers this machine provides under `policy` (none at all in mode 'none')."""
    if policy.mode == IsolationMode.NONE:
        return NONE
    disabled = policy.disabled
    why: dict[str, str] = {}
    ns_problem = TURNED_OFF if "namespaces" in disabled else bwrap.probe()
    if ns_problem:
        why["namespaces"] = ns_problem
    user_ok = is_root() and "user" not in disabled
    if not user_ok:
        why["user"] = (TURNED_OFF if "user" in disabled else
                       "the grader does not run as root, so it cannot switch the child to an "
                       "unprivileged uid of its own")
    elif shutil.which("setpriv") is None:
        user_ok = False
        why["user"] = "setpriv (util-linux) is missing: cannot switch to an unprivileged uid"
    elif ns_problem and not all(readable_by_others(p) for p in bwrap.python_paths()):
        user_ok = False
        why["user"] = ("the interpreter lives under a folder other users cannot read (e.g. "
                       "/root is 0700); install Python elsewhere or make its path readable")
    cg_problem = TURNED_OFF if "cgroup" in disabled else cgroups.probe()[1]
    if cg_problem:
        why["cgroup"] = cg_problem
    rl_ok = "rlimits" not in disabled
    if not rl_ok:
        why["rlimits"] = TURNED_OFF
    return Capabilities(namespaces=not ns_problem, user=user_ok, rlimits=rl_ok,
                        cgroup=not cg_problem, why=why)


def report_lines(policy: SandboxPolicy, caps: Capabilities | None = None) -> list[str]:
    """Loud lines for the report when isolation is incomplete (empty when complete)."""
    if policy.mode == IsolationMode.NONE:
        return [("WARNING: isolation is OFF (--isolation none): submitted code runs with the "
                 "grader's privileges; every attack that needs a sandbox layer succeeds.")]
    caps = caps or capabilities(policy)
    missing = caps.missing()
    if not missing:
        return []
    lines = [f"WARNING: isolation incomplete, missing layer '{layer}': {caps.why.get(layer, '')}"
             for layer in missing]
    uncovered = caps.uncovered()
    if uncovered:
        lines.append("WARNING: attacks NOT stopped on this machine: " + "; ".join(uncovered))
    return lines


def require(policy: SandboxPolicy, caps: Capabilities | None = None) -> None:
    """Raise IsolationError when the policy is strict and the machine lacks a required layer."""
    if policy.mode != IsolationMode.STRICT:
        return
    caps = caps or capabilities(policy)
    if not caps.full():
        missing = [f"{layer} ({caps.why.get(layer, '')})" for layer in caps.missing()
                   if layer != "cgroup"]
        raise IsolationError("--isolation strict: refusing to run submitted code without "
                             "full isolation; missing: " + "; ".join(missing))
