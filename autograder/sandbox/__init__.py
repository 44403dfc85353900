"""How the graded child process is started: its command line, user, limits, cgroup and
environment — the one place that decides what the child can see and do (docs/SECURITY.md).

One module per layer, each adding its own wrapper to the child's command line:
`policy` (SandboxPolicy: mode, Limits, Kernels), `kernels` (the numeric libraries' threads
and CPU kernels, as environment variables), `probes` (what this machine provides),
`cgroups`, `uids`, `bwrap` (namespaces), `seccomp` (the system-call filter every path loads),
and `run` (RunSandbox, which composes them).
Isolation modes: `auto` (default; every layer available, loud about missing ones), `strict`
(refuse without namespaces + an unprivileged user + rlimits), `none` (the plain child: scrubbed
environment and file-size limit only; for debugging and overhead figures).

May import: the standard library and autograder/settings.py (the deployment variables, which
import nothing of the engine). Imported by backends/ (which start children through
it), grading/, authoring/, classroom/, integrations/, cli.py and commands.py (for
`SandboxPolicy`).
"""

from .kernels import DEFAULT_KERNELS, Kernels
from .policy import ATTACKS, LAYERS, MODES, IsolationError, IsolationMode, Limits, SandboxPolicy
from .probes import Capabilities, capabilities, readable_by_others, report_lines, require
from .run import ChildCommand, RunSandbox, scrubbed_env
from .uids import kill_uid

__all__ = ["ATTACKS", "DEFAULT_KERNELS", "LAYERS", "MODES", "Capabilities", "ChildCommand",
           "IsolationError", "IsolationMode", "Kernels", "Limits", "RunSandbox", "SandboxPolicy", "capabilities",
           "kill_uid", "readable_by_others", "report_lines", "require", "scrubbed_env"]
