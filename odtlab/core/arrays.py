"""Array primitives the kernels share, written so that numba compiles them cheaply."""
from odtlab.core._jit import njit


@njit(inline="always")
def copy_flat(dst, src):
    """``dst[...] = src`` for two C-contiguous arrays of one size (``dst`` must be: as plain Python, reshaping a
    non-contiguous array copies it), element by element. numba's array assignment checks the shapes at run time
    and formats its error with them, which cost the first function that had one about 2 s of compilation
    (string formatting compiled for the message, measured with numba's compile events); this loop has none."""
    d = dst.reshape(dst.size)
    s = src.reshape(src.size)
    for i in range(d.size):
        d[i] = s[i]
