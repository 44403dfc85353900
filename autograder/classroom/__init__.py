"""A class of submissions: `bulk` (resumable, parallel) with its executors (local child
processes, a Dask cluster), the class folder's submissions, the regrade preview, the
gradebook, the class report (markdown, HTML) and the similarity scan. Instructor-only.

May import: grading/, authoring/, backends/, sandbox/ and the top-level course modules.
Imported by commands.py only.
"""
