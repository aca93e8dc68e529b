"""Bring your own lower bound: a researcher's bound as a small Python function, compiled into a kernel.

MurTree (Demirović et al., JMLR 2022) prunes a subtree problem (D, d, n, UB) when a lower bound on its optimal cost
exceeds UB (Algorithm 1 lines 22-24) and returns the leaf when the bound meets the leaf's cost (lines 25-26). Its
own bounds are the cache's stored bounds (§4.6, Prop. 10-11) and the similarity bound (§4.5, Eq. 9). A user's bound
is a function of the subproblem's **class counts**::

    def lower_bound(counts, depth, nodes):
        # counts: int64 array, counts[k] = weight of the rows of D with class k (length K)
        # depth:  d, the subtree's depth budget (>= 1)
        # nodes:  n, its budget of feature nodes (d <= n <= 2^d - 1)
        return ...  # a float >= 0, at most the fewest weighted misclassifications of a tree within (d, n) on D

It must hold for **every** data set D with these class counts (the function does not see the features), like
the paper's leaf bound. The kernel uses ``max(its own bound, ceil(lower_bound(...)))``: a sound bound on an
integer cost may be rounded up; to compare a bound *weaker* than the similarity bound, switch that off too
(``similarity_bound=False``). ``MurTreeClassifier(lower_bound=f, check_bound=True)`` verifies every value
that raised a subproblem's bound against that subproblem's optimum (MurTree without ``f``) and raises
:class:`UnsoundBoundError` naming the subproblem.

Quant-BnB takes the same function (``QuantBnBClassifier(bound=f)``, odtlab.solvers.quantbnb). Branches maximises a
regularised objective without a node budget, so its bound takes the split penalty instead of ``nodes``:
``f(counts, depth, penalty)`` (:data:`BRANCHES_ARGS`), a lower bound on a branch's least errors + penalty * splits
(``BranchesClassifier(bound=f)``; where it enters and why it is sound: odtlab.solvers.branches).

How it gets into the kernel (numba 0.68.1, measured on the 2-core CI machine; ``tests/test_bounds.py``):

* **chosen: a first-class function.** :func:`compile_bound` compiles the function alone as a ``numba.cfunc``
  of the signature :data:`SIGNATURE`, and the kernel takes it as an argument typed by that signature, so the
  kernel is compiled once for all bounds (and cached on disk under a key that does not depend on the bound:
  a second process loads it). MurTree's kernel takes the cfunc's address (an int64,
  :func:`odtlab.core._jit.function_at`): its dispatcher types an int on its fast path at every call, and the
  same compilation serves searches without a bound (address 0, never called). A new bound costs its own
  compile only: 0.03-0.1 s (0.8-2.4 s for the first cfunc of a process, numba's one-off start-up; a function
  that calls ``np.sort`` or ``np.min`` also compiles numba's implementation of it, up to about 2 s of CPU the
  first time in a process). A call through the
  function pointer costs about 20 ns more than an inlined call (1e6 calls: 0.05 s against 0.03 s), at most
  once per subtree call.
* **rejected: a closure or a dispatcher-typed argument.** numba then specialises the whole kernel for each
  bound, 15-35 s per new bound, and a function defined in a notebook or script is not found in the disk
  cache by the next process (measured: a second process recompiled).

Without numba (or ``NUMBA_DISABLE_JIT=1``) the plain Python function is called as it is.
"""
import importlib
import inspect
import math
import weakref
from numbers import Real

import numpy as np

from odtlab.core._jit import COMPILED, numba, overload, types


class UnsoundBoundError(ValueError):
    """A user's lower bound exceeded the optimum of a subproblem it was asked about."""


#: The arguments of a user's bound: MurTree's and Quant-BnB's (a node budget), Branches' (the split penalty
#: lambda * n in misclassifications, a float; see odtlab.solvers.branches).
ARGS = ("counts", "depth", "nodes")
BRANCHES_ARGS = ("counts", "depth", "penalty")


def signature(args=ARGS):
    """The numba signature a user bound is compiled to: ``float64(int64[::1], int64, int64)``, or with a float
    third argument for Branches' ``penalty``."""
    t = numba.types
    return t.float64(t.int64[::1], t.int64, t.float64 if args[2] == "penalty" else t.int64)


_COMPILED = weakref.WeakKeyDictionary()


def python_function(bound, name="lower_bound", args=ARGS):
    """The plain Python function of ``bound``: a function, a numba dispatcher or cfunc around one, or its
    ``"module:function"`` name (the command line's ``--lower-bound``); ``name`` is the parameter's, for errors."""
    if isinstance(bound, str):
        module, _, attr = bound.partition(":")
        try:
            bound = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError, ValueError) as exc:
            raise ValueError(f"{name} {bound!r} names no function (write it as module:function): {exc}") from None
    fn = getattr(bound, "py_func", bound) if not inspect.isfunction(bound) else bound
    if not inspect.isfunction(fn):
        raise TypeError(f"{name} must be a Python function {name}({', '.join(args)}) -> float, got "
                        f"{type(bound).__name__} {bound!r}")
    try:
        inspect.signature(fn).bind(None, 0, 0)
    except TypeError:
        raise TypeError(f"{name} must take three arguments ({', '.join(args)}), but "
                        f"{fn.__name__}{inspect.signature(fn)} does not") from None
    return fn


def check_value(value, where, name="lower_bound"):
    """``value`` as a float, or a clear error when it is not a number >= 0 (``where`` names the subproblem)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real):
        raise TypeError(f"{name} must return a number (a float >= 0), but returned {type(value).__name__} "
                        f"{value!r} {where}")
    value = float(value)
    if not value >= 0.0:
        raise ValueError(f"{name} must return a number >= 0 (a lower bound on misclassifications), but "
                         f"returned {value!r} {where}")
    return value


def compile_bound(bound, counts, depth, nodes, name="lower_bound", args=ARGS):
    """The kernel's form of ``bound``: first called in Python on the root's class counts (the clear errors of
    :func:`python_function` and :func:`check_value`), then compiled as a cfunc of :func:`signature` (once per
    function) when numba compiles the kernels; the plain function otherwise."""
    fn = python_function(bound, name, args)
    where = f"on the whole training set (class counts {list(map(int, counts))}, depth {depth}, {args[2]} {nodes})"
    try:
        value = fn(np.array(counts, dtype=np.int64), depth, nodes)
    except Exception as exc:
        raise TypeError(f"{name} failed {where}: {type(exc).__name__}: {exc}") from exc
    check_value(value, where, name)
    return compiled(fn, name, args)


def compiled(fn, name="lower_bound", args=ARGS):
    """The kernel's form of the plain function ``fn``: a cfunc of :func:`signature` (compiled once per function),
    or ``fn`` itself when the kernels run as plain Python."""
    if not COMPILED:
        return fn
    sig = signature(args)
    cache = _COMPILED.setdefault(fn, {})
    if sig not in cache:
        try:
            cache[sig] = numba.cfunc(sig, cache=True)(fn)
        except numba.core.errors.NumbaError as exc:
            first = str(exc).strip().splitlines()[0]
            third = "float64" if args[2] == "penalty" else "int64"
            raise TypeError(f"numba cannot compile {name} {fn.__name__} as float64(int64[::1], int64, {third}) "
                            f"({', '.join(args)}) -> float: {first}") from None
    return cache[sig]


def unsound_message(value, optimum, depth, nodes, rows, weight, counts):
    """The text of :class:`UnsoundBoundError` for a subproblem."""
    return unsound(f"the subproblem with depth {depth} and {nodes} feature nodes ({rows} distinct rows, weight "
                   f"{weight}, class counts {list(map(int, counts))})", value, f"{optimum} (weighted)")


def unsound(subproblem, value, optimum, name="lower_bound"):
    """The text of :class:`UnsoundBoundError`: on ``subproblem`` the bound returned ``value`` above ``optimum``."""
    return (f"{name} is not sound: on {subproblem} it returned {value!r}, but the optimal subtree there "
            f"misclassifies {optimum}; a lower bound must be at most the optimum")


class PicklesUserBound:
    """Solver mixin for a user's bound: its compiled form (a cfunc) does not pickle, so the solver's
    ``user_bound`` group (None without a bound) pickles with ``fn=None`` and unpickles with ``bound_function``
    compiled again (:func:`compiled`). ``BOUND_PARAMETER`` names the estimator's parameter in errors,
    ``BOUND_ARGS`` the bound's arguments (:data:`ARGS`, or Branches' :data:`BRANCHES_ARGS`); a solver whose kernel
    reads the group from more than one attribute says which in :meth:`_with_user_bound`."""

    BOUND_PARAMETER = "lower_bound"
    BOUND_ARGS = ARGS

    def _with_user_bound(self, user_bound):
        """The attributes that hold ``user_bound``, as a dict to update the solver's state with."""
        return {"user_bound": user_bound}

    def __getstate__(self):
        state = dict(self.__dict__)
        if self.user_bound is not None:
            state.update(self._with_user_bound(self.user_bound._replace(fn=None)))
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.user_bound is not None:
            fn = compiled(self.bound_function, self.BOUND_PARAMETER, self.BOUND_ARGS)
            self.__dict__.update(self._with_user_bound(self.user_bound._replace(fn=fn)))


def rounded(value):
    """The kernel's use of a value on integer costs: its ceiling (0 for values below 1)."""
    return math.ceil(value)


def trivial(counts, depth, nodes):
    """The paper's bound when the cache has nothing for a subproblem (§4.6.4): 0. ``odtlab warmup`` runs MurTree
    with it (the kernel's bound path and the cfunc's disk cache)."""
    return 0.0


def bound_logged(bound):
    """In a kernel: True when the iteration logged a value of a researcher's bound for the solver (its ``nlog[0]``,
    ``core.quantbnb.UserBound`` or ``core.branches.UserBound``); the kernel then stops. None (no bound) compiles
    to False (``@overload``)."""
    return bound is not None and bound.nlog[0] > 0


@overload(bound_logged)
def _bound_logged(bound):
    if isinstance(bound, types.NoneType):
        return lambda bound: False
    return lambda bound: bound.nlog[0] > 0
