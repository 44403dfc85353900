"""Forbidden means absent (autograder/sandbox/view.py): a submission that delegates a
task to the library object a rule names, or to the same computation under another name
(Welch's p-value from f_oneway, tukey_hsd or dask; a Jacobian from gradcheck, functorch's grad,
autograd.grad's batched path, forward_ad's dual numbers or scipy), found by a computed route
(getattr on built names, `__subclasses__()`, another function's `__globals__`,
`gc.get_objects()`, walking sys.modules, importlib by a built name) or taken from another
Python installation (sys.path, a co-process of the base interpreter;
adversarial/forbidden_oracle.py), earns nothing on that task's tests: in the child the object
is a stub or does not exist. Without the view, the masks and the hiding of other installations
each case earns points: every case has a `defence="off"` twin that grades it so, to show it
(marked `defence_off`, run only when selected: `pytest -m defence_off`)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from helpers import grade_root, suite_policy

from autograder import settings
from autograder.assignments import discover, load
from autograder.sandbox.view import View

HERE = Path(__file__).resolve().parent
ORACLE = HERE / "adversarial" / "forbidden_oracle.py"
DELEGATES = tomllib.loads((HERE / "adversarial" / "forbidden_delegates.toml").read_text())
CASES = [(name, technique) for name, case in DELEGATES.items()
         for technique in case["techniques"]]
# each attack against the real defence ("on"), and with the defence removed ("off": the attack
# must then get through; deselected unless `-m defence_off` selects it, conftest.py)
DEFENCE = pytest.mark.parametrize(
    "defence", ["on", pytest.param("off", marks=pytest.mark.defence_off)])


def pieces(text: str) -> str:
    """A string literal split in two-character pieces: no constant names the object."""
    return repr([text[i:i + 2] for i in range(0, len(text), 2)])


def hostile(assignment, case: dict, technique: str, dest: Path) -> Path:
    """The reference solution with one function delegating to the oracle found by `technique`."""
    package = dest / assignment.package
    shutil.copytree(assignment.solutions / assignment.package, package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    oracle = (ORACLE.read_text().replace("__TECHNIQUE__", technique)
              .replace("__MODULE__", pieces(case["module"]))
              .replace("__NAME__", pieces(case["name"]))
              .replace("__ANCHOR__", pieces(case["anchor"])))
    (package / "_oracle.py").write_text(oracle)
    with open(package / case["file"], "a", encoding="utf-8") as f:
        f.write(case["append"])
    return dest


def foreign_scipy() -> bool:
    """Whether a Python installation the child must not see holds scipy (the base interpreter's
    own site-packages here)."""
    from autograder.sandbox import bwrap, installations

    dirs = installations.foreign_site_dirs(tuple(bwrap.mounted_trees()),
                                           installations.viewed_site_dirs())
    return any((Path(d) / "scipy" / "stats").is_dir() for d in dirs)


def ids_of(assignment, test_file: str) -> frozenset[str]:
    """The public tests of `test_file` (the hidden child imports through the same view)."""
    path = assignment.tests_dir / "public" / test_file
    return frozenset(line.split("(")[0][4:] for line in path.read_text().splitlines()
                     if line.startswith("def test_"))


@DEFENCE
@pytest.mark.parametrize("name, technique", CASES, ids=[f"{n}-{t}" for n, t in CASES])
def test_the_forbidden_object_is_not_found(name, technique, defence, tmp_path, monkeypatch):
    viewless = defence == "off"
    case = DELEGATES[name]
    if viewless:  # the mutant: no view, no top-level masks, other installations visible
        if case.get("needs_foreign_scipy") and not foreign_scipy():
            pytest.skip("no other Python installation here holds scipy")
        monkeypatch.setattr("autograder.sandbox.bwrap.child_view", lambda rules: View())
        monkeypatch.setattr("autograder.sandbox.bwrap.forbidden_masks", lambda rules, d: [])
        monkeypatch.setattr("autograder.sandbox.bwrap.hiding_args", lambda trees, empty: [])
        monkeypatch.setenv("TRAINING_SYSTEMS_WARM", "0")  # a zygote holds what its view loaded
    assignment = load(case.get("assignment", name))
    ids = frozenset(case.get("tests", ())) or ids_of(assignment, case["test_file"])
    grade = grade_root(assignment, hostile(assignment, case, technique, tmp_path),
                                  visibilities=("public",), ids=ids)
    assert grade.problems == [], grade.problems  # past intake: nothing static shows
    assert {t.id for t in grade.tests} == ids
    earned = [f"{t.visibility}/{t.id}" for t in grade.tests if t.passed]
    if viewless:
        assert earned, f"{name} by {technique} earns nothing even without the view"
    else:
        assert not earned, f"{name}: {case['name']} found by {technique}: {earned}"


LIBRARY = {  # a fake installed package: lib.stats re-exports lib._impl's definitions
    "lib/__init__.py": "",
    "lib/stats/__init__.py": "from ._impl import *\nfrom . import masked_arrays\n",
    "lib/stats/_impl.py": (
        "__all__ = ['ttest', 'other']\n\n\ndef deco(f):\n    return f\n\n\n"
        "@deco\ndef ttest(a, b):\n    return _welch_denominator(a, b)\n\n\n"
        "def _welch_denominator(a, b):\n    return a + b\n\n\n"
        "def other(x):\n    return x\n\n\nclass Sampler:\n    pass\n"),
    "lib/stats/masked_arrays.py": ("from lib.stats._impl import Sampler, other\n"
                                   "__all__ = ['ttest', 'other']\n\n\n"
                                   "def ttest(a, b):\n    return a - b\n"),
    "lib/unused.py": "def oracle():\n    return 1\n",
}


def fake_site(tmp_path, monkeypatch, loaded: set[str]) -> Path:
    from autograder.sandbox import view

    site = tmp_path / "site"
    for rel, text in LIBRARY.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    monkeypatch.setattr(view, "import_dirs", lambda: [str(site)])
    monkeypatch.setattr(view, "loaded_modules", lambda modules: loaded & set(modules))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return site


def test_the_view_stubs_what_the_rules_name_and_nothing_else(tmp_path, monkeypatch):
    """A named definition (found through `import *`), the private helper only it uses, and a
    module the package does not load are replaced; the rest of the module is unchanged."""
    from autograder.sandbox import view

    site = fake_site(tmp_path, monkeypatch, set())
    built = view.child_view(("lib.stats.ttest", "lib.unused"))
    targets = {Path(target).relative_to(site).as_posix(): Path(source).read_text()
               for source, target in built.mounts}
    assert sorted(targets) == ["lib/stats/_impl.py", "lib/unused.py"]
    impl = {}
    exec(compile(targets["lib/stats/_impl.py"], "_impl.py", "exec"), impl)  # noqa: S102
    assert impl["other"](3) == 3 and impl["__all__"] == ["ttest", "other"]
    for name in ("ttest", "_welch_denominator"):
        with pytest.raises(ImportError, match="module 'lib.stats.ttest' is forbidden"):
            impl[name](1, 2)
    assert "a + b" not in targets["lib/stats/_impl.py"]
    with pytest.raises(ImportError, match="module 'lib.unused' is forbidden") as raised:
        exec(compile(targets["lib/unused.py"], "unused.py", "exec"), {})  # noqa: S102
    assert raised.value.graded_forbidden == "lib.unused"  # what the harness reports
    assert view.child_view(("lib.stats.ttest", "lib.unused")) == built  # from the cache


def test_a_loaded_module_loses_its_definitions_and_what_it_re_exports(tmp_path, monkeypatch):
    """A module rule the package loads: its own definitions and the public ones its `__all__`
    re-exports from elsewhere are stubs; what it merely imports (Sampler) stays whole."""
    from autograder.sandbox import view

    site = fake_site(tmp_path, monkeypatch, {"lib.stats.masked_arrays"})
    built = view.child_view(("lib.stats.masked_arrays",))
    targets = {Path(target).relative_to(site).as_posix(): Path(source).read_text()
               for source, target in built.mounts}
    assert sorted(targets) == ["lib/stats/_impl.py", "lib/stats/masked_arrays.py"]
    assert "return a - b" not in targets["lib/stats/masked_arrays.py"]
    impl = targets["lib/stats/_impl.py"]
    assert "def other(*args, **kwargs):" in impl and "class Sampler:\n    pass" in impl
    assert "return _welch_denominator(a, b)" in impl


def test_a_rule_the_view_cannot_remove_is_refused():
    """A rule naming compiled code (a torch operator has no Python source) cannot be made
    absent: the view refuses it, with what to do (SPEC §3: drop it, reshape the task)."""
    from autograder.sandbox import view

    with pytest.raises(view.UnremovableRule, match="reshape the task"):
        view.child_view(("torch.fake_quantize_per_tensor_affine",))


def test_a_rule_whose_library_is_not_installed_needs_no_view(tmp_path, monkeypatch):
    """A rule naming a library this machine lacks (repro's dask.array.stats where only
    `make setup`'s packages are installed, as a student's are) is absent already: the view
    builds without it, and the assignment still grades."""
    from autograder.sandbox import view

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # a view built now, not a cached one
    built = view.child_view(("not_installed_anywhere_xyz.array.stats",
                             "scipy.stats.ttest_ind"))
    assert isinstance(built, View) and built.mounts  # scipy's rule still removes ttest_ind
    assert not view.child_view(("not_installed_anywhere_xyz.array.stats",)).mounts


@pytest.mark.parametrize("assignment", discover(), ids=lambda a: a.name)
def test_every_rule_of_the_course_is_removable(assignment):
    """Each assignment's rules build a view: none names what the view cannot remove."""
    from autograder.sandbox import view

    assert isinstance(view.child_view(assignment.forbidden), View)


WARM_CASES = [(name, technique) for name, technique in CASES
              if technique in ("gc_objects", "subclasses", "sys_modules", "globals")]


@DEFENCE
@pytest.mark.parametrize("name, technique", WARM_CASES, ids=[f"{n}-{t}" for n, t in WARM_CASES])
def test_the_warm_path_holds_no_forbidden_object(name, technique, defence, tmp_path, monkeypatch):
    """The zygote imports through the children's view (backends/zygote.py, ViewFinder): the
    routes that search memory (the collector, subclasses, sys.modules, another function's
    globals) find nothing in a warm child either. With the defence off, the zygote starts
    without the view (the children's mounts unchanged): the originals it loaded are found."""
    from autograder.backends import host, warmbox
    if warmbox.probe(warmbox.SandboxPolicy.create()) is not None:
        pytest.skip("no warm path here")
    viewless = defence == "off"
    zygotes = host.BACKEND.warm_zygotes()  # the process's own, which every warm grade uses
    if viewless:  # its own zygotes: none started with the real view
        monkeypatch.setattr(warmbox, "child_view", lambda rules: View())
        zygotes = warmbox.WarmZygotes()
        monkeypatch.setattr(host.BACKEND, "zygotes", zygotes)
    monkeypatch.setenv(settings.WARM.name, "1")
    case = DELEGATES[name]
    if viewless and case.get("masked"):
        pytest.skip("masked whole (a forbidden top-level module): the zygote never loads it")
    assignment = load(case.get("assignment", name))
    ids = frozenset(case.get("tests", ())) or ids_of(assignment, case["test_file"])
    root = hostile(assignment, case, technique, tmp_path)
    policy = suite_policy(assignment)
    # the zygote of the grade's own kernels (a zygote per kernel variant), started first: a lone
    # child runs cold
    zygote = zygotes.get(assignment, kernels=policy.kernels)
    assert zygote is not None and zygote.mounts == warmbox.child_view(list(assignment.forbidden)).mounts
    try:
        grade = grade_root(assignment, root, visibilities=("public",), ids=ids, policy=policy)
    finally:
        if viewless:
            zygotes.close()
    assert grade.run is not None, grade.problems
    assert grade.run.path == "warm", f"the grade ran {grade.run.path}: the warm path went untested"
    earned = [t.id for t in grade.tests if t.passed]
    if viewless:
        assert earned, f"{name} by {technique} earns nothing even from a viewless zygote"
    else:
        assert not earned, f"{name}: {case['name']} found by {technique} in a warm child: {earned}"


DOCKER_CASES = [("ddp", "getattr_built"), ("ddp", "gc_objects"), ("repro", "globals")]


@DEFENCE
@pytest.mark.parametrize("name, technique", DOCKER_CASES,
                         ids=[f"{n}-{t}" for n, t in DOCKER_CASES])
def test_the_container_view_holds(name, technique, defence, engine, tmp_path, monkeypatch):
    """`--backend docker`: the same view is bound over the runner image's site-packages
    (backends/docker.py, image_view), so the delegates earn nothing in a container either;
    with the defence off it binds none, and they earn points."""
    from autograder.backends import Placement, docker
    viewless = defence == "off"
    if viewless:
        monkeypatch.setattr(docker, "image_view", lambda rules: [])
    case = DELEGATES[name]
    assignment = load(case.get("assignment", name))
    ids = frozenset(case.get("tests", ())) or ids_of(assignment, case["test_file"])
    grade = grade_root(assignment, hostile(assignment, case, technique, tmp_path),
                                  visibilities=("public",), ids=ids,
                                  placement=Placement("docker"))
    assert grade.problems == [], grade.problems
    earned = [t.id for t in grade.tests if t.passed]
    if viewless:
        assert earned, f"{name} by {technique} earns nothing even in a viewless container"
    else:
        assert not earned, f"{name}: {case['name']} found by {technique} in a container: {earned}"
