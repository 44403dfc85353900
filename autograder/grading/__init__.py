"""Grading one submission: intake (zip/folder -> staged package, static checks) -> a run on a
backend -> judge (observations vs goldens, hints) -> report (results.json, terminal).
`service.grade()` / `service.check()` are the entry point every caller uses.

May import: the top-level course modules (assignments, atomic, audiences), backends/,
sandbox/, harness/ (its plain-data decoder and config types). Imported by authoring/,
classroom/, integrations/ and cli.py; never imports them.
"""
