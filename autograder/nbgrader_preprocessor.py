"""The nbgrader course's autograde step of its own (nbgrader_config.py registers it): only the
course's code cells run, so a cell the student added cannot rebind the notebook's `lab`."""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool


class DropAddedCodeCells(Preprocessor):
    """Autograde's sanitizing step (after OverwriteCells): only the course's own code cells run.
    A code cell whose grade_id is not one of the notebook's source cells in the gradebook (one
    the student added, e.g. to rebind `lab`) is dropped before the notebook executes."""

    enabled = Bool(True)  # nbconvert's preprocessors are off by default

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gb:
            ours = {c.name for c in gb.find_notebook(info["notebook"], info["assignment"]).source_cells}
        kept = [c for c in nb.cells
                if c.cell_type != "code" or c.metadata.get("nbgrader", {}).get("grade_id") in ours]
        if len(kept) < len(nb.cells):
            self.log.warning("dropped %d code cell(s) the course did not write",
                             len(nb.cells) - len(kept))
        nb.cells = kept
        return nb, resources
