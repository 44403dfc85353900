# ruff: noqa  (hostile code on purpose; placeholders are filled in by test_sandbox.py)
"""Attack: patch pytest, numpy and the harness from an import side effect so every test
"passes" and every recorded value looks like the golden."""
import json
import sys

import numpy as np

np.allclose = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.array_equal = lambda *a, **k: True
try:
    import _pytest.runner
    import pytest

    original = _pytest.runner.call_and_report

    def call_and_report(item, when, log=True, **kw):
        report = original(item, when, log, **kw)
        report.outcome = "passed"
        return report

    _pytest.runner.call_and_report = call_and_report
    pytest.fail = lambda *a, **k: None
except Exception:
    pass
for name, module in list(sys.modules.items()):
    if name.startswith("autograder.harness"):
        if hasattr(module, "Recorder"):
            def _add(self, name, kind, value, atol=0.0, rtol=0.0, check=None):
                self.observations.append({"name": name, "kind": kind, "value": 0.0,
                                          "atol": 1e300, "rtol": 1e300, "check": None})
            module.Recorder._add = _add
        if hasattr(module, "encode"):
            module.encode = lambda value, _depth=0: 0.0
        if hasattr(module, "_errors"):
            module._errors.clear()
json.dumps = lambda obj, **kw: '{"ev": "end", "id": "test_add", "outcome": "passed", "obs": []}'


def add(a, b):
    return 0.0


def mean(xs):
    return 0.0


def order(xs):
    return list(range(len(xs)))[::-1]
