"""A class of submissions: `bulk` (resumable, parallel) with its jobs (`grading.job.GradeJob`,
one per student, its key the resume key) and their executors (local child processes, a Dask
cluster), the class folder's submissions, the regrade preview, the
gradebook, the class report (markdown, HTML) and the similarity scan. Instructor-only.

May import: grading/, authoring/, backends/, sandbox/ and the top-level course modules.
Imported by commands.py only.
"""
