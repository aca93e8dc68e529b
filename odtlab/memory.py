"""Memory limits that bound the process, not only the search state.

A search's memory is its solver's arrays (``Solver.nbytes``) plus the events it keeps; the process holds more
(Python, numpy, numba's compiled code, the data, whatever else a notebook keeps). A limit L is the ceiling
of the **process's** resident memory (RSS) while a search runs; four rules keep the process inside it:

* **the search gets what the process leaves**: :meth:`odtlab.search.Search.run` measures the process's RSS
  once its kernel is compiled, and the search may take L less what the process holds outside the search
  (:func:`state_budget`). A limit at or below what the process already holds leaves the search nothing: it
  stops with status ``memory_limit`` at its first growth, and one warning names both sizes;
* **the default**: ``memory_limit="auto"`` (every estimator, ``Search.run``, ``odtlab solve``) lets the search
  take :data:`DEFAULT_FRACTION` of the memory available when it starts (:func:`available_bytes`), so that no
  fit can take the machine down: L is the process's RSS plus that. Where the available memory cannot be read
  (Pyodide: no psutil, no ``/proc``), "auto" sets no limit and warns once per process;
* **growth in place**: the arrays a search grows live in private memory maps (:func:`zeros`), and
  :func:`grow_rows` extends a map with ``mremap``, which moves pages instead of copying them, so the old
  and the new array never coexist (a table that is rebuilt, such as a hash table, is freed first);
* **the state never passes its budget**: :func:`capacity` grows an array by as much as fits, and by
  nothing when even what the kernel needs does not fit (the search then stops with status
  ``memory_limit``, keeping its tree and its gap).

What is outside the accounting (numba's and numpy's temporaries inside a kernel call, the allocator's slack)
is measured, not bounded: the README's *Memory and limits* gives the peak RSS / L measured. Compilation, done
before the search starts, is not counted. Where the process's RSS cannot be read (no ``/proc`` and no
psutil) the limit bounds the search's own memory only.
"""
import mmap
import os
import re
import signal
import sys
import threading
import time
import warnings
from contextlib import contextmanager

import numpy as np

DEFAULT_FRACTION = 0.5
_UNITS = {"": 1, "b": 1, "k": 10 ** 3, "kb": 10 ** 3, "m": 10 ** 6, "mb": 10 ** 6, "g": 10 ** 9, "gb": 10 ** 9,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "t": 10 ** 12, "tb": 10 ** 12, "tib": 1 << 40}
_CGROUP = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
           ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"))  # v1


def available_bytes():
    """Memory a new allocation can take without swapping or the out-of-memory killer, in bytes: psutil's
    ``available`` where psutil is installed, else the kernel's ``MemAvailable`` (``/proc/meminfo``), else
    the free pages ``os.sysconf`` reports; no more than a cgroup's limit leaves (containers; cgroup v2 or
    v1). None where none of these can be read (Pyodide)."""
    for source in (_psutil_available, _meminfo_available, _sysconf_available):
        free = source()
        if free is not None:
            break
    else:
        return None
    for limit_file, usage_file in _CGROUP:
        try:
            with open(limit_file) as f:
                cap = f.read().strip()
            with open(usage_file) as f:
                used = int(f.read())
        except (OSError, ValueError):
            continue
        if cap.isdigit():  # "max" (v2) or a huge number (v1) when there is no limit
            free = min(free, max(int(cap) - used, 0))
    return int(free)


def _psutil_available():
    try:
        import psutil
    except ImportError:
        return None
    return int(psutil.virtual_memory().available)


def _meminfo_available():
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _sysconf_available():
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


class _Statm:
    """The process's resident memory from ``/proc/self/statm``, read through a descriptor kept open (2 us a
    read; reopened after a fork, whose ``/proc/self`` is another process)."""

    pid = fd = None

    @classmethod
    def rss(cls):
        if cls.pid != os.getpid():
            cls.pid, cls.fd = os.getpid(), None
            try:
                cls.fd = os.open("/proc/self/statm", os.O_RDONLY)
            except OSError:
                pass
        if cls.fd is None:
            return None
        try:
            return int(os.pread(cls.fd, 128, 0).split()[1]) * mmap.PAGESIZE
        except (OSError, ValueError, IndexError):
            return None


def process_rss():
    """The process's resident memory now, in bytes (``/proc/self/statm``, else psutil), or None where neither
    exists."""
    rss = _Statm.rss()
    if rss is None:
        try:
            import psutil
        except ImportError:
            return None
        rss = int(psutil.Process().memory_info().rss)
    return rss


def process_peak_rss():
    """The process's resident-memory high-water mark since it started, in bytes (``getrusage``'s
    ``ru_maxrss``: KiB on Linux, bytes on macOS; psutil's ``peak_wset`` on Windows), or None."""
    try:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    except (ImportError, OSError, ValueError):
        peak = 0
    if peak > 0:
        return int(peak) if sys.platform == "darwin" else int(peak) * 1024
    try:
        import psutil
    except ImportError:
        return None
    peak = getattr(psutil.Process().memory_info(), "peak_wset", None)
    return None if peak is None else int(peak)


def default_memory_limit():
    """The limit ``"auto"`` stands for, in bytes: the process's RSS now plus :data:`DEFAULT_FRACTION` of
    :func:`available_bytes` (read at most once a second: reading it takes up to 60 us, more than a small
    fit), so that a search may take that fraction of what is free. None, with one warning per process,
    where the available memory cannot be read."""
    now = time.monotonic()
    if now - _DEFAULT[0] > 1.0:
        free = available_bytes()
        _DEFAULT[:] = [now, None if free is None else int(DEFAULT_FRACTION * free)]
    if _DEFAULT[1] is None:
        if not _WARNED:
            _WARNED.append(True)
            warnings.warn("odtlab cannot read the available memory here (no psutil, /proc/meminfo or sysconf): "
                          "memory_limit='auto' sets no limit; pass memory_limit='2GiB' (for example) to set one",
                          RuntimeWarning, stacklevel=3)
        return None
    return (process_rss() or 0) + _DEFAULT[1]


_DEFAULT = [-2.0, 0]  # (time read, DEFAULT_FRACTION x available bytes, or None)
_WARNED = []  # one warning per process when "auto" cannot be resolved


def state_budget(limit, held):
    """Bytes the search (its state and kept events) may take under a process limit ``limit`` (bytes, or None
    for no limit) when it holds ``held`` bytes now: ``limit`` less what the process holds outside the search,
    its RSS less ``held`` (None: the RSS cannot be read, and the limit is the search's). A limit at or below
    what the process holds outside the search leaves 0, with one warning naming both sizes."""
    if limit is None:
        return None
    rss = process_rss()
    outside = 0 if rss is None else max(rss - held, 0)
    if limit <= outside:
        warnings.warn(f"memory_limit={_size(limit)} is at or below the {_size(outside)} this process already "
                      f"holds outside the search: the search gets no memory and stops at its first growth "
                      f"(status memory_limit); give a limit above {_size(outside + held)}", RuntimeWarning,
                      stacklevel=3)
        return 0
    return limit - outside


def _size(nbytes):
    return f"{nbytes / 2**20:.1f} MiB" if nbytes >= 2**20 else f"{int(nbytes)} bytes"


def check_memory_limit(value, name="memory_limit"):
    """Bytes (int) or None for a memory limit given as ``"auto"`` (:func:`default_memory_limit`), None (no
    limit), a positive number of bytes, or a string with a unit (``"4GiB"``, ``"500MB"``, ``"none"``): the
    ceiling of the process's resident memory while a search runs (see the module's docstring)."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "auto":
            return default_memory_limit()
        if text == "none":
            return None
        match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)", text)
        if match is None or match.group(2) not in _UNITS:
            raise ValueError(f"{name} must be 'auto', 'none', a number of bytes or a size such as '4GiB' or "
                             f"'500MB', got {value!r}")
        value = float(match.group(1)) * _UNITS[match.group(2)]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not value > 0 \
            or value == float("inf"):
        raise ValueError(f"{name} must be 'auto', None or a positive finite number of bytes, got {value!r}")
    return int(value)


def capacity(current, need, grown, nbytes_at, others, limit):
    """The new row capacity of an array group that holds ``current`` rows and must hold ``need``.

    ``grown`` is the capacity without a limit (the solver's geometric step), ``nbytes_at(c)`` the group's
    bytes at capacity c and ``others`` the bytes of the rest of the state. Under ``limit`` (bytes, or None:
    the state's budget, :func:`state_budget`) the step shrinks until the state fits (the group grows in
    place, :func:`grow_rows`, so the old rows take no extra room); None when even ``need`` does not fit."""
    if limit is None:
        return grown
    if others + nbytes_at(need) > limit:
        return None
    cap = grown
    while cap > need and others + nbytes_at(cap) > limit:
        cap = max(need, (cap + need) // 2)
    return cap


def zeros(shape, dtype):
    """Zeros in a private anonymous memory map: page-aligned (a row's hot fields share a cache line),
    untouched pages take no memory, and :func:`grow_rows` grows them in place."""
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in np.atleast_1d(shape))
    if not hasattr(mmap, "MAP_ANONYMOUS"):  # Windows: plain arrays, grown by copying
        return np.zeros(shape, dtype)
    count = int(np.prod(shape, dtype=np.int64))
    block = mmap.mmap(-1, max(count * dtype.itemsize, 1), flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(block, dtype=dtype, count=count).reshape(shape)


def grow_rows(owner, name, rows, fill=0):
    """Give ``owner.<name>`` (a C-contiguous array) ``rows`` rows: the old rows first, then ``fill``.

    A :func:`zeros` array that nothing else references grows in place: its memory map is extended with
    ``mremap``, which moves pages instead of copying them, so the process never holds the old and the new
    array together. Any other array (or one someone still references, or where the system has no
    ``mremap``) is copied into a new :func:`zeros` array. Call it with interrupts deferred
    (:func:`deferred_interrupt`): while it runs the attribute is None."""
    box = [getattr(owner, name)]
    setattr(owner, name, None)
    old = box[0].shape[0]
    out = _resized(box, (rows,) + box[0].shape[1:])
    if fill:
        out[old:] = fill
    setattr(owner, name, out)
    return out


def _resized(box, shape):
    """The array in ``box`` (its only reference, taken out) with ``shape``; see :func:`grow_rows`."""
    a = box.pop()
    dtype = a.dtype
    count = int(np.prod(shape, dtype=np.int64))
    block = _block(a)
    if block is not None:
        old = a.shape
        del a  # the map's only export was the array's memoryview
        try:
            block.resize(max(count * dtype.itemsize, 1))
            return np.frombuffer(block, dtype=dtype, count=count).reshape(shape)
        except (BufferError, OSError, SystemError, ValueError):  # a view held elsewhere, or no mremap
            a = np.frombuffer(block, dtype=dtype, count=int(np.prod(old))).reshape(old)
    out = zeros(shape, dtype)
    out[:a.shape[0]] = a
    return out


def _block(a):
    """The memory map a :func:`zeros` array starts at, or None."""
    base = a.base
    while isinstance(base, np.ndarray):
        base = base.base
    block = base.obj if isinstance(base, memoryview) else None
    if not isinstance(block, mmap.mmap) or a.__array_interface__["data"][0] != _address(block):
        return None
    return block


def _address(block):
    return np.frombuffer(block, dtype=np.uint8, count=1).__array_interface__["data"][0]


@contextmanager
def deferred_interrupt():
    """Hold Ctrl-C (SIGINT) until the block ends, then raise KeyboardInterrupt: a growth step is never
    left half done (a memo table replaced but not rebuilt). Outside the main thread, where Python delivers
    no SIGINT, the block runs as is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught and callable(previous):
        previous(signal.SIGINT, None)  # Python's default handler raises KeyboardInterrupt
    elif caught and previous == signal.SIG_DFL:
        raise KeyboardInterrupt
