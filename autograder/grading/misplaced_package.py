"""Say what a rejected submission holds instead of the expected package, so a student (and the
class report) reads "found homework/src/minigrad/" rather than a bare "not found"."""

from __future__ import annotations

from pathlib import Path

MAX_SCANNED = 5000  # entries looked at; a huge upload is not walked to the end


def found_instead(root: Path, package: str) -> str | None:
    """One line describing the closest thing to `<package>/__init__.py` in `root`, or None when
    nothing resembling the package is there. Never follows symbolic links; reads no file."""
    folders, files, links, seen = [], [], [], 0
    for path in sorted(_walk(root), key=lambda p: (len(p.parts), str(p))):
        seen += 1
        if seen > MAX_SCANNED:
            break
        rel = path.relative_to(root)
        if path.is_symlink():
            if path.name in (package, f"{package}.py") or (
                    path.name == "__init__.py" and path.parent.name == package):
                links.append(rel)
        elif path.name == package and path.is_dir():
            folders.append(rel)
        elif path.name == f"{package}.py" and path.is_file():
            files.append(rel)
    for rel in folders:
        if not (root / rel / "__init__.py").is_file():
            return (f"found {rel.as_posix()}/ without __init__.py: add an empty "
                    f"{package}/__init__.py")
        if len(rel.parts) > 2:
            return (f"found {rel.as_posix()}/: the package must be at the top of the submission "
                    f"or one folder down")
    if files:
        return f"{files[0].as_posix()} is a file: submit the package folder {package}/"
    if links:
        return (f"{links[0].as_posix()} is a symbolic link (never followed): submit the "
                f"folder and its files themselves")
    return None


def _walk(root: Path):
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = list(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            yield entry
            if entry.is_symlink():
                continue  # named, never followed
            if entry.is_dir() and entry.name != "__pycache__":
                stack.append(entry)
