"""The exercises' checkers and the student build of the chapters.

Every registered exercise must have a case in tests/exercise_cases/chNN.py: ``CASES[id] = (solution,
wrong)``, where ``solution()`` computes the reference answer independently of the checker and
``wrong()`` lists at least three plausible wrong answers, each with a fragment its message must contain.
"""
import importlib.util
import json
from pathlib import Path
import sys

import nbformat
import pytest

from odtlab.exercises import REGISTRY, check

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
sys.path.insert(0, str(ROOT / "notebooks"))
import build  # noqa: E402  (notebooks/build.py)


def _load_cases():
    cases = {}
    for path in sorted((ROOT / "tests" / "exercise_cases").glob("ch*.py")):
        spec = importlib.util.spec_from_file_location(f"exercise_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cases.update(module.CASES)
    return cases


CASES = _load_cases()
IDS = sorted(REGISTRY)


def test_every_exercise_has_a_case():
    assert set(REGISTRY) - set(CASES) == set(), "exercises without a test case"
    assert set(CASES) - set(REGISTRY) == set(), "test cases without an exercise"


@pytest.mark.jit_only
@pytest.mark.parametrize("exercise_id", IDS)
def test_reference_solution_accepted(shared_data, exercise_id):
    feedback = check(exercise_id, CASES[exercise_id][0]())
    assert feedback.ok, feedback.message
    assert "Correct" in feedback._repr_html_() and "correct" in repr(feedback)


@pytest.mark.jit_only
@pytest.mark.parametrize("exercise_id", IDS)
def test_wrong_answers_rejected_with_a_reason(shared_data, exercise_id):
    wrong = CASES[exercise_id][1]()
    assert len(wrong) >= 3
    for answer, fragment in wrong:
        feedback = check(exercise_id, answer)
        assert not feedback.ok, f"{answer!r} was accepted"
        assert fragment in feedback.message, f"{answer!r}: {feedback.message!r} does not name {fragment!r}"
        assert "Not yet" in feedback._repr_html_()


@pytest.mark.parametrize("exercise_id", IDS)
@pytest.mark.parametrize("stub", [..., None])
def test_stub_is_not_answered_yet(exercise_id, stub):
    feedback = check(exercise_id, stub)
    assert not feedback.ok and feedback.message.startswith("not answered yet")


def test_unknown_exercise_names_the_known_ones():
    with pytest.raises(KeyError, match="02.1"):
        check("99.9", 1)


def _exercise_blocks(nb):
    """(exercise cell, solution cell, check cell) triples of an instructor notebook, in order."""
    cells = nb.cells
    return [(c, cells[i + 1], cells[i + 2]) for i, c in enumerate(cells) if "exercise" in c.metadata.get("tags", [])]


def test_instructor_chapters_follow_the_exercise_convention():
    seen = set()
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        blocks = _exercise_blocks(nb)
        tagged = sum("solution" in c.metadata.get("tags", []) for c in nb.cells)
        assert tagged == len(blocks), f"{path.name}: a solution cell outside an exercise block"
        for stub, solution, shown in blocks:
            assert "..." in stub.source, f"{path.name}: exercise cell without a ... stub"
            assert "solution" in solution.metadata.get("tags", []), f"{path.name}: exercise without solution"
            exercise_id = json.loads(solution.source.strip().split("\n")[-1].split("check(")[1].split(",")[0])
            assert solution.source.strip().endswith(f'assert check("{exercise_id}", answer).ok')
            assert shown.source.strip() == f'check("{exercise_id}", answer)' and not shown.metadata.get("tags")
            seen.add(exercise_id)
    assert seen == set(REGISTRY), "every exercise is in a chapter, and every chapter exercise is registered"


def test_student_build_holds_no_solution(tmp_path):
    for path in NOTEBOOKS:
        instructor = nbformat.read(path, as_version=4)
        solutions = [c.source for c in instructor.cells if "solution" in c.metadata.get("tags", [])]
        student = nbformat.read(build.student(path, tmp_path), as_version=4)
        assert len(student.cells) == len(instructor.cells) - len(solutions)
        assert not any("solution" in c.metadata.get("tags", []) for c in student.cells)
        assert not any(c.get("outputs") for c in student.cells if c.cell_type == "code")
        text = "\n".join(c.source for c in student.cells)
        for source in solutions:
            for line in source.split("\n"):
                if line.strip():
                    assert line not in text, f"{path.name}: solution line {line!r} in the student build"


def _student_book(tmp_path):
    """The student build of every chapter with exercises, each cut after its last check cell, as one notebook:
    a chapter starts with ``%reset -f`` (no name of one chapter reaches the next; imported modules and loaded
    kernels stay), and its cells carry ``metadata["chapter"]``."""
    book = nbformat.v4.new_notebook()
    for path in NOTEBOOKS:
        if not _exercise_blocks(nbformat.read(path, as_version=4)):
            continue
        cells = nbformat.read(build.student(path, tmp_path), as_version=4).cells
        last = max(i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.startswith("check("))
        for cell in [nbformat.v4.new_code_cell("%reset -f")] + cells[:last + 1]:
            cell.metadata["chapter"] = path.stem
            book.cells.append(cell)
    return book


@pytest.mark.slow
def test_student_chapters_run_to_their_checks(shared_data, tmp_path):
    """Every student chapter runs up to its last check and each check says "not answered yet". One kernel for
    all chapters (its start, imports and kernel loads paid once); the cells after the last check are the
    instructor chapter's, which nbval runs."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    book = _student_book(tmp_path)
    try:
        NotebookClient(book, timeout=600, kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    except CellExecutionError as exc:
        failed = [c for c in book.cells if c.cell_type == "code" and c.get("execution_count")][-1]
        pytest.fail(f"student build of {failed.metadata['chapter']}: {exc}")
    shown = [c for c in book.cells if c.cell_type == "code" and c.source.startswith("check(")]
    assert {c.metadata["chapter"] for c in shown} == {c.metadata["chapter"] for c in book.cells}
    for cell in shown:
        text = cell.outputs[0]["data"]["text/plain"]
        assert "not yet: not answered yet" in text, f"{cell.metadata['chapter']}: {text}"
