"""rec.raises records an exception by its first builtin class: the contract names builtin types
("raises ValueError"), and a student's own subclass of one is that type."""

from autograder.harness import Recorder, exception_kind


class EnvError(ValueError):
    """A student's own ValueError."""


class StoreTimeout(RuntimeError):
    """Like torch.distributed.DistStoreError: a library's RuntimeError."""


def test_subclass_records_its_builtin_base():
    assert exception_kind(EnvError("RANK missing")) == "ValueError"
    assert exception_kind(StoreTimeout("1/2 clients joined")) == "RuntimeError"


def test_builtin_exceptions_keep_their_own_name():
    assert exception_kind(KeyError("RANK")) == "KeyError"  # not its base LookupError
    assert exception_kind(UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad")) == "UnicodeDecodeError"
    assert exception_kind(RecursionError()) == "RecursionError"


def test_recorder_raises_uses_the_kind():
    def parse(text):
        raise EnvError(f"{text!r} is not an integer")

    rec = Recorder("t")
    assert rec.raises("bad", parse, "two") is None
    assert rec.raises("good", int, "2") == 2
    assert [o["value"] for o in rec.observations] == ["ValueError", None]
