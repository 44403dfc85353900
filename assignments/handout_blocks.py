"""Generated blocks of a handout: numbers a script derives from code, kept in the README between

    <!-- generated:NAME begin -->
    ...
    <!-- generated:NAME end -->

An `assignments/<a>/make_tables.py` computes every block of its README and calls `main(...)`:

    python assignments/<a>/make_tables.py            # rewrite the blocks in README.md
    python assignments/<a>/make_tables.py --check    # exit 1, naming each stale block, if the
                                                     # README differs from what the code gives now
    python assignments/<a>/make_tables.py --timings  # also re-measure the timing blocks

Blocks named `timing-...` or `machine-...` hold machine-dependent numbers (measured times; results
of float32 training, whose rounding differs from one CPU to the next): they are rewritten only
with --timings, and --check only verifies that they are present. The self-test
(tests/selftest/test_handout_numbers.py) runs every make_tables.py with --check.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from pathlib import Path

BLOCK = re.compile(r"<!-- generated:(?P<name>[\w.-]+) begin -->\n(?P<body>.*?)\n?"
                   r"<!-- generated:(?P=name) end -->", re.S)
MACHINE_DEPENDENT = ("timing-", "machine-")


def blocks_in(text: str) -> dict[str, str]:
    """{name: body} of every generated block in text (bodies without their final newline)."""
    return {m["name"]: m["body"] for m in BLOCK.finditer(text)}


def with_block(text: str, name: str, body: str) -> str:
    """text with block `name`'s body replaced; KeyError when the README lacks the block."""
    found = [m for m in BLOCK.finditer(text) if m["name"] == name]
    if not found:
        raise KeyError(f"no <!-- generated:{name} begin/end --> block in the handout")
    m = found[0]
    new = f"<!-- generated:{name} begin -->\n{body.rstrip()}\n<!-- generated:{name} end -->"
    return text[:m.start()] + new + text[m.end():]


def stale(text: str, blocks: dict[str, str]) -> list[str]:
    """One line per problem: a block the code makes that differs or is missing in text, or a
    block in text that no code makes (machine-dependent blocks: only their presence counts)."""
    have = blocks_in(text)
    out = [f"{name}: missing in the handout" for name in blocks if name not in have]
    out += [f"{name}: the handout differs from what the code gives now"
            for name, body in blocks.items()
            if name in have and not name.startswith(MACHINE_DEPENDENT) and have[name] != body.rstrip()]
    out += [f"{name}: no generator makes this block" for name in have if name not in blocks]
    return out


def main(readme: Path, generate: Callable[[bool], dict[str, str]],
         timing_names: tuple[str, ...] = (), argv: list[str] | None = None) -> int:
    """Command line of a make_tables.py. generate(timings) returns {name: body} for every block;
    with timings False it may leave out the machine-dependent blocks listed in timing_names."""
    ap = argparse.ArgumentParser(description="regenerate the handout's generated blocks")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 when stale")
    ap.add_argument("--timings", action="store_true", help="also re-measure machine-dependent blocks")
    ap.add_argument("--readme", type=Path, default=readme, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    blocks = generate(args.timings and not args.check)
    for name in timing_names:
        blocks.setdefault(name, "")  # not re-measured: only its presence is checked
    if args.check:
        problems = stale(text, blocks)
        for line in problems:
            print(f"{args.readme}: {line}", file=sys.stderr)
        if problems:
            print(f"regenerate: python {Path(sys.argv[0]).as_posix()}", file=sys.stderr)
        return 1 if problems else 0
    for name, body in blocks.items():
        if name.startswith(MACHINE_DEPENDENT) and not args.timings:
            continue
        text = with_block(text, name, body)
    args.readme.write_text(text, encoding="utf-8")
    print(f"wrote {len(blocks)} generated block(s) into {args.readme}")
    return 0
