"""Calls to the container engine that outlast its races (backends/docker.py's children and
backends/docker_view.py's image facts): a server error while podman tears a container down is
asked again (`transient`), a container it will not remove yet is tried again until a deadline
(`remove`), and the client and image name come from the settings (DOCKER_HOST,
AUTOGRADER_DOCKER_IMAGE).
"""

from __future__ import annotations

import time

from .. import settings

IMAGE = "localhost/training-systems-runner:cpu"
PYTHON = "/opt/runner/venv/bin/python3"
TRIES = 5  # an engine call answered with a server error (`transient`)
REMOVE_S = 60.0  # how long `remove` keeps trying a container the engine will not remove yet


def transient(call, tries: int = TRIES):
    """`call()`, again (up to `tries` times, 0.2 s apart) while the engine answers a server
    error: podman inspects a container that is exiting by reading its process's /proc files,
    and answers 500 ("read /proc/N/cgroup: no such process") when that process has just gone
    (seen in a full `make test`, from docker-py's logs(), which inspects first). A client error
    (404: no such container) is an answer and is raised at once."""
    from docker.errors import APIError

    for _ in range(tries - 1):
        try:
            return call()
        except APIError as e:
            if not e.is_server_error():
                raise
            time.sleep(0.2)
    return call()  # the last try: its error, whatever it is, is the answer


def remove(container, within_s: float = REMOVE_S) -> None:
    """Remove `container` (force: running or not). "No such container" is done. Any other
    failure (podman may still be tearing it down; a loaded engine answers late) is tried again,
    0.2-2 s apart, for `within_s` seconds: five tries in one second left a container behind
    in a full, loaded `make test`. Past that it is left to the engine's own cleanup, or
    `make clean`."""
    from docker.errors import NotFound

    deadline, pause = time.monotonic() + within_s, 0.2
    while True:
        try:
            container.remove(force=True)
            return
        except NotFound:
            return
        except Exception:  # noqa: BLE001 - retry: podman may still be tearing it down
            if time.monotonic() + pause > deadline:
                return
            time.sleep(pause)
            pause = min(2 * pause, 2.0)


def client():
    """A Docker API client for DOCKER_HOST (default: the SDK's default socket)."""
    import docker

    return docker.DockerClient(base_url=settings.DOCKER_HOST.value() or None, timeout=120)


def image_name() -> str:
    return settings.DOCKER_IMAGE.value() or IMAGE
