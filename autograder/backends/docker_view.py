"""The runner image's facts (its site-packages, the versions it installs, its other site
folders) and the child's view of the packages in it as bind mounts (backends/docker.py's
containers): what a forbidden rule names is replaced or hidden over the image's own files, as
the sandbox's view does on the host (sandbox/view.py, sandbox/bwrap.py).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

from ..sandbox.view import child_view, import_dirs
from .base import BackendError
from .docker_calls import PYTHON, client, image_name, remove, transient

FACTS_S = 120  # the image-facts container's run


IMAGE_FACTS = """
import importlib.metadata, json, os, sys, sysconfig
versions = {}
for name in json.loads(sys.argv[1]):
    try:
        versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        pass
site = sysconfig.get_paths()["purelib"]
foreign = []
for root, dirs, _ in os.walk("/"):
    if root.startswith(("/proc", "/sys", "/dev")):
        dirs[:] = []
    for name in [d for d in dirs if d in ("site-packages", "dist-packages")]:
        dirs.remove(name)
        if os.path.realpath(os.path.join(root, name)) != os.path.realpath(site):
            foreign.append(os.path.join(root, name))
print(json.dumps({"site": site, "versions": versions, "foreign_site": sorted(foreign),
                  "entries": sorted(os.listdir(site))}))
"""


@functools.lru_cache(maxsize=8)
def image_facts(image: str, packages: tuple[str, ...]) -> dict:
    """The image's site-packages folder, its entries, the installed version of each of
    `packages` it has, and every other site-packages or dist-packages folder in it (one short
    container, once per grader process and image)."""
    engine = client()
    container = None
    try:
        container = engine.containers.create(
            image, [PYTHON, "-I", "-c", IMAGE_FACTS, json.dumps(packages)], network_mode="none",
            read_only=True, cap_drop=["ALL"], security_opt=["no-new-privileges"])
        container.start()
        status = container.wait(timeout=FACTS_S).get("StatusCode")
        if status != 0:  # its stderr's last line says why (an image without its venv: no python)
            err = transient(lambda: container.logs(stdout=False, stderr=True))
            last = (err.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
            raise BackendError(f"its container exited with {status}: {last}")
        out = transient(lambda: container.logs(stdout=True, stderr=False))
        return json.loads(out.decode().strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001 - without the facts, no view: never run viewless
        raise BackendError(f"cannot read the runner image's packages ({type(e).__name__}: "
                           f"{str(e)[:200]})") from e
    finally:
        if container is not None:
            remove(container)
        engine.close()


def image_view(rules: list[str]) -> list[tuple[str, str]]:
    """The child's view of the packages (sandbox/view.py: what a dotted forbidden rule names
    does not exist) as container bind mounts: each replacement generated on this machine,
    bound over the same file of the image's site-packages. The image installs the same pinned
    wheels (docker/requirements.txt is pyproject's pins: test_docker), so a replacement made
    from this machine's file is one of the image's file. A package a rule names must be the
    same version in the image (else BackendError: rebuild the image), or absent from it (then
    nothing of it is there to find)."""
    import importlib.metadata

    placed = _in_site_packages(child_view(rules).mounts, strict=True)
    if not placed:
        return []
    tops = tuple(sorted({rel.split("/")[0] for _, rel in placed}))
    facts = image_facts(image_name(), tops)
    out = []
    for source, rel in placed:
        top = rel.split("/")[0]
        if top not in facts["versions"]:
            continue  # the image does not install it
        here = importlib.metadata.version(top)
        if facts["versions"][top] != here:
            raise BackendError(f"the runner image has {top} {facts['versions'][top]}, this "
                               f"machine {here}: its view of the packages cannot be built "
                               "(rebuild it: make docker-cpu)")
        out.append((source, f"{facts['site'].rstrip('/')}/{rel}"))
    return out


def image_foreign_site_dirs() -> list[str]:
    """The runner image's site folders other than its venv's (the base interpreter's, Debian's):
    each is covered by an empty folder in the child's container, as on the host
    (sandbox/installations.py)."""
    return image_facts(image_name(), ())["foreign_site"]


def image_masks(rules: list[str], masks_dir: Path) -> list[tuple[str, str]]:
    """Bind mounts hiding each module a top-level rule forbids from the image's
    site-packages, as bubblewrap hides it on the host (sandbox/bwrap.py's stubs, written under
    `masks_dir`): the image installs what the child imports, and with it modules some
    assignment forbids (transformers brings tokenizers, which bpe forbids). A forbidden
    module of the standard library is refused by the harness' import hook alone here."""
    from ..sandbox.bwrap import mask_mounts

    top = [r for r in rules if "." not in r and not r.startswith("!")]
    placed = _in_site_packages(mask_mounts(top, masks_dir), strict=False)
    if not placed:
        return []
    facts = image_facts(image_name(), ())
    return [(source, f"{facts['site'].rstrip('/')}/{rel}") for source, rel in placed
            if rel in facts["entries"]]


def _in_site_packages(mounts: list[tuple[str, str]], strict: bool) -> list[tuple[str, str]]:
    """(source, target relative to its site-packages folder) of each mount whose target lies
    in one of this machine's site-packages; a target elsewhere is an error (`strict`) or
    left out."""
    dirs = [d.rstrip("/") for d in import_dirs()]
    placed: list[tuple[str, str]] = []
    for source, target in mounts:
        base = max((d for d in dirs if target.startswith(d + "/")), key=len, default=None)
        if base is None or "site-packages" not in base:
            if strict:
                raise BackendError(f"the view replaces {target}, outside site-packages")
            continue
        placed.append((source, target[len(base) + 1:]))
    return placed
