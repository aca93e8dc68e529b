"""numba kernels: arrays in, arrays out. No Python objects, no printing, no I/O."""
