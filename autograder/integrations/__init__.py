"""Other systems' entry points: the Gradescope autograder zip and its run_autograder, the
nbgrader course, kernel, lab and preprocessor. Each hands student files only to the sandbox
(through grading.pipeline).

May import anything but cli.py and commands.py. Imported by commands.py only.
"""
