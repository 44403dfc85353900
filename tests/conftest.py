"""Local mode: `pytest tests/<assignment>/public --impl starter` runs graded tests directly,
comparing each observation at once with the public goldens (autograder/grading/local_pytest.py)."""

pytest_plugins = ["autograder.grading.local_pytest"]
