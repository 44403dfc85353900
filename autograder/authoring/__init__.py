"""Authoring the course: goldens (from solutions/ and the mutants), the starter (from the
solutions' markers), mutants (classic bugs with hints), mutation_testing (automatic mutation of
the solutions against their own suite), the handout contract and tolerance lints, the
course self-test, the student release and the bundled examples. Instructor-only, except
`contract` (the student release ships it: audiences.RELEASE_ENGINE).

May import: grading/, backends/, sandbox/, harness/ and the top-level course modules. Imported
by integrations/ and commands.py; never imports them.
"""
