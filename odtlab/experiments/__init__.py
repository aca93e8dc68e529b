"""Experiments: grids of runs in one tidy table, and the papers' tables reproduced beside their numbers.

The runner (:mod:`~odtlab.experiments.runs`, :mod:`~odtlab.experiments.runner`)::

    from odtlab import experiments as ex

    runs = ex.grid(["branches", "sklearn-cart"], ["branches/monk1-o", "branches/zoo-o"],
                   {"lam": [0.01, 0.001]}, split="cv5", seeds=[0], time_limit=300)
    df = ex.run_grid(runs, store="results/", backend="local")    # or backend="dask"

``df`` has one row per run: the run's key, algorithm, data set, parameters (JSON), split, fold and
seed, then status, objective, certified bounds and gap, optimality, train / test loss and accuracy,
tree size, iterations, evaluations, seconds, peak memory, the solver's other counters (JSON) and the
package versions. Finished runs are kept in ``results/`` (CSV, or Parquet when pyarrow is installed)
and skipped when the grid is run again, on either backend.

Algorithms are the registry's names (:func:`odtlab.solvers.available`), the peers of
:mod:`~odtlab.experiments.peers` (``sklearn-cart`` always; ``streed``, ``contree`` with the peers
extra), or ``"package.module:factory"`` for any scikit-learn-style estimator factory.

The tables (:mod:`~odtlab.experiments.tables`, :mod:`~odtlab.experiments.reproduction`)::

    rep = ex.reproduce("branches-table2", quick=True, out="results/")
    print(rep.text)

or ``odtlab reproduce branches-table2 --quick`` / ``odtlab reproduce --list`` on the command line.
"""
from odtlab.experiments.reproduction import list_tables, reproduce
from odtlab.experiments.runner import run_grid
from odtlab.experiments.runs import Folds, Run, grid, run_key, split_indices
from odtlab.experiments.store import Store

__all__ = ["Run", "Folds", "grid", "run_key", "split_indices", "run_grid", "Store", "reproduce", "list_tables"]
