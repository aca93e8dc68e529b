"""odtlab: a Jupyter-native teaching and research kit for optimal decision trees.

One numba core implements Branches, MurTree, Quant-BnB, DPDT, CART and a brute-force oracle; every
algorithm runs as a resumable search (:class:`odtlab.search.Search`) whose events the widgets and the
notebook chapters consume.
"""
__version__ = "0.1.0"
