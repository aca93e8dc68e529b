"""Compilation made visible and paid once: ``odtlab warmup`` and the first-fit notice.

Every kernel is a numba function compiled with ``cache=True`` (:mod:`odtlab.core._jit`): the first call
in a process either loads the machine code from the on-disk cache (milliseconds) or compiles it (10–35 s
of CPU per algorithm from an empty cache). This module

* tells the two cases apart before a call (:func:`must_compile`), reading the same in-memory overloads
  and on-disk cache index that numba's dispatcher consults;
* compiles a search's kernel before :meth:`odtlab.search.Search.run` starts its clock
  (:func:`compile_kernel`), printing one line when a real compilation happens (numba's
  ``numba:compile`` event fires only on a cache miss), so a time limit is the search's own budget;
* compiles everything the registered estimators run, at every record level and in every variant the
  registry lists (:func:`warm`, the ``odtlab warmup`` command), with a progress bar; its fit and predict steps
  compile the predict helpers (``apply``, ``node_sums``: one signature each) that ``predict``, ``apply``,
  ``decision_path``, ``feature_importances_`` and ``to_sklearn`` run.
"""
import contextlib
import os
import sys
import time

import numpy as np

from odtlab.core import events as core
from odtlab.core._jit import COMPILED, LevelKernel, numba

if numba is not None:
    from numba._dispatcher import compute_fingerprint
    from numba.core import event as numba_event

_announced = set()  # solver names whose compilation this process has announced
_quiet = False  # True while warm() draws its own progress bar


class _Captured(Exception):
    """Raised by :func:`_probe` to hand back the arguments a solver passes to its kernel."""


def _probe(*args):
    raise _Captured(args)


def _type_key(args):
    """A key that determines the numba types of ``args``, or None when they have none here (then they are typed
    afresh): numba's own type fingerprint, the function its dispatcher types arguments with (an array's dtype,
    dimensions, layout and writability; a tuple's or namedtuple's items; a scalar's class). It names a record dtype
    by its address, so :func:`_signature` keeps every record dtype it types alive (no other dtype can then take that
    address), and any Python int by one code, so arguments holding an int past int64 (numba types it as uint64)
    get no key. On Branches' four argument groups: 0.5 us for the fingerprint, 2.5 us with the walk for wide ints,
    where a walk in Python that keyed each item took 9 us."""
    try:
        fingerprint = compute_fingerprint(args)
    except NotImplementedError:  # a value numba's fingerprint does not know (typeof may still type it)
        return None
    return None if _holds_wide_int(args) else fingerprint


def _holds_wide_int(values):
    """Whether the tuple ``values`` holds, at any depth, a Python int outside int64."""
    for v in values:
        if type(v) is int:
            if not -2**63 <= v < 2**63:
                return True
        elif isinstance(v, tuple) and _holds_wide_int(v):
            return True
    return False


def _record_dtypes(value):
    """The record dtypes of the arrays in ``value`` (nested in tuples)."""
    if isinstance(value, tuple):
        return [d for v in value for d in _record_dtypes(v)]
    return [value.dtype] if isinstance(value, np.ndarray) and value.dtype.names else []


_signatures = {}  # argument keys (_type_key) -> numba argument types: numba.typeof costs ~4 us per array
_typed_dtypes = []  # the record dtypes of the keys in _signatures, kept alive (_type_key names them by address)


def _kernel_arguments(solver, kernel, buffer):
    """The arguments ``solver.advance(kernel, buffer, 1)`` would hand its kernel, captured by a probe in place
    of the kernel (a :class:`~odtlab.core._jit.LevelKernel` adds its level), and their :func:`_type_key`."""
    try:
        solver.advance(LevelKernel(_probe, kernel.level) if isinstance(kernel, LevelKernel) else _probe, buffer, 1)
    except _Captured as captured:
        args = captured.args[0]
    else:
        raise RuntimeError(f"{type(solver).__name__}.advance did not call its kernel")
    return args, _type_key(args)


def _signature(args, key):
    """The numba types of ``args``, looked up by their ``key`` (None: typed afresh)."""
    signature = _signatures.get(key) if key is not None else None
    if signature is None:
        signature = tuple(numba.typeof(a) for a in args)
        if key is not None:
            _typed_dtypes.extend(_record_dtypes(args))
            _signatures[key] = signature
    return signature


def kernel_signature(solver, kernel, buffer):
    """The numba argument types of ``solver.advance(kernel, buffer, 1)``'s kernel call, without calling it.

    Every solver's ``advance`` only gathers its state arrays into the kernel call, so handing it a probe in
    place of the kernel captures the exact arguments; their numba types are the signature the first call would
    compile, looked up by their :func:`_type_key`."""
    return _signature(*_kernel_arguments(solver, kernel, buffer))


def must_compile(dispatcher, signature):
    """Whether calling ``dispatcher`` with argument types ``signature`` would compile machine code.

    False when the process already holds the overload or numba's on-disk cache index (under
    ``NUMBA_CACHE_DIR`` or next to the source) lists it for this machine and this exact function (numba's
    index key: signature, target, bytecode and closure variables; a stale index counts as empty)."""
    signature = tuple(signature)
    if signature in dispatcher.overloads:
        return False
    cache = dispatcher._cache
    index = getattr(cache, "_cache_file", None)
    if index is None:  # a function without cache=True
        return True
    key = cache._index_key(signature, dispatcher.targetctx.codegen())
    return key not in index._load_index()


def _announce(name):
    """The one-line compile notice, unless ``ODTLAB_COMPILE_NOTICE=0`` (the chapters' nbval run sets it: a kernel
    the chapters use that warmup does not compile, such as the brute-force oracle's, would otherwise print a
    line the stored outputs, built warm, do not have)."""
    if not _quiet and name not in _announced and os.environ.get("ODTLAB_COMPILE_NOTICE", "1") != "0":
        _announced.add(name)
        print(f"odtlab: compiling the {name} kernels (once; cached on disk) …", file=sys.stderr, flush=True)


class _Announce(numba_event.Listener if numba is not None else object):
    """Print one line when a real compilation (a cache miss) starts, once per name and process: the name
    given, or (``name=None``) the module of an odtlab function (``odtlab.core.branches`` -> "branches")."""

    def __init__(self, name=None):
        self.name = name

    def on_start(self, event):
        if self.name is not None:
            _announce(self.name)
            return
        module = getattr(event.data["dispatcher"].py_func, "__module__", "") or ""
        if module.startswith("odtlab."):
            _announce(module.rsplit(".", 1)[-1])

    def on_end(self, event):
        pass


# Every compilation of an odtlab function outside a Search (a solver's set-up, predict) is announced too.
if numba is not None:
    numba_event.register("numba:compile", _Announce())


@contextlib.contextmanager
def compile_clock():
    """Within the block, the function it yields returns the seconds numba has spent compiling since the block
    began (cache misses only; 0 without numba). :meth:`odtlab.search.Search.run` leaves them out of its time
    limit: a function first called during a search (a growth step's helper) compiles on the search's clock,
    and from a cold cache that took more than a time limit of 0.5 s."""
    if numba is None:
        yield lambda: 0.0
        return
    timer = numba_event.TimingListener()  # nested compilations (a kernel's callees) count once
    with numba_event.install_listener("numba:compile", timer):
        yield lambda: timer.duration if timer.done else 0.0


@contextlib.contextmanager
def announced(name):
    """Within the block, the first compilation of any function prints one line naming ``name``."""
    if numba is None:  # nothing compiles without numba
        yield
        return
    with numba_event.install_listener("numba:compile", _Announce(name)):
        yield


_ready = set()  # (dispatcher, argument key) pairs whose overload this process holds


def compile_kernel(solver, record, buffer):
    """Compile (or load from the disk cache) the kernel ``solver`` runs at level ``record``.

    Called by :meth:`odtlab.search.Search.run` before its clock starts, so a time limit is spent searching
    (issue: a 0.5 s limit from a cold cache took minutes and returned a 1-leaf tree). A kernel already compiled
    for arguments of the same :func:`_type_key` is found in ``_ready`` without hashing numba types (under cProfile,
    hashing the types of Branches' argument groups took 5 % of a 0.5 ms fit on branches/monk1-o)."""
    if not COMPILED:  # no numba, or NUMBA_DISABLE_JIT: the kernels run as plain Python
        return
    kernel = solver.kernel(core.LEVELS[record])
    dispatcher = kernel.dispatcher if isinstance(kernel, LevelKernel) else kernel
    args, key = _kernel_arguments(solver, kernel, buffer)
    if key is not None and (dispatcher, key) in _ready:
        return
    signature = _signature(args, key)
    if signature not in dispatcher.overloads:
        with announced(solver.name):
            dispatcher.compile(signature)
    if key is not None:
        _ready.add((dispatcher, key))


# -- odtlab warmup ------------------------------------------------------------------------------------

# How X reaches the estimators: numba compiles a function once per array layout and writability, and a fresh
# numpy array arrives C-ordered, a transposed one Fortran-ordered, a pandas frame's values Fortran-ordered and
# read-only (pandas' copy-on-write). The predict helpers (odtlab.core.trees) get every form as one array type
# (odtlab.tree.kernel_array), so the first fit + predict compiles all they need.
FORMS = ("C", "F", "frame")


def _tiny_problem(estimator, form="C", seed=0):
    """A 24-row problem of the estimator's input kind (numeric, binary, categorical) and task, X in ``form``."""
    rng = np.random.default_rng(seed)
    n, p = 24, 3
    kind = getattr(estimator, "_input", "numeric")
    if kind == "binary":
        X = rng.integers(0, 2, size=(n, p)).astype(np.float64)
    elif kind == "categorical":
        X = rng.integers(0, 3, size=(n, p)).astype(np.float64)
    else:
        X = rng.normal(size=(n, p))
    if getattr(estimator, "_task", "classification") == "classification":
        y = rng.integers(0, 3, size=n)
    else:
        y = rng.normal(size=n)
    if form == "frame":
        import pandas as pd

        return pd.DataFrame(X, columns=[f"x{j}" for j in range(p)]), y
    return np.asarray(X, order=form), y


def plan(algorithms=None):
    """The warm-up steps ``[(label, estimator, record level or None for fit + predict, form of X)]`` for the
    registered algorithms (all, or the names in ``algorithms``): each variant of the registry, at every
    record level, then one fit and predict (the estimator's own helpers), each with X in every form of
    :data:`FORMS`."""
    from odtlab import solvers

    names = solvers.available() if not algorithms else [solvers.get(a).name for a in algorithms]
    steps = []
    for name in names:
        spec = solvers.get(name)
        for variant in spec.variants:
            suffix = "".join(f" {k}={v}" for k, v in variant.items())
            for form in FORMS:
                for level in core.LEVELS:
                    steps.append((f"{name}{suffix} record={level} X={form}", spec.estimator(**variant), level, form))
                steps.append((f"{name}{suffix} fit+predict X={form}", spec.estimator(**variant), None, form))
    return steps


def warm(algorithms=None, progress=True):
    """Compile (or load from the disk cache) every kernel the registered estimators use; return seconds.

    Runs each step of :func:`plan` on a tiny problem, so what is compiled is exactly what a fit runs. Without
    numba (or under ``NUMBA_DISABLE_JIT``) there is nothing to compile: it returns 0.0 at once."""
    global _quiet
    if not COMPILED:
        return 0.0
    from tqdm.auto import tqdm

    steps = plan(algorithms)
    t0 = time.perf_counter()
    _quiet = True
    try:
        with tqdm(steps, desc="odtlab warmup", unit=" kernel", disable=not progress, file=sys.stderr) as bar:
            for label, estimator, level, form in bar:
                bar.set_postfix_str(label, refresh=True)
                X, y = _tiny_problem(estimator, form)
                if level is None:
                    estimator.fit(X, y).predict(X)
                else:
                    estimator.search(X, y, record=level).run()
    finally:
        _quiet = False
    return time.perf_counter() - t0
