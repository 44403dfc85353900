"""Grading one submission: intake (zip/folder -> staged package, static checks) -> runs on a
backend, in pipeline's order -> judge (observations vs goldens, hints) -> report (results.json,
terminal).
`pipeline.grade(job)` (job.py's GradeJob: a grading or a check) is the entry point every
caller uses.

May import: the top-level course modules (assignments, atomic, audiences), backends/,
sandbox/, harness/ (its plain-data decoder and config types). Imported by authoring/,
classroom/, integrations/, cli.py and commands.py; never imports them.
"""
