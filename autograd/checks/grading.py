"""The class edition's graded cells, in the student's kernel (classroom/build.py writes them).

Importing this module turns the kernel into the class edition's: a prediction's check never
shows the answer (the graded copy has no solution to expand either). `graded` shows a check's
report and fails the cell where the check fails, so that a student sees, while working, what
the grader will find; the grade itself is decided out of the kernel's reach, in a fresh
interpreter (classroom/referee.py), which is why nothing here needs to resist a student's cell.
"""

from .exercise import Exercise, NoPoints, graded

__all__ = ["graded", "NoPoints"]

Exercise.class_edition = True
