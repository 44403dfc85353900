"""Automated mutation testing: every reference solution against its own graded suite.

Mutants come from cosmic-ray's core operators (binary, comparison and unary operator
replacement, boolean and number replacement, break/continue swaps, exception replacement,
decorator removal, zero-iteration loops), applied one at a time to a copy of
solutions/<package>/ on disk. A mutant is graded like any submission, by the engine
(`grading.grade_submission_root`: sandboxed child that only records, goldens judged in the
parent), and it is *killed* when it loses points. Public tests run first; hidden tests only run
when the public ones give full marks (losing points anywhere is enough).

Why cosmic-ray and not mutmut: cosmic-ray's model is "write one mutated module to disk, run any
command", which is exactly how the engine grades a submission (a folder, copied into a fresh
sandbox). mutmut 3 instruments every function with trampolines and picks the live mutant from
an environment variable, which the engine's scrubbed child environment (`python -I`, no
inherited variables) would not pass, and it runs pytest itself, outside the trusted parent.

A mutant is named by what a reader can find again: `file::function: old line => new line`
(`tests/<a>/EQUIVALENT_MUTANTS.md` lists the ones that cannot change any output the contract
fixes, by that name, each with its reason). Mutants that change only annotations (never
evaluated under `from __future__ import annotations`), that do not compile, or that repeat
another mutant's code are dropped before sampling.
"""

from __future__ import annotations

import ast
import difflib
import json
import random
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .assignments import Assignment

EQUIVALENT_FILE = "EQUIVALENT_MUTANTS.md"
REPORT_NAME = "mutation_report.md"
TARGET_SCORE = 0.95
# operators that need arguments (a variable name) to do anything
_SKIPPED_OPERATORS = ("VariableReplacer", "VariableInserter")
_EXCEPTION_NAME = "CosmicRayTestingException"
_EXCEPTION_DEFINITION = (f"\n\nclass {_EXCEPTION_NAME}(Exception):\n"
                         "    \"\"\"Raised by nothing: an except clause naming it never catches.\"\"\"\n")
_ENTRY = re.compile(r"^- `(?P<key>[^`]+)`\s*(?::|—|-)?\s*(?P<reason>.*)$")


class MutationError(Exception):
    """The mutation run cannot start (bad equivalent-mutants file, missing tool)."""


@dataclass(frozen=True)
class Mutation:
    """One mutant: the whole mutated text of one file of the solution package."""

    key: str  # stable name: "file::function: old line => new line"
    file: str  # relative to solutions/<package>/
    operator: str
    code: str


@dataclass
class Outcome:
    mutation: Mutation
    status: str  # killed | survived | equivalent
    where: str = ""  # e.g. "public: test_x, test_y" (killed), the reason (equivalent)
    seconds: float = 0.0


@dataclass
class AssignmentMutation:
    """What one assignment's run found."""

    assignment: str
    generated: int
    sampled: int
    outcomes: list[Outcome] = field(default_factory=list)
    stale_equivalents: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def score(self) -> float | None:
        """killed / (graded non-equivalent); None when nothing was graded."""
        judged = self.count("killed") + self.count("survived")
        return self.count("killed") / judged if judged else None


# ------------------------------------------------------------------------ generation


def _operators() -> list[tuple[str, Callable]]:
    try:
        from cosmic_ray.operators.provider import OperatorProvider
    except ImportError as e:  # pragma: no cover - a dev dependency
        raise MutationError(f"cosmic-ray is not installed ({e}); run `make setup`") from None
    provider = OperatorProvider()
    return [(name, provider[name]) for name in sorted(provider) if name not in _SKIPPED_OPERATORS]


def _compiles(code: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. `x is 0`: still a mutant
            compile(code, "<mutant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _lazy_annotations(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
               and any(a.name == "annotations" for a in n.names) for n in tree.body)


def _annotation_lines(code: str) -> set[int]:
    """Lines holding an annotation that is never evaluated (`from __future__ import
    annotations`): a mutant changing one of them may change nothing."""
    tree = ast.parse(code)
    if not _lazy_annotations(tree):
        return set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        parts = [getattr(node, "returns", None), getattr(node, "annotation", None)]
        for part in parts:
            if isinstance(part, ast.AST):
                lines.update(range(part.lineno, (part.end_lineno or part.lineno) + 1))
    return lines


def _without_annotations(code: str) -> str:
    """The module's AST without its (never evaluated) annotations."""
    tree = ast.parse(code)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        if isinstance(node, ast.arg):
            node.annotation = None
        if isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(None)
    return ast.dump(tree)


def _scopes(code: str) -> list[str]:
    """For each line (1-based index), the qualified name of the innermost def/class around it."""
    lines = code.count("\n") + 2
    names = ["<module>"] * (lines + 1)

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                start = min([child.lineno] + [d.lineno for d in child.decorator_list])
                for line in range(start, (child.end_lineno or child.lineno) + 1):
                    names[line] = name
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(code), "")
    return names


def _describe(original: str, mutated: str) -> tuple[int, str, str]:
    """(line number, old line, new line) of the first change; blank lines are skipped and
    runs of spaces shown as one."""
    a, b = original.splitlines(), mutated.splitlines()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        olds = [(i, " ".join(a[i].split())) for i in range(i1, i2) if a[i].strip()]
        news = [" ".join(b[j].split()) for j in range(j1, j2) if b[j].strip()]
        line, old = olds[0] if olds else (i1, "(nothing)")
        return line + 1, old, news[0] if news else "(line removed)"
    return 1, "", ""


def _applies(name: str, node) -> bool:
    """Cheap pre-filter: which nodes an operator family can mutate at all (the operator's own
    mutation_positions decides)."""
    if name.startswith("ReplaceBinaryOperator"):
        return node.type == "operator"
    if name.startswith("ReplaceComparisonOperator"):
        return node.type == "comparison"
    if name.startswith("ReplaceUnaryOperator"):
        return node.type in ("factor", "not_test")
    return True


def _subtree(node) -> list:
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        found.append(n)
        stack.extend(getattr(n, "children", ()))
    return found


def _mutated_codes(code: str, operators: list[tuple[str, Callable]]) -> list[tuple[str, str]]:
    """Every (operator name, mutated text) cosmic-ray's operators make in `code`: one parse,
    each mutation applied in place to the parse tree, printed, then undone."""
    import parso
    from cosmic_ray.ast import ast_nodes

    tree = parso.parse(code)
    instances = [(name, cls()) for name, cls in operators]
    found = []
    for node in list(ast_nodes(tree)):
        for name, operator in instances:
            if not _applies(name, node):
                continue
            for index, _ in enumerate(list(operator.mutation_positions(node))):
                saved = [(n, n.parent, list(n.children) if hasattr(n, "children") else n.value)
                         for n in _subtree(node)]
                parent = node.parent
                siblings = list(parent.children) if parent is not None else None
                try:
                    mutated = operator.mutate(node, index)
                    if parent is not None and mutated is not node:  # replaced or removed
                        parent.children = [mutated if c is node else c for c in siblings
                                           if c is not node or mutated is not None]
                    text = tree.get_code()
                except Exception:  # noqa: BLE001 - an operator that cannot handle this node
                    text = None
                finally:
                    for n, old_parent, state in saved:
                        n.parent = old_parent
                        if hasattr(n, "children"):
                            n.children = state
                        else:
                            n.value = state
                    if parent is not None:
                        parent.children = siblings
                if text is not None:
                    found.append((name, text))
    return found


def generate(assignment: Assignment) -> list[Mutation]:
    """Every distinct, compiling mutant of solutions/<package>/, sorted by key."""
    package = assignment.solutions / assignment.package
    operators = _operators()
    mutations: list[Mutation] = []
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(package).as_posix()
        code = path.read_text(encoding="utf-8")
        annotation_lines = _annotation_lines(code)
        baseline = _without_annotations(code) if annotation_lines else ""
        scopes = _scopes(code)
        seen = {code}
        keys: dict[str, int] = {}
        for name, mutated in _mutated_codes(code, operators):
            if mutated in seen:
                continue
            seen.add(mutated)
            if _EXCEPTION_NAME in mutated:
                mutated += _EXCEPTION_DEFINITION
            if not _compiles(mutated):
                continue
            line, old, new = _describe(code, mutated)
            if line in annotation_lines and _without_annotations(mutated) == baseline:
                continue  # only an annotation changed
            key = f"{rel}::{scopes[line]}: {old} => {new}".replace("`", "'")
            keys[key] = keys.get(key, 0) + 1
            if keys[key] > 1:  # the same edit of an identical line elsewhere in the scope
                key += f" [{keys[key]}]"
            mutations.append(Mutation(key, rel, name, mutated))
    return sorted(mutations, key=lambda m: m.key)


def sample(mutations: list[Mutation], n: int | None, seed: int, salt: str = "") -> list[Mutation]:
    """The first n of a seeded shuffle (a smaller sample is a prefix of a larger one);
    all of them when n is None."""
    order = list(mutations)
    random.Random(f"{seed}:{salt}").shuffle(order)
    return order if n is None else order[:n]


# ------------------------------------------------------------------ equivalent mutants


def equivalent_mutants(assignment: Assignment) -> dict[str, str]:
    """tests/<a>/EQUIVALENT_MUTANTS.md: `- \\`KEY\\` reason` entries (reason may continue on
    indented lines). Returns key -> reason."""
    path = assignment.tests_dir / EQUIVALENT_FILE
    if not path.exists():
        return {}
    entries: dict[str, str] = {}
    current = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = _ENTRY.match(line)
        if match:
            current = match["key"]
            if current in entries:
                raise MutationError(f"{path}:{number}: mutant listed twice: {current}")
            entries[current] = match["reason"].strip()
        elif current and line.startswith("  ") and line.strip():
            entries[current] = (entries[current] + " " + line.strip()).strip()
        else:
            current = None
    missing = [k for k, reason in entries.items() if not reason]
    if missing:
        raise MutationError(f"{path}: no reason given for {missing[0]}")
    return entries


# --------------------------------------------------------------------------- grading


def grade_mutation(assignment: Assignment, mutation: Mutation) -> Outcome:
    """Grade the mutated solution with the engine: killed when it loses points."""
    from .grading import grade_submission_root

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"mutant-{assignment.name}-") as tmp:
        package = Path(tmp) / assignment.package
        shutil.copytree(assignment.solutions / assignment.package, package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (package / mutation.file).write_text(mutation.code, encoding="utf-8")
        for visibility in ("public", "hidden"):
            grade = grade_submission_root(assignment, Path(tmp), (visibility,))
            if grade.score < grade.max_score:
                failed = [t.id for t in grade.tests if not t.passed]
                where = f"{visibility}: " + ", ".join(failed[:4]) + (
                    f" (+{len(failed) - 4})" if len(failed) > 4 else "")
                return Outcome(mutation, "killed", where, time.monotonic() - started)
    return Outcome(mutation, "survived", "", time.monotonic() - started)


def run_assignment(assignment: Assignment, n: int | None = None, seed: int = 0,
                   progress: Callable[[str], None] | None = None) -> AssignmentMutation:
    """Generate the mutants, grade a seeded sample of n (all when None); listed equivalent
    mutants are not graded."""
    started = time.monotonic()
    mutations = generate(assignment)
    equivalents = equivalent_mutants(assignment)
    chosen = sample(mutations, n, seed, assignment.name)
    result = AssignmentMutation(assignment.name, len(mutations), len(chosen),
                                stale_equivalents=sorted(set(equivalents)
                                                         - {m.key for m in mutations}))
    for i, mutation in enumerate(chosen, 1):
        if mutation.key in equivalents:
            outcome = Outcome(mutation, "equivalent", equivalents[mutation.key])
        else:
            outcome = grade_mutation(assignment, mutation)
        result.outcomes.append(outcome)
        if progress:
            progress(f"{assignment.name} [{i}/{len(chosen)}] {outcome.status:<10} "
                     f"{outcome.seconds:5.1f} s  {mutation.key}"
                     + (f"  [{outcome.where}]" if outcome.status == "killed" else ""))
    result.seconds = time.monotonic() - started
    return result


# ---------------------------------------------------------------------------- report

_DATA = re.compile(r"<!-- mutation-data (\{.*\}) -->")


def summary(r: AssignmentMutation, command: str) -> dict:
    """What the report keeps of one assignment's run (plain data)."""
    return {"assignment": r.assignment, "generated": r.generated, "sampled": r.sampled,
            "killed": r.count("killed"), "survived": r.count("survived"),
            "equivalent": r.count("equivalent"), "score": r.score, "seconds": round(r.seconds),
            "command": command,
            "survivors": [o.mutation.key for o in r.outcomes if o.status == "survived"],
            "stale_equivalents": r.stale_equivalents}


def previous_summaries(path: Path) -> dict[str, dict]:
    """The per-assignment data of an existing report (so a run of some assignments keeps the
    others' figures)."""
    if not path.exists():
        return {}
    match = _DATA.search(path.read_text(encoding="utf-8"))
    try:
        return json.loads(match[1]) if match else {}
    except ValueError:
        return {}


def reclassified(d: dict, equivalents: dict[str, str]) -> dict:
    """A stored summary whose survivors are now listed as equivalent counts them as equivalent
    (they were graded and kept full marks; the list says why no test can fail them)."""
    moved = [k for k in d["survivors"] if k in equivalents]
    if not moved:
        return d
    d = dict(d, survivors=[k for k in d["survivors"] if k not in equivalents],
             survived=d["survived"] - len(moved), equivalent=d["equivalent"] + len(moved))
    judged = d["killed"] + d["survived"]
    d["score"] = d["killed"] / judged if judged else None
    return d


def render_report(summaries: list[dict]) -> str:
    """tests/mutation_report.md, from one summary per assignment (teaching order)."""
    lines = [
        "# Mutation testing: every reference solution against its own graded suite",
        "",
        "Generated by `python -m autograder mutation` (`make mutation`): cosmic-ray's core",
        "operators applied one at a time to a copy of solutions/<package>/, each mutant graded",
        "by the engine, public tests then hidden tests; killed = it lost points. Mutants listed",
        f"in `tests/<a>/{EQUIVALENT_FILE}` (each with the reason it cannot change an output the",
        "contract fixes) count as equivalent. Score = killed / (killed + survived), over a seeded",
        "sample of the generated mutants where a full run is too long (the command is given;",
        "`--sample` omitted grades them all). Wall times are on the shared 2-core machine.",
        "",
        "| assignment | mutants generated | sample | killed | survived | equivalent "
        "| score | wall |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for d in summaries:
        score = "n/a" if d["score"] is None else f"{100 * d['score']:.1f} %"
        lines.append(f"| {d['assignment']} | {d['generated']} | {d['sampled']} | {d['killed']} | "
                     f"{d['survived']} | {d['equivalent']} | {score} | {d['seconds']} s |")
    for d in summaries:
        lines += ["", f"## {d['assignment']}", "", f"`{d['command']}`", "",
                  "Survivors: " + ("none." if not d["survivors"] else "")]
        lines += [f"- `{k}`" for k in d["survivors"]]
        if d["equivalent"]:
            lines += ["", f"Equivalent in this sample: {d['equivalent']} (listed with reasons in "
                          f"`tests/{d['assignment']}/{EQUIVALENT_FILE}`)."]
        if d["stale_equivalents"]:
            lines += ["", "Listed as equivalent but no longer generated (edit the list):"]
            lines += [f"- `{k}`" for k in d["stale_equivalents"]]
    data = json.dumps({d["assignment"]: d for d in summaries}, sort_keys=True)
    return "\n".join(lines) + f"\n\n<!-- mutation-data {data} -->\n"


def report_path(root: Path) -> Path:
    return root / "tests" / REPORT_NAME


def run_mutation(names: list[str], n: int | None = None, seed: int = 0,
                 report: Path | None = None) -> int:
    """`python -m autograder mutation`: run the named assignments (default: all), one at a
    time, print progress and survivors, and update the report (other assignments' figures are
    kept). Exit status 1 when an assignment scores below TARGET_SCORE, 2 on a bad list."""
    from .assignments import course_root, discover, load

    assignments = [load(a) for a in names] if names else discover()
    path = report or report_path(course_root())
    summaries = previous_summaries(path)
    low = []
    for assignment in assignments:
        try:
            result = run_assignment(assignment, n, seed,
                                    progress=lambda line: print(line, flush=True))
        except MutationError as e:
            print(f"error: {e}")
            return 2
        score = "n/a" if result.score is None else f"{100 * result.score:.1f} %"
        print(f"{assignment.name}: {result.generated} mutants, {result.sampled} graded, "
              f"{result.count('killed')} killed, {result.count('survived')} survived, "
              f"{result.count('equivalent')} equivalent: score {score} "
              f"({result.seconds:.0f} s)", flush=True)
        command = (f"python -m autograder mutation {assignment.name}"
                   + (f" --sample {n}" if n is not None else "") + f" --seed {seed}")
        summaries[assignment.name] = summary(result, command)
        present = {a.name: a for a in discover()}
        summaries = {name: reclassified(d, equivalent_mutants(present[name]))
                     if name in present else d for name, d in summaries.items()}
        order = list(present)
        ordered = sorted(summaries.values(), key=lambda d: order.index(d["assignment"])
                         if d["assignment"] in order else len(order))
        path.write_text(render_report(ordered), encoding="utf-8")  # after each assignment
        if result.score is not None and result.score < TARGET_SCORE:
            low.append(assignment.name)
    print(f"report: {path}")
    if low:
        print(f"below {100 * TARGET_SCORE:g} %: {', '.join(low)}")
    return 1 if low else 0
