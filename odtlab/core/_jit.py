"""The one place where odtlab's kernels meet numba, and the one place that makes numba optional.

Every kernel is compiled with ``cache=True`` (the cache lives next to the source, or in
``NUMBA_CACHE_DIR``), so a notebook pays the compile cost once per machine, not per kernel start.

Without numba (a Pyodide kernel in the browser, a machine where numba has no wheel: pyproject.toml's
environment marker leaves it out there) the same functions run as plain Python: :func:`njit`
returns the function unchanged in every calling form, and :func:`overload` and :func:`intrinsic`
(numba's compile-time extension points, which a plain-Python run never reaches) leave the decorated
function alone. Kernels are written so that they also run as plain Python under
``NUMBA_DISABLE_JIT=1``, which the coverage run of the test suite uses: both runs take the same paths.
Import the numba names the kernels use from here, never from numba.
"""
from fractions import Fraction
import warnings

try:
    import numba
except ImportError:  # no numba on this platform: every kernel runs as plain Python
    numba = None

#: True when the kernels run as machine code; False when they run as plain Python (numba absent,
#: or ``NUMBA_DISABLE_JIT=1``). Code that reads numba's dispatchers (signatures, caches) checks it.
COMPILED = numba is not None and not numba.config.DISABLE_JIT


class _Absent:
    """Stand-in for a numba namespace (``types``): only compile-time code reads it, which a plain-Python
    run never executes, so an access is a bug and says so (an AttributeError, so ``hasattr`` stays safe)."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        raise AttributeError(f"{self._name}.{attr} needs numba, which is not installed: odtlab's kernels run as "
                             f"plain Python here and never reach numba's compile-time code")


def _identity_decorator(*args, **options):
    """``@deco``, ``deco(f)``, ``deco(f, **options)``, ``@deco(...)`` and ``deco(**options)(f)``: ``f`` unchanged."""
    if args and callable(args[0]):
        return args[0]
    return lambda func: func


if numba is not None:
    from numba import types
    from numba.extending import intrinsic, overload

    def njit(*args, **options):
        """``numba.njit`` with ``cache=True`` unless the caller says otherwise (any calling form)."""
        options.setdefault("cache", True)
        return numba.njit(*args, **options)
else:
    types = _Absent("numba.types")
    njit = _identity_decorator

    def overload(func, **options):
        """numba's ``@overload(func)`` stand-in: ``func`` itself runs (plain Python), the implementation
        chooser is never called."""
        return _identity_decorator

    intrinsic = _identity_decorator


def function_at(signature):
    """A kernel-side function ``at(address)``: the first-class function of numba ``signature`` whose C entry point
    is at ``address`` (an int64: a ``numba.cfunc``'s ``.address``, see :func:`address_of`).

    A kernel that takes a researcher's function as an int64 is typed by numba's dispatcher on its fast path at
    every call (a group of ints and arrays: about 4 us), where a cfunc inside a namedtuple argument is typed and
    unboxed through Python (about 85 us a call, measured with numba 0.68.1), and the same compilation serves a
    search without a function (address 0, never called). The caller keeps the cfunc alive while the kernel runs.
    Without numba, ``at`` returns its argument (:func:`address_of` gives the plain function)."""
    if not COMPILED:
        return lambda address: address
    from numba.core import cgutils

    function_type = types.FunctionType(signature)

    @intrinsic
    def _at(typingctx, address):
        if not isinstance(address, types.Integer):
            return None

        def codegen(context, builder, sig, args):
            fn = cgutils.create_struct_proxy(function_type)(context, builder)  # zeroed: no jit or Python address,
            fn.c_addr = builder.inttoptr(args[0], context.get_value_type(types.voidptr))  # so calls use c_addr
            return fn._getvalue()

        return function_type(types.int64), codegen

    return _at


def address_of(cfunc):
    """What a kernel that calls :func:`function_at` takes for ``cfunc``: its C entry point's address, or the plain
    function itself when the kernels run as plain Python."""
    return cfunc.address if COMPILED else cfunc


class LevelKernel:
    """A kernel compiled once for every record level: ``LevelKernel(dispatcher, level)(*args)`` calls
    ``dispatcher(*args, level)``.

    A kernel written as ``make_kernel(level)`` (the level a compile-time constant) is compiled three times,
    each time with every helper it links re-optimised by LLVM; a kernel that takes the level as its last
    argument and tests it at run time (``if level >= LEVEL_SUMMARY: emit ...``) is compiled once, and its
    ``Solver.kernel(level)`` returns this wrapper. :func:`odtlab.warmup.compile_kernel` reads
    :attr:`dispatcher` and appends the level to the signature it compiles."""

    __slots__ = ("dispatcher", "level")

    def __init__(self, dispatcher, level):
        self.dispatcher = dispatcher
        self.level = level

    def __call__(self, *args):
        return self.dispatcher(*args, self.level)


def as_ratio(value, max_denominator=10**6):
    """Return ``(p, q)`` with ``p / q == value`` exactly for decimal input such as 0.005 or "0.005".

    Regularisation weights (Branches' lambda, MurTree's alpha, DPDT's alpha) are read as the decimal
    the user wrote, so 0.005 becomes 1/200 and every objective can be compared in exact integers. The
    denominator is at most ``max_denominator`` (10^6), which keeps the kernels' integer arithmetic within
    int64; any other value (0.1234567, 1/3) is rounded to the nearest fraction with such a denominator,
    with a warning naming both.
    """
    exact = value if isinstance(value, Fraction) else Fraction(str(value))
    frac = exact.limit_denominator(max_denominator)
    if frac != exact:
        warnings.warn(f"the weight {value!r} has no exact fraction with a denominator <= {max_denominator}; "
                      f"odtlab reads it as {frac} (every objective is exact for that value)", UserWarning,
                      stacklevel=3)
    return frac.numerator, frac.denominator
