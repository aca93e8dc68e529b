"""Golden traces: every algorithm's event stream, stats and tree on fixed problems, hashed (issue 18, step 1).

``cases.py`` defines the problems and how a run is reduced to hashes; ``record.py`` writes ``traces.json``
(``python -m tests.golden.record``); ``tests/test_golden.py`` compares a fresh run with it.
"""
