"""The docker backend's answer to the engine's transient server errors (backends/docker_calls.py,
`transient`), without an engine: podman answers an inspection of a container whose process
has just exited with 500 ("read /proc/N/cgroup: no such process"). A full `make test` met it
in the image-facts container (docker-py's logs() inspects first) and failed a whole grading
with "cannot read the runner image's packages". A server error is asked again; a client error
(404: no such container) is an answer."""

from __future__ import annotations

import json

import pytest
import requests
from docker.errors import APIError, NotFound

from autograder.backends import docker as backend
from autograder.backends import docker_calls, docker_view

RACE = "read /proc/7844/cgroup: no such process"


def server_error() -> APIError:
    response = requests.Response()
    response.status_code = 500
    return APIError("500 Server Error", response=response, explanation=RACE)


def not_found() -> NotFound:
    response = requests.Response()
    response.status_code = 404
    return NotFound("404 Client Error", response=response, explanation="no such container")


@pytest.fixture(autouse=True)
def no_sleep(monkeypatch):
    monkeypatch.setattr(docker_calls.time, "sleep", lambda s: None)


class Flaky:
    """A callable that raises each of `errors` in turn, then returns `value`."""

    def __init__(self, errors, value=None):
        self.errors, self.value, self.calls = list(errors), value, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return self.value


def test_a_server_error_is_asked_again_and_a_client_error_is_an_answer():
    flaky = Flaky([server_error(), server_error()], b"out")
    assert docker_calls.transient(flaky) == b"out" and flaky.calls == 3
    gone = Flaky([not_found()], b"never")
    with pytest.raises(NotFound):
        docker_calls.transient(gone)
    assert gone.calls == 1
    stuck = Flaky([server_error()] * docker_calls.TRIES, b"never")
    with pytest.raises(APIError):
        docker_calls.transient(stuck)
    assert stuck.calls == docker_calls.TRIES


class Container:
    """A container that has exited with `code`; its reload and logs fail as `errors` say."""

    def __init__(self, code=0, reload_errors=(), logs_errors=(), out=b"", err=b""):
        self.status, self.attrs, self.code = "running", {}, code
        self._reload, self._logs = Flaky(reload_errors), Flaky(logs_errors, out)
        self.err, self.removed = err, 0

    def reload(self):
        self._reload()
        self.status, self.attrs = "exited", {"State": {"ExitCode": self.code}}

    def logs(self, stdout=True, stderr=True):
        return self._logs() if stdout else self.err

    def start(self):
        pass

    def wait(self, timeout=None):
        return {"StatusCode": self.code}

    def remove(self, force=False):
        self.removed += 1


def test_an_exiting_container_is_not_taken_for_a_vanished_one(tmp_path):
    """poll() during podman's race is "not known yet", never -1 (which the runner reads as a
    child that died): the next poll reads the real exit code."""
    container = Container(code=0, reload_errors=[server_error()] * (docker_calls.TRIES + 1))
    child = backend.ContainerChild(container, tmp_path / "out", tmp_path / "err")
    assert child.poll() is None
    assert child.poll() == 0


def test_a_vanished_container_has_ended(tmp_path):
    container = Container(reload_errors=[not_found()])
    child = backend.ContainerChild(container, tmp_path / "out", tmp_path / "err")
    assert child.poll() == -1


def facts_from(container: Container, monkeypatch) -> dict:
    """image_facts, from an engine whose one container is `container` (removed after)."""

    class Client:
        class containers:  # noqa: N801 - docker-py's attribute name
            @staticmethod
            def create(image, command, **kwargs):
                return container

        def close(self):
            pass

    monkeypatch.setattr(docker_view, "client", Client)
    docker_view.image_facts.cache_clear()
    try:
        return docker_view.image_facts("some-image", ())
    finally:
        docker_view.image_facts.cache_clear()
        assert container.removed == 1


def test_the_image_facts_survive_the_race_and_leave_no_container(monkeypatch):
    facts = {"site": "/x", "versions": {}, "foreign_site": [], "entries": []}
    racing = Container(logs_errors=[server_error()], out=json.dumps(facts).encode() + b"\n")
    assert facts_from(racing, monkeypatch) == facts


def test_an_image_that_cannot_say_its_facts_is_one_line_naming_why(monkeypatch):
    broken = Container(code=127, err=b"exec: /opt/runner/venv/bin/python3: not found\n")
    with pytest.raises(docker_view.BackendError) as caught:
        facts_from(broken, monkeypatch)
    assert str(caught.value) == ("cannot read the runner image's packages (BackendError: its "
                                 "container exited with 127: exec: /opt/runner/venv/bin/python3: "
                                 "not found)")


class Stubborn:
    """A container whose remove(force=True) raises each of `errors` in turn, then removes it."""

    def __init__(self, errors):
        self.remove = Flaky(errors)


def test_a_container_the_engine_will_not_remove_yet_is_tried_again_until_its_deadline(
        monkeypatch):
    """A loaded podman refused to remove a graded container five times in one second, and a
    full `make test` found it left behind (test_docker's containers_left). `remove` keeps
    trying for REMOVE_S of the engine's time; "no such container" is done at once."""
    clock = [0.0]
    monkeypatch.setattr(docker_calls.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(docker_calls.time, "sleep", lambda s: clock.__setitem__(0, clock[0] + s))
    late = Stubborn([server_error()] * 20)
    docker_calls.remove(late)
    assert late.remove.calls == 21 and clock[0] < docker_calls.REMOVE_S
    gone = Stubborn([not_found()])
    docker_calls.remove(gone)
    assert gone.remove.calls == 1
    clock[0] = 0.0
    never = Stubborn([server_error()] * 10**6)
    docker_calls.remove(never)  # gives up, and says nothing: the engine's cleanup ends it
    assert docker_calls.REMOVE_S - 2.0 <= clock[0] <= docker_calls.REMOVE_S and never.remove.calls < 60


def test_closing_a_run_removes_every_container_left_under_its_label(tmp_path):
    """A create that the engine carried out after the client gave up on it has no child to
    kill it: closing the run asks the engine for everything under the run's label and removes
    it, so no container outlives its run folder."""
    removed, asked = [], []

    class Model:
        def __init__(self, attrs):
            self.id = attrs["Id"]

        def remove(self, force=False):
            removed.append(self.id)

    class Client:
        class api:  # noqa: N801 - docker-py's attribute name
            @staticmethod
            def containers(all=False, filters=None):
                asked.append(filters)
                return [{"Id": "a"}, {"Id": "b"}]

        class containers:  # noqa: N801
            prepare_model = Model

        closed = False

        def close(self):
            Client.closed = True

    box = object.__new__(backend.ContainerBox)
    box.run, box.client = tmp_path, Client()
    box.close()
    assert removed == ["a", "b"] and Client.closed
    assert asked == [{"label": f"{backend.RUN_LABEL}={tmp_path}"}]
