"""The child's configuration: what the parent's runner tells one sandboxed child (written as
JSON next to the run folder, read by boot.py). Stdlib only: it is imported on both sides of the
trust boundary, and the child's copy trusts nothing but its own run folder."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields


@dataclass(frozen=True)
class ChildConfig:
    """One child's run: `mode` gen|replay, the assignment's name, where its events go, the
    run folder's paths (lib: the harness; impl: the package under test; workdir; rootdir: the
    tests; ini: pytest's), each visibility's stored inputs file, the test files to collect,
    `plan` (test ids to run, None: every test), the forbidden modules, per-test timeouts,
    (gen mode) the salt of the input seeds, and (replay) the package under test, the names its
    test files import from it (missing_names.py stands in for the ones it lacks) and the
    functions whose returned types its calls record (`returns`: name -> the contract's type,
    which the parent judges; harness/returned.py)."""

    mode: str
    assignment: str
    events: str
    lib: str
    impl: str
    workdir: str
    rootdir: str
    ini: str
    inputs: dict[str, str] = field(default_factory=dict)
    test_files: list[str] = field(default_factory=list)
    plan: list[str] | None = None
    forbidden: list[str] = field(default_factory=list)
    timeouts: dict[str, float] = field(default_factory=dict)
    reverse: bool = False  # run the tests in reverse order (golden time: timing the reference)
    seed_salt: str = ""  # gen mode: a draw's salt ("": the published inputs)
    package: str = ""
    package_names: list[str] = field(default_factory=list)
    returns: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ChildConfig:
        """The config in `text`; ValueError when it is not one (unknown or missing keys)."""
        data = json.loads(text)
        names = {f.name for f in fields(cls)}
        if not isinstance(data, dict) or not names.issuperset(data):
            raise ValueError("not a child config")
        return cls(**data)
