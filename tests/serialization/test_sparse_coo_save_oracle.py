"""Sparse COO tensors through torch.save / torch.load in torch's own form
(``_rebuild_sparse_tensor`` with the layout by ``_get_layout``): ember reads what torch
wrote, torch reads what ember wrote, weights_only included, and a sparse buffer of a
state_dict loads back into a model (sparse ``copy_``), compared with torch."""
import io
import warnings

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch

CASES = {
    'coo': lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 1, 1], [2, 0, 2]]),
                                             lib.tensor([3., 4., 5.]), (2, 3)),
    'coalesced': lambda lib: lib.eye(3, dtype=lib.float64).to_sparse(),
    'duplicates': lambda lib: lib.sparse_coo_tensor(lib.tensor([[0, 0]]), lib.tensor([1., 2.]),
                                                    (2,)),
    'int hybrid': lambda lib: lib.ones(2, 2, 3, dtype=lib.int64).to_sparse(1),
}


def describe(t):
    return (str(t.layout), t.is_coalesced(), str(t.dtype), tuple(t.shape),
            t._indices().tolist(), t._values().tolist())


def saved(lib, obj, **kw):
    buf = io.BytesIO()
    lib.save(obj, buf, **kw)
    return buf.getvalue()


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UserWarning)  # (torch's invariant-check notice)
        yield


@pytest.mark.parametrize('legacy', [False, True])
@pytest.mark.parametrize('name', list(CASES))
@pytest.mark.parametrize('writer,reader', [(ember, ember), (torch, ember), (ember, torch)],
                         ids=['ember-ember', 'torch-ember', 'ember-torch'])
def test_round_trip_between_libraries(name, writer, reader, legacy):
    data = saved(writer, {'adj': CASES[name](writer), 'w': writer.ones(2)},
                 _use_new_zipfile_serialization=not legacy)
    got = reader.load(io.BytesIO(data), weights_only=True)
    expected = CASES[name](torch)
    assert describe(got['adj']) == describe(expected)
    assert got['w'].tolist() == [1.0, 1.0]


def test_sparse_buffer_of_a_state_dict_loads_back():
    results = []
    for lib in (ember, torch):
        class M(lib.nn.Module):
            def __init__(self, adj):
                super().__init__()
                self.register_buffer('adj', adj)

        src = M(CASES['coo'](lib).coalesce())
        dst = M(lib.eye(2, 3, dtype=lib.float64).to_sparse())
        state = lib.load(io.BytesIO(saved(lib, src.state_dict())))
        msg = str(dst.load_state_dict(state))
        results.append((msg, describe(dst.adj), dst.adj._version > 0))
    assert results[0] == results[1]


def test_copy_between_sparse_tensors():
    results = []
    for lib in (ember, torch):
        a = lib.eye(2, dtype=lib.float64).to_sparse()
        a.copy_(CASES['coo'](lib) * 2)
        results.append(describe(a))
    assert results[0] == results[1]
    assert np.isclose(results[0][-1], [6.0, 8.0, 10.0]).all()
