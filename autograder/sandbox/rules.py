"""Which `forbidden` rule decides a dotted name (grading/forbidden.py describes the rules): shared
by the static scan of a submission and the child's view of the packages (sandbox/view.py)."""

from __future__ import annotations

from collections.abc import Iterable


def covers(rule: str, name: str) -> bool:
    return name == rule or name.startswith(rule + ".")


def deciding_rule(rules: Iterable[str], name: str) -> str | None:
    """The forbidden rule that forbids `name`, or None when no rule does or an exception
    (`!rule`) at least as specific allows it."""
    rules = tuple(rules)
    if any(r.startswith("!") and r[1:].startswith(name + ".") for r in rules):
        return None  # a package on the way to an exception (transformers.models -> .llama)
    matching = [(len(r.lstrip("!")), r.startswith("!"), r) for r in rules
                if covers(r.lstrip("!"), name)]
    if not matching:
        return None
    _, is_exception, rule = max(matching)  # longest first; at a tie the exception wins
    return None if is_exception else rule
