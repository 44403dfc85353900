"""A zygote whose forks leave steps of the entering sequence out: test_warm.py's attacks are each
shown to get through such a broken sequence, so their failure against the real one is the
sequence's doing. The product has no way to leave a step out; this script builds the broken
sequence from outside, as a test double.

test_warm.py points `warmbox.ZYGOTE` at a two-line script that runs this file with `LEAVE_OUT`
(step names) set; it loads autograder/backends/zygote.py by path, replaces each left-out step
with what the sequence does without it, and runs the zygote's `main` (same argv, same socket
protocol).
"""

import importlib.util
import os
from pathlib import Path

ZYGOTE = Path(__file__).resolve().parents[2] / "autograder" / "backends" / "zygote.py"
STEPS = ("close_fds", "cgroup", "setns", "chroot", "uid", "caps", "seccomp", "reseed")


def load_zygote():
    spec = importlib.util.spec_from_file_location("zygote", ZYGOTE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def break_steps(zygote, leave_out: set[str]) -> None:
    """Replace the steps of `leave_out` (names of STEPS) in the loaded zygote module."""
    unknown = leave_out - set(STEPS)
    if unknown:
        raise SystemExit(f"unknown steps {sorted(unknown)}")
    server = os.getpid()
    real_close = zygote.close_fds_except

    def nothing(*_args) -> None:
        return None

    def close_in_server_only(lib, keep):  # the zygote closes its own fds; its forks none
        if os.getpid() == server:
            real_close(lib, keep)

    def fds_closed_only(lib, ns_fds):  # no setns: the host's namespaces stay
        for fd in ns_fds.values():
            os.close(fd)

    def run_folder_only(root_fd, workdir):  # no chroot: the host's root stays
        os.close(root_fd)
        os.chdir(workdir)

    stand_ins = {
        "close_fds": {"close_fds_except": close_in_server_only},
        "cgroup": {"join_cgroup": nothing},
        "setns": {"join_namespaces": fds_closed_only},
        "chroot": {"enter_root": run_folder_only},
        "uid": {"set_ids": nothing},
        # (the test process's self-check would refuse what is left: it goes too)
        "caps": {"drop_bounding_set": nothing, "drop_capabilities": nothing, "verify": nothing},
        "seccomp": {"seccomp_filter": nothing, "verify": nothing},
        "reseed": {"fresh_random_state": nothing},
    }
    for step in leave_out:
        for name, stand_in in stand_ins[step].items():
            assert hasattr(zygote, name), f"the zygote has no step {name}"
            setattr(zygote, name, stand_in)


if __name__ == "__main__":
    module = load_zygote()
    break_steps(module, set(LEAVE_OUT))  # noqa: F821 - set by the script that runs this file
    module.main()
