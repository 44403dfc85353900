"""Build the runner images, or serve the Docker API with podman.

    python docker/build.py cpu [--base IMAGE]   # make docker-cpu (default base: a local
                                                #   debootstrapped bookworm)
    python docker/build.py gpu [--base IMAGE]   # make docker-gpu (CUDA torch; unverified here)
    python docker/build.py serve                # podman's Docker API; prints DOCKER_HOST
    python docker/build.py cpu --if-podman      # make test's first step: the image its
                                                #   container tests use, or one line where
                                                #   podman is missing (they skip)
"""

from __future__ import annotations

import argparse
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from autograder.backends.docker_image import Podman, PodmanService, build_runner, podman_problem

# Blocks on stdin, the read end of a pipe only `serve` holds open: when serve ends, however (even
# SIGKILL), the pipe closes and the watchdog stops the podman service and removes its folder.
# A service that exited but is not yet reaped (a zombie: its parent, serve, is gone) counts as
# stopped: waiting on it would only delay the folder's removal.
WATCHDOG = """\
import os, shutil, signal, sys, time
pid, folder = int(sys.argv[1]), sys.argv[2]


def running():
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        pass
    os.kill(pid, 0)  # no /proc here: raises once the process is gone
    return True


sys.stdin.buffer.read()
try:
    os.kill(pid, signal.SIGTERM)
    for _ in range(100):
        if not running():
            break
        time.sleep(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
except ProcessLookupError:
    pass
shutil.rmtree(folder, ignore_errors=True)
"""


class Stop(Exception):
    """A signal asked `serve` to stop."""


def _stop(signum, frame) -> None:
    raise Stop(signal.Signals(signum).name)


def serve(podman: Podman) -> int:
    """Serve the Docker API until Ctrl-C, SIGTERM or SIGHUP (or the service dies); the podman
    service, in a session of its own, is stopped on the way out whichever ends it, and by a
    watchdog (WATCHDOG) when this process is killed outright."""
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, _stop)
    try:
        with PodmanService(podman) as service:
            watchdog = subprocess.Popen([sys.executable, "-c", WATCHDOG, str(service.proc.pid),
                                         str(service.dir)], stdin=subprocess.PIPE,
                                        start_new_session=True)
            print(f"export DOCKER_HOST={service.url}\n(serving; Ctrl-C to stop)", flush=True)
            service.proc.wait()
    except Stop:
        pass  # the with block stopped the service on the way out
    finally:
        if "watchdog" in locals():
            watchdog.stdin.close()  # its job is done (or it does it now)
            watchdog.wait(timeout=30)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["cpu", "gpu", "serve"])
    parser.add_argument("--base", help="base image (default: local bookworm for cpu)")
    parser.add_argument("--if-podman", action="store_true",
                        help="where podman is missing, say so and exit 0")
    args = parser.parse_args()
    problem = podman_problem()
    if problem:
        print(f"{'docker: skipped' if args.if_podman else 'error'}: {problem}",
              file=sys.stdout if args.if_podman else sys.stderr)
        return 0 if args.if_podman else 2
    podman = Podman()
    if args.what == "serve":
        return serve(podman)
    print(f"docker: the {args.what} runner image, found in or built into {podman.cache} "
          f"(a first build on a new machine takes 10-20 min)", flush=True)
    tag = build_runner(podman, args.what, args.base)
    print(f"built {tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
