"""Memory limits that bound the process, not only the search state.

A search's memory is its solver's arrays (``Solver.nbytes``) plus the events it keeps. Three rules keep the
process inside a limit L:

* **the default**: ``memory_limit="auto"`` (every estimator, ``Search.run``, ``odtlab solve``) is
  :data:`DEFAULT_FRACTION` of the memory available when the search starts (psutil's ``available``, and
  no more than a cgroup's ``memory.max`` leaves), so that no fit can take the machine down;
* **growth in place**: the arrays a search grows live in private memory maps (:func:`zeros`), and
  :func:`grow_rows` extends a map with ``mremap``, which moves pages instead of copying them, so the old
  and the new array never coexist (a table that is rebuilt, such as a hash table, is freed first);
* **the state never passes L**: :func:`capacity` grows an array by as much as fits under L, and by
  nothing when even what the kernel needs does not fit (the search then stops with status
  ``memory_limit``, keeping its tree and its gap).
"""
import mmap
import re
import signal
import threading
import time
from contextlib import contextmanager

import numpy as np

DEFAULT_FRACTION = 0.5
_UNITS = {"": 1, "b": 1, "k": 10 ** 3, "kb": 10 ** 3, "m": 10 ** 6, "mb": 10 ** 6, "g": 10 ** 9, "gb": 10 ** 9,
          "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "t": 10 ** 12, "tb": 10 ** 12, "tib": 1 << 40}


def available_bytes():
    """Memory a new allocation can take without swapping or the out-of-memory killer: psutil's
    ``available``, capped by what the cgroup's ``memory.max`` (containers) leaves."""
    import psutil

    free = psutil.virtual_memory().available
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            cap = f.read().strip()
        with open("/sys/fs/cgroup/memory.current") as f:
            used = int(f.read())
        if cap != "max":
            free = min(free, max(int(cap) - used, 0))
    except (OSError, ValueError):
        pass
    return int(free)


def default_memory_limit():
    """:data:`DEFAULT_FRACTION` of :func:`available_bytes`, in bytes (read at most once a second: reading it
    takes about 60 us, more than a small fit)."""
    now = time.monotonic()
    if now - _DEFAULT[0] > 1.0:
        _DEFAULT[:] = [now, int(DEFAULT_FRACTION * available_bytes())]
    return _DEFAULT[1]


_DEFAULT = [-2.0, 0]  # (time read, limit)


def check_memory_limit(value, name="memory_limit"):
    """Bytes (int) or None for a memory limit given as ``"auto"`` (:func:`default_memory_limit`), None (no
    limit), a positive number of bytes, or a string with a unit (``"4GiB"``, ``"500MB"``, ``"none"``)."""
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
    bytes at capacity c and ``others`` the bytes of the rest of the state. Under ``limit`` (bytes, or None)
    the step shrinks until the state fits (the group grows in place, :func:`grow_rows`, so the old rows
    take no extra room); None when even ``need`` does not fit."""
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
