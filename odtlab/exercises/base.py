"""The exercise registry: each chapter module registers its checkers with ``@exercise``.

A checker takes the student's answer and returns ``accept(message)`` or ``reject(message)``; it may
also ``raise Reject(message)`` from a helper (``as_number`` and friends) when the answer cannot be read.
It computes its reference from the chapter's data itself, never from a stored answer, and its message
says what is wrong and what to look at, not only "wrong".
"""
from dataclasses import dataclass
from fractions import Fraction
import html
import numbers


@dataclass(frozen=True)
class Feedback:
    """What ``check`` returns: ``ok`` and a message; a notebook shows it as a green or red box."""

    exercise: str
    ok: bool
    message: str

    def __repr__(self):
        return f"[{self.exercise}] {'correct' if self.ok else 'not yet'}: {self.message}"

    def _repr_html_(self):
        colour, border, word = ("#e6f4ea", "#1e8e3e", "Correct") if self.ok else ("#fce8e6", "#d93025", "Not yet")
        return (f'<div style="background:{colour};border-left:4px solid {border};padding:6px 10px;'
                f'color:#202124"><b>{html.escape(self.exercise)} · {word}.</b> '
                f'{html.escape(self.message[:1].upper() + self.message[1:])}</div>')


class Reject(Exception):
    """Raised inside a checker (or a helper it calls) to reject the answer with this message."""


@dataclass(frozen=True)
class Exercise:
    """One registered exercise: its id ("02.1"), title and checker."""

    id: str
    title: str
    checker: object

    def check(self, answer):
        if answer is None or answer is Ellipsis:
            return Feedback(self.id, False, "not answered yet: replace the ... in the exercise cell by your answer.")
        try:
            ok, message = self.checker(answer)
        except Reject as reason:
            ok, message = False, str(reason)
        return Feedback(self.id, ok, message)


REGISTRY = {}


def exercise(exercise_id, title):
    """Register the decorated checker under ``exercise_id`` ("NN.k": chapter NN, k-th exercise)."""
    def register(checker):
        if exercise_id in REGISTRY:
            raise ValueError(f"exercise {exercise_id} is registered twice")
        REGISTRY[exercise_id] = Exercise(exercise_id, title, checker)
        return checker
    return register


def accept(message):
    return True, message


def reject(message):
    return False, message


def as_number(answer, what):
    """The answer as an exact Fraction when it is an int or Fraction, else as a float; Reject if not a number."""
    if isinstance(answer, bool) or not isinstance(answer, numbers.Real):
        raise Reject(f"{what} should be a number; you gave {type(answer).__name__} {answer!r}.")
    if isinstance(answer, numbers.Rational):
        return Fraction(answer)
    return float(answer)


def close(answer, reference, tol=1e-9):
    """True when a numeric answer equals the reference (exactly for fractions, within tol for floats)."""
    if isinstance(answer, Fraction) and isinstance(reference, Fraction):
        return answer == reference
    return abs(float(answer) - float(reference)) <= tol


def judge(answer, reference, mistakes, correct, hint, tol=1e-9):
    """Feedback on a numeric answer: ``correct`` if it equals ``reference`` (floats within ``tol``); the
    message of the first ``(value, message)`` in ``mistakes`` that it equals; else ``hint`` and whether the
    answer is too large or too small."""
    if close(answer, reference, tol):
        return accept(correct)
    for value, message in mistakes:
        if close(answer, value, tol):
            return reject(message)
    side = "larger" if answer > reference else "smaller"
    return reject(f"{hint} (your value is {side} than the right one).")


def as_pair(answer, what):
    """The two numbers of a pair answer (a tuple or list) named ``what``, e.g. "(H(l), P(l))"; Reject if not."""
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise Reject(f"give {what} as a pair (two numbers in a tuple); you gave {answer!r}.")
    return as_number(answer[0], what), as_number(answer[1], what)


def as_int(answer, what):
    """The answer as an int (a float that is a whole number is accepted); Reject otherwise."""
    value = as_number(answer, what)
    if value != int(value):
        raise Reject(f"{what} is a whole number; you gave {answer!r}.")
    return int(value)
