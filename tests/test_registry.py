"""The solver registry is the one list of algorithms: its modules are found in the package, every public
estimator of a solver module is registered, and the top-level names, the CLI and the every-estimator tests
read it."""
import inspect
import pkgutil

import odtlab.solvers
from odtlab import solvers
from odtlab.estimators import TreeEstimator


def test_every_module_of_the_package_is_a_solver_module_and_registers_an_algorithm():
    names = {f"odtlab.solvers.{m.name}" for m in pkgutil.iter_modules(odtlab.solvers.__path__)
             if not m.name.startswith("_")}  # a private module would hold helpers, not a solver
    assert set(solvers.SOLVER_MODULES) == names and len(names) >= 5
    registered = {spec.estimator.__module__ for spec in solvers.specs()}
    assert registered == names, "a module of odtlab/solvers that registers nothing"


def test_every_public_estimator_of_a_solver_module_is_registered():
    """A new estimator (e.g. a regressor beside a classifier) is reachable from the CLI, the top level and the
    every-estimator tests only once registered."""
    public = set()
    for module in map(inspect.getmodule, solvers.estimators().values()):
        public |= {name for name, cls in inspect.getmembers(module, inspect.isclass)
                   if issubclass(cls, TreeEstimator) and cls.__module__ == module.__name__ and not name.startswith("_")}
    assert public == set(solvers.estimators())


def test_each_registry_option_maps_to_a_parameter_of_its_estimator():
    for spec in solvers.specs():
        parameters = inspect.signature(spec.estimator).parameters
        assert set(spec.options.values()) <= set(parameters), spec.name
        for variant in spec.variants:
            assert set(variant) <= set(parameters), spec.name
