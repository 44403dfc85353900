"""Solution markers: the one source of each function's reference code and its stub.

A solution marks what the student writes (the convention of nbgrader and Otter Assign):

    def f(x):
        \"\"\"The contract (kept in the starter).\"\"\"
        ### BEGIN SOLUTION
        ...reference code...
        ### END SOLUTION

`strip_solutions` (the starter rule) turns each region from a `### BEGIN SOLUTION` line to its
`### END SOLUTION` line (both included) into one line `raise NotImplementedError` at the BEGIN
line's indentation, every other line copied verbatim. It makes the starter
(authoring/starter.py), the release's and Gradescope's copies of the course's files, and the
copies of the tests' shared code a graded child gets (backends/run_folder.py): golden-time code
(a test helper that is a task's answer) runs only in the reference's own runs.
"""

from __future__ import annotations

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = "raise NotImplementedError"


class MarkerError(Exception):
    """Solution markers that do not pair up."""


def strip_solutions(text: str, where: str = "<text>") -> str:
    """`text` with every marked region replaced by one `raise NotImplementedError` line."""
    out, opened = [], 0  # opened: line number of the open BEGIN (0: none)
    for number, line in enumerate(text.splitlines(keepends=True), 1):
        marker = line.strip()
        if marker == BEGIN:
            if opened:
                raise MarkerError(f"{where}:{number}: {BEGIN} inside the region opened at "
                                  f"line {opened}")
            opened = number
            indent = line[: len(line) - len(line.lstrip())]
            out.append(f"{indent}{STUB}\n")
        elif marker == END:
            if not opened:
                raise MarkerError(f"{where}:{number}: {END} without a {BEGIN}")
            opened = 0
        elif not opened:
            out.append(line)
    if opened:
        raise MarkerError(f"{where}:{opened}: {BEGIN} is never closed")
    return "".join(out)


def without_markers(text: str) -> str:
    """`text` with its marker lines removed: the reference code as a student would submit it."""
    return "".join(line for line in text.splitlines(keepends=True)
                   if line.strip() not in (BEGIN, END))
