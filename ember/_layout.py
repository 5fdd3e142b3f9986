"""Tensor layouts (``ember.strided``, ``ember.sparse_coo``...), the objects torch names
``torch.layout``: how a tensor's elements are stored. Dense tensors are strided; the sparse
layouts are built by ``ember._sparse``."""

__all__ = ['layout', 'strided', 'sparse_coo', 'sparse_csr', 'sparse_csc', 'sparse_bsr',
           'sparse_bsc', 'jagged']


class layout:
    """A tensor layout, e.g. ``ember.sparse_coo``; prints as torch prints it."""
    __slots__ = ('name', 'word')

    def __init__(self, name, word):
        self.name = name
        self.word = word  # (torch's C++ name of the layout, which its messages show)

    def __repr__(self):
        return 'torch.' + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name):
    """The layout named ``name`` (unpickling keeps one object per layout)."""
    return _ALL[name]


strided = layout('strided', 'Strided')
sparse_coo = layout('sparse_coo', 'Sparse')
sparse_csr = layout('sparse_csr', 'SparseCsr')
sparse_csc = layout('sparse_csc', 'SparseCsc')
sparse_bsr = layout('sparse_bsr', 'SparseBsr')
sparse_bsc = layout('sparse_bsc', 'SparseBsc')
_mkldnn = layout('_mkldnn', 'Mkldnn')
jagged = layout('jagged', 'Jagged')
_ALL = {lay.name: lay for lay in (strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr,
                                  sparse_bsc, _mkldnn, jagged)}

# The storage classes that stand in for an ndarray in a sparse tensor's ``_data`` (filled by
# ``ember._sparse``): ops that make arrays of NumPy's scalars leave these alone.
STORAGE = set()
