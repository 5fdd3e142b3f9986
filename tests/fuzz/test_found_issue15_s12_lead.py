"""Findings of the fuzzer on fresh seeds 21000-21039, 22000-22339 (out=, wrong types,
keywords, inplace modes) and 23000-23339 (dtype-restricted), each pinned against torch."""
import numpy as np
import pytest

import ember
import torch


@pytest.mark.parametrize('name,shape,kw', [('ihfftn', (4,), {}), ('ihfftn', (1,), {}),
                                           ('ihfft2', (3,), {'dim': [-1]}),
                                           ('ihfftn', (3, 4), {})])
def test_ihfftn_over_one_dim_writes_out(name, shape, kw):
    """torch bug: `fft.ihfftn`/`ihfft2` over a single dim with `out=` leave `out` untouched
    (their result is right without out=; over two dims out= is written). ember writes out; the
    value is torch's result without out=."""
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = getattr(torch.fft, name)(torch.from_numpy(x), **kw)
    out = ember.full(tuple(expected.shape), 7 + 0j, dtype=ember.complex64)
    got = getattr(ember.fft, name)(ember.from_numpy(x), **kw, out=out)
    assert got is out
    np.testing.assert_allclose(out.numpy(), expected.resolve_conj().numpy(), rtol=1e-6, atol=1e-6)
