"""Training Systems autograder: intake -> sandboxed run -> trusted check -> report."""
