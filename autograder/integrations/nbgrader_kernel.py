"""The kernel autograde executes the lab notebooks in (nbgrader_config.py selects it): the
course's own interpreter, isolated from everything in the student's folder.

nbgrader starts a kernel with the notebook's folder as its working folder, from the notebook's
kernelspec, and `python -m ipykernel_launcher` puts that folder first on `sys.path`: a
`rich/`, `autograder/` or `ipykernel_launcher.py` planted next to the notebook would then be
imported by the trusted kernel, which nbgrader believes. Here the kernel is always
`<this interpreter> -I -m ipykernel_launcher -f <connection file>` (`-I`: no current folder,
PYTHONPATH or user site on its path, hence no sitecustomize/usercustomize/.pth of the student),
whatever kernelspec the notebook names; its working folder and IPYTHONDIR are empty temporary
folders of its own (no IPython profile, startup file or config of the student's), removed when
the kernel is cleaned up; the notebook's folder reaches it only as AUTOGRADER_LAB_DIR, the
folder `grade_lab` grades.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import typing as t
from pathlib import Path

from jupyter_client.manager import AsyncKernelManager
from nbgrader.preprocessors import Execute
from traitlets import Type

from .. import settings


class IsolatedKernelManager(AsyncKernelManager):
    """An AsyncKernelManager whose kernel is this interpreter under `-I`, in empty folders."""

    _scratch: str | None = None

    def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
        """The kernel's command line, ignoring the kernelspec's argv (the notebook's metadata
        names the kernelspec; a student may have changed it)."""
        return [sys.executable, "-I", "-m", "ipykernel_launcher", "-f", self.connection_file,
                *(extra_arguments or [])]

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw: t.Any) -> None:
        lab = str(Path(kw.get("cwd") or ".").resolve())
        self._scratch = tempfile.mkdtemp(prefix="nbgrader-kernel-")
        (Path(self._scratch) / "ipython").mkdir()
        (Path(self._scratch) / "cwd").mkdir()
        env = {**(kw.get("env") or settings.inherited_environment()),
               settings.LAB_DIR.name: lab, "IPYTHONDIR": str(Path(self._scratch) / "ipython")}
        kw.update(cwd=str(Path(self._scratch) / "cwd"), env=env)
        await super()._async_launch_kernel(kernel_cmd, **kw)

    _launch_kernel = _async_launch_kernel  # AsyncKernelManager calls it by this name

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if self._scratch and not restart:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    cleanup_resources = _async_cleanup_resources


class IsolatedExecute(Execute):
    """nbgrader's Execute step with the isolated kernel (autograde_preprocessors in the
    generated config list this one in Execute's place)."""

    kernel_manager_class = Type(IsolatedKernelManager, config=True)

    def __init__(self, *args, **kwargs):
        kwargs["kernel_manager_class"] = IsolatedKernelManager
        super().__init__(*args, **kwargs)
