"""Student ids, and the flags on names that look like another's or hide characters.

A student's gradebook id (their row in grades.csv and canvas.csv, their folder under OUT) is a
function of their own entry's name alone, so no classmate's entry can rename or regrade them:

- the name (a zip's without `.zip`) made inert on one line (safe_text.one_line: controls,
  bidi and zero-width characters as `\\x1b`, `\\u202e`, `\\u200b`); in a word that mixes
  look-alike alphabets (Latin, Cyrillic, Greek, ...), the letters not of its main alphabet are
  escaped too (`\\u0430lice`), and in a name not in NFC form its combining marks
  (`Jose\\u0301`), so a look-alike shows as one;
- plus `~` and a hash of the raw name where the name alone says so: it holds a backslash (the
  start of every escape: `a\\x1b` typed out must not meet the ESC one's id), it is a file the
  class run writes (`grades.csv`), or it is longer than MAX_ID bytes.

Entries that look alike are flagged, never renamed: two names that are the same after removing
invisible characters, NFKC normalization, case folding and replacing look-alike letters
(`family`) each get a note naming the others, and a name with invisible, bidi or control
characters or mixed alphabets gets a note saying so. Each is graded on its own files. Only two
entries with the very same id (a folder `x` and a zip `x.zip`) cannot both keep it: the zip, or
the later in byte order, takes `~hash`, with a note.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections import Counter

from ..grading.safe_text import INERT, escape, one_line

MAX_ID = 200  # bytes of a student id (it names the student's folder under OUT)
LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC")
# Cyrillic and Greek lower-case letters drawn like a Latin one (after case folding)
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
_LOOKALIKE = str.maketrans("аеорсухіјѕԁԛԝһӏʏαοριχκνυϲ", "aeopcyxijsdqwhlyaopixkvuc")


def _script(ch: str) -> str | None:
    """The look-alike alphabet a letter belongs to (None: not a letter of one)."""
    if not unicodedata.category(ch).startswith("L"):
        return None
    words = unicodedata.name(ch, "").split()
    return next((w for w in words[:2] if w in LOOKALIKE_SCRIPTS), None)


def mixed_scripts(word: str) -> list[str]:
    """The look-alike alphabets of `word`'s letters, main one first (most letters; Latin on a
    tie), when there are two or more; else []."""
    counts = Counter(s for s in map(_script, word) if s is not None)
    if len(counts) < 2:
        return []
    return sorted(counts, key=lambda s: (-counts[s], s != "LATIN", s))


def _lookalikes(name: str) -> tuple[set[int], list[str]]:
    """(positions of the letters that are not of their word's main alphabet, the alphabets
    mixed) over the words (letter runs) of `name` that mix look-alike alphabets: `аlice` is
    one, `Dmitri Смирнов` is not."""
    found, mixed = set(), []
    for word in _WORD.finditer(name):
        scripts = mixed_scripts(word.group())
        mixed += [s for s in scripts if s not in mixed]
        found |= {i for i in range(word.start(), word.end())
                  if scripts and _script(name[i]) not in (None, scripts[0])}
    return found, mixed


def shown(name: str) -> str:
    """`name` as its id shows it: inert on one line; in a word mixing look-alike alphabets
    every letter not of the word's main alphabet escaped; in a name not in NFC form every
    combining mark escaped (`Jose\\u0301` is not `José`)."""
    odd, _ = _lookalikes(name)
    decomposed = unicodedata.normalize("NFC", name) != name
    return one_line("".join(
        escape(ch) if i in odd or (decomposed and unicodedata.category(ch).startswith("M"))
        else ch for i, ch in enumerate(name)))


def family(name: str) -> str:
    """The name with invisible characters removed, NFKC-normalized, case-folded and every
    look-alike letter replaced by its Latin twin: names of one family look alike."""
    text = unicodedata.normalize("NFKC", INERT.sub("", name))
    return unicodedata.normalize("NFKC", text.casefold()).translate(_LOOKALIKE)


def digest(raw: str) -> str:
    """8 hex digits of the raw entry name."""
    return hashlib.sha256(os.fsencode(raw)).hexdigest()[:8]


def student_id(name: str, raw: str,
               reserved: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """(id, why it carries `~hash` or None) of the entry named `raw` (its student name `name`:
    without `.zip`); see the module."""
    base = shown(name)
    if "\\" in name:
        why = "holds a backslash (escapes start with one)"
    elif base in reserved:
        why = "is the name of a file the class run writes"
    elif len(base.encode()) > MAX_ID:
        why = f"is longer than {MAX_ID} bytes"
    else:
        return base, None
    short = base.encode()[:MAX_ID].decode("utf-8", errors="ignore")
    return f"{short}~{digest(raw)}", f"the id {short} {why}: graded as {short}~{digest(raw)}"


def name_flags(name: str) -> list[str]:
    """Notes on `name` alone: characters that hide or reorder text, mixed alphabets."""
    flags = []
    if unicodedata.normalize("NFC", name) != name:
        flags.append("the name is not in Unicode's composed form (NFC): its combining marks "
                     "shown escaped")
    if any(not 0xDC80 <= ord(c) <= 0xDCFF for c in INERT.findall(name)):  # bytes: not hidden
        flags.append("the name holds invisible, bidi or control characters (shown escaped)")
    _, scripts = _lookalikes(name)
    if scripts:
        flags.append(f"the name mixes {' and '.join(s.title() for s in scripts)} letters "
                     f"(the look-alikes shown escaped)")
    return flags


def twin_notes(ids: dict[str, str]) -> dict[str, str]:
    """{id: note} for every entry whose name (`ids`: id -> student name) is of one family with
    another's: the note names the others' ids."""
    families: dict[str, list[str]] = {}
    for student, name in ids.items():
        families.setdefault(family(name), []).append(student)
    notes = {}
    for members in families.values():
        for student in members if len(members) > 1 else ():
            others = ", ".join(m for m in members if m != student)
            notes[student] = (f"looks like {others} (the same name once case, Unicode form, "
                              f"invisible characters and look-alike letters are ignored); each "
                              f"is graded on its own files")
    return notes
