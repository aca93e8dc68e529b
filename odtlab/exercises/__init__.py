"""Exercises with checkers for the chapters: ``check("02.1", answer)`` returns a ``Feedback``.

Each chapter's checkers live in ``odtlab/exercises/chNN.py`` and register themselves with
``@exercise("NN.k", title)``; this package imports every such module, so a new chapter module needs
no list to be kept. In a notebook::

    from odtlab.exercises import check
    answer = ...          # the student's cell
    check("02.1", answer) # a green or red box with a message the student can act on
"""
import importlib
import pkgutil

from odtlab.exercises.base import REGISTRY, Feedback, Reject, exercise

for _module in pkgutil.iter_modules(__path__):
    if _module.name.startswith("ch"):
        importlib.import_module(f"{__name__}.{_module.name}")


def check(exercise_id, answer):
    """Check ``answer`` for exercise ``exercise_id``; returns a Feedback (``.ok``, ``.message``)."""
    if exercise_id not in REGISTRY:
        raise KeyError(f"no exercise {exercise_id!r}; the exercises are {', '.join(sorted(REGISTRY))}")
    return REGISTRY[exercise_id].check(answer)


__all__ = ["check", "exercise", "Feedback", "Reject", "REGISTRY"]
