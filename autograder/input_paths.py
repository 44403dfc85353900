"""The command line's paths, checked before a command does any work: an input that is missing,
unreadable or of the wrong kind (a file where a folder is expected), or an output that cannot be
written where it is named, raises `PathError` with one line naming the path. The CLI prints that
line and exits 2; nothing is graded or written for it.
"""

from __future__ import annotations

import os
from pathlib import Path


class PathError(Exception):
    """A path named on the command line cannot be used (one line, naming it)."""


def input_folder(path: Path, what: str) -> Path:
    """`path`, an existing folder whose entries can be listed; `what` names it in the error
    (e.g. "--impl")."""
    if not path.exists():
        raise PathError(f"{what} {path}: no such folder")
    if not path.is_dir():
        raise PathError(f"{what} {path}: a file, not a folder")
    try:
        with os.scandir(path):
            pass
    except OSError as e:
        raise PathError(f"{what} {path}: cannot be read ({e.strerror or type(e).__name__})") \
            from None
    return path


def input_submission(path: Path, what: str = "submission") -> Path:
    """`path`, an existing folder or a readable file (a zip: intake judges its content)."""
    if not path.exists():
        raise PathError(f"{what} {path}: no such file or folder")
    if path.is_dir():
        return input_folder(path, what)
    try:
        with open(path, "rb") as f:
            f.read(1)
    except OSError as e:
        raise PathError(f"{what} {path}: cannot be read ({e.strerror or type(e).__name__})") \
            from None
    return path


def _writable_parent(path: Path, what: str) -> None:
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise PathError(f"{what} {path}: cannot be created ({parent} is a file)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise PathError(f"{what} {path}: cannot be created ({parent} is not writable)")


def output_folder(path: Path, what: str) -> Path:
    """`path`, a folder that exists or can be created (not a file)."""
    if path.exists() and not path.is_dir():
        raise PathError(f"{what} {path}: a file, not a folder")
    if not path.exists():
        _writable_parent(path, what)
    elif not os.access(path, os.W_OK | os.X_OK):
        raise PathError(f"{what} {path}: not writable")
    return path


def output_file(path: Path, what: str) -> Path:
    """`path`, a file that can be written (not a folder)."""
    if path.is_dir():
        raise PathError(f"{what} {path}: a folder, not a file")
    _writable_parent(path, what)
    return path
