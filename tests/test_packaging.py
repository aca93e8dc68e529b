"""The set-up files agree with each other (pyproject, environment.yml, Makefile, CI and README), and the
package's top-level names resolve."""
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _requirement(spec):
    """('numpy', '>=1.26') from a pip or conda requirement ('nbval=0.11.*' is conda for '==0.11.*'); a pip
    requirement's environment marker (after ';') is left out: environment.yml serves machines where it holds."""
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(?:\[[^\]]*\])?\s*(.*)$", spec.split(";")[0])
    name, version = m.group(1).lower(), m.group(2).replace(" ", "")
    if re.match(r"^=[^=]", version):
        version = "=" + version
    return name, version


def _pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"], project["optional-dependencies"]


def _environment():
    conda, pip, in_pip = [], [], False
    text = (ROOT / "environment.yml").read_text()
    for line in text[text.index("dependencies:"):].splitlines():
        stripped = line.split("#")[0].rstrip()
        if stripped.strip() == "- pip:":
            in_pip = True
            continue
        m = re.match(r"^\s*-\s+(.+)$", stripped)
        if not m:
            continue
        entry = m.group(1).strip()
        (pip if in_pip and line.startswith(" " * 6) else conda).append(entry)
    return conda, pip


def test_environment_yml_has_the_same_packages_and_versions_as_pyproject():
    runtime, extras = _pyproject()
    conda, pip = _environment()
    conda_reqs = dict(_requirement(s) for s in conda if not s.startswith(("python", "pip")))
    pip_reqs = dict(_requirement(s) for s in pip if not s.startswith("-e"))
    assert conda_reqs == dict(_requirement(s) for s in runtime + extras["lab"] + extras["test"])
    assert not any("[" in s for s in conda)  # an extra such as dask[distributed] is not a conda spec
    assert pip_reqs == dict(_requirement(s) for s in extras["peers"])


def test_readme_commands_exist_and_ci_runs_the_test_command():
    readme = (ROOT / "README.md").read_text()
    makefile = (ROOT / "Makefile").read_text()
    for target in ("lab", "test"):
        assert f"make {target}" in readme
        assert re.search(rf"^{target}:", makefile, re.M)
    assert "make test" in (ROOT / ".ci" / "run").read_text()


def test_top_level_names_are_the_modules_objects_and_unknown_names_fail_clearly():
    import importlib

    import odtlab
    from odtlab import solvers

    estimators = solvers.estimators()
    assert set(odtlab.__all__) == set(odtlab._EXPORTS) | set(estimators)  # every registered estimator, no other
    for name in odtlab.__all__:
        module = importlib.import_module(odtlab._EXPORTS.get(name) or estimators[name].__module__)
        assert getattr(odtlab, name) is getattr(module, name)
    assert set(odtlab.__all__) <= set(dir(odtlab))
    from odtlab import MurTreeClassifier, datasets  # a name and a submodule side by side
    assert MurTreeClassifier.__module__ == "odtlab.solvers.murtree" and datasets.__name__ == "odtlab.datasets"
    with pytest.raises(AttributeError, match="no attribute 'MurTree'"):
        odtlab.MurTree


def test_import_odtlab_and_a_submodule_load_no_solver_and_no_numba():
    """The estimators come from the registry, yet ``import odtlab``, ``from odtlab import cli`` (a submodule the
    top level looks up by name first) and a private name leave the solvers and numba unimported."""
    code = ("import sys, odtlab\nfrom odtlab import cli\nhasattr(odtlab, '_ipython_display_')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numba' or m.startswith('odtlab.solvers')))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr
