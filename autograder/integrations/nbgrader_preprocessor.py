"""The nbgrader course's autograde steps of its own (nbgrader_config.py registers them).

Before anything runs, the submitted notebook is rebuilt from the released one
(`RestoreReleaseCells`): every cell, its order, its metadata (tags, the `nbgrader` dict) and the
notebook's metadata (kernelspec) are the release's; only the sources of the written-answer cells
come from the student. So deleting, duplicating ("Duplicate grade id"), retagging
(`skip-execution`), reordering or editing locked cells, or adding a code cell that rebinds `lab`,
changes nothing that runs. A notebook that cannot be read at all (not JSON, not UTF-8, too
large) is set aside by `reject_unreadable` (the pre-convert hook) and replaced by the released
notebook marked rejected: it scores 0 everywhere, the reason is the auto comment of each of its
answer cells in the gradebook, and the rest of the class is graded as usual.
After execution, `RequireTaskResults` gives 0 to every autograded cell whose output is not one
number of points within its range (no output, an error, a forged stream): nbgrader's own rule
would give such a cell full marks.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import nbformat
from nbconvert.preprocessors import Preprocessor
from traitlets import Bool, Unicode

MAX_NOTEBOOK = 32 * 1024 * 1024  # bytes: a submitted notebook larger than this is rejected
REJECTED_KEY = "autograder"  # notebook metadata written by reject_unreadable only


def _release_notebook(release_root: str, assignment: str, notebook: str):
    return nbformat.read(Path(release_root) / assignment / f"{notebook}.ipynb", as_version=4)


def _grade_id(cell) -> str | None:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    info = meta.get("nbgrader") if isinstance(meta, dict) else None
    gid = info.get("grade_id") if isinstance(info, dict) else None
    return gid if isinstance(gid, str) else None


def _text(source) -> str | None:
    if isinstance(source, str):
        return source
    if isinstance(source, list) and all(isinstance(s, str) for s in source):
        return "".join(source)
    return None


def _attachments(value) -> bool:
    """Whether `value` is a markdown cell's attachments as nbformat 4 has them:
    {name: {mime type: base64 text}}."""
    return isinstance(value, dict) and bool(value) and all(
        isinstance(name, str) and isinstance(data, dict) and data
        and all(isinstance(k, str) and isinstance(v, str) for k, v in data.items())
        for name, data in value.items())


def rejection(path: Path) -> str | None:
    """Why nbgrader could not read the submitted notebook at `path` (None: it can)."""
    try:
        size = path.stat().st_size
        if size > MAX_NOTEBOOK:
            return f"the notebook is {size / 2**20:.0f} MiB (at most {MAX_NOTEBOOK // 2**20} MiB)"
        nb = nbformat.reads(path.read_bytes().decode("utf-8"), as_version=4)
        cells = nb.get("cells")
        if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
            return "the notebook has no list of cells"
    except UnicodeDecodeError:
        return "the notebook is not UTF-8 text"
    except Exception as e:  # noqa: BLE001 - whatever nbformat fails on, nbgrader would too
        return f"the notebook is not a readable notebook ({type(e).__name__})"
    return None


def reject_unreadable(release_root: str, assignment: str, student: str, notebooks: list) -> None:
    """Autograde's pre-convert hook: a submitted notebook nbgrader would fail on is renamed
    `<name>.ipynb.rejected`, and the released notebook, marked with the reason, takes its place
    (graded 0 by RestoreReleaseCells and RequireTaskResults)."""
    for name in notebooks:
        path = Path(name)
        reason = rejection(path)
        if reason is None:
            continue
        path.replace(path.with_name(path.name + ".rejected"))
        nb = _release_notebook(release_root, assignment, path.stem)
        nb.metadata[REJECTED_KEY] = {"rejected": reason}
        nbformat.write(nb, path)


class RestoreReleaseCells(Preprocessor):
    """Autograde's first sanitizing step: the notebook becomes the released one, with the
    student's written answers (the source of the first cell carrying each answer's grade_id)."""

    enabled = Bool(True)  # nbconvert's preprocessors are off by default
    release_root = Unicode("release", help="the course's release folder").tag(config=True)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        release = _release_notebook(self.release_root, info["assignment"], info["notebook"])
        mark = nb.get("metadata", {}).get(REJECTED_KEY, {})
        rejected = mark.get("rejected") if isinstance(mark, dict) else None
        answers: dict[str, dict] = {}
        for cell in nb.get("cells", []):
            gid, text = _grade_id(cell), _text(cell.get("source") if isinstance(cell, dict) else None)
            if gid is not None and text is not None:
                answers.setdefault(gid, {"source": text, "attachments": cell.get("attachments")})
        cells = []
        for cell in release.cells:
            cell = copy.deepcopy(cell)
            meta = cell.metadata.get("nbgrader", {})
            answer = answers.get(meta.get("grade_id")) if meta.get("solution") else None
            if rejected is not None and cell.cell_type == "code":
                cell.source = f"# notebook rejected: {rejected}"
            elif answer is not None and rejected is None:
                cell.source = answer["source"]
                if cell.cell_type == "markdown" and _attachments(answer["attachments"]):
                    cell.attachments = copy.deepcopy(answer["attachments"])  # pasted images
            cells.append(cell)
        changed = len(nb.get("cells", [])) != len(cells)
        nb.cells, nb.metadata = cells, copy.deepcopy(release.metadata)
        if rejected is not None:
            nb.metadata[REJECTED_KEY] = {"rejected": str(rejected)}
            self.log.error("%s's notebook rejected: %s (graded 0)", info["student"], rejected)
        elif changed:
            self.log.warning("%s's notebook: cells restored from the release", info["student"])
        return nb, resources


def _points_of(cell) -> float | None:
    """The cell's one execute_result as a number of points within [0, its points], else None."""
    results = [o for o in cell.get("outputs", []) if o.get("output_type") == "execute_result"]
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"
              or (o.get("output_type") == "stream" and o.get("name") == "stderr")]
    if len(results) != 1 or errors:
        return None
    try:
        value = float(_text(results[0].get("data", {}).get("text/plain")) or "")
    except ValueError:
        return None
    top = float(cell.metadata["nbgrader"]["points"])
    return value if math.isfinite(value) and 0 <= value <= top else None


class RequireTaskResults(Preprocessor):
    """After Execute, before SaveAutoGrades: an autograded code cell scores only the points it
    returned; without exactly one such value (no output, an error, text) its output becomes an
    error, which nbgrader scores 0."""

    enabled = Bool(True)

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution") \
                and _points_of(cell) is None:
            cell.outputs = [nbformat.v4.new_output(
                "error", ename="NoPoints", evalue="this cell returned no points: scored 0",
                traceback=["NoPoints: this cell returned no points: scored 0"])]
        return cell, resources


class RecordRejection(Preprocessor):
    """After SaveAutoGrades: a rejected notebook's reason becomes the auto comment of each of
    its answer cells in the gradebook (the formgrader shows it)."""

    enabled = Bool(True)

    def preprocess(self, nb, resources):
        mark = nb.metadata.get(REJECTED_KEY, {})
        if not mark.get("rejected"):
            return nb, resources
        from nbgrader.api import Gradebook

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            for cell in nb.cells:
                if cell.metadata.get("nbgrader", {}).get("solution"):
                    comment = gb.find_comment(cell.metadata.nbgrader["grade_id"],
                                              info["notebook"], info["assignment"],
                                              info["student"])
                    comment.auto_comment = f"notebook rejected: {mark['rejected']}"
            gb.db.commit()
        return nb, resources

