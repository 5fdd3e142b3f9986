"""The 'meta' device and the default device, against torch: factories, reprs, the default
device (``with device(...)``, ``set_default_device``), ``*_like``/``new_*`` following their
input, in-place initialisation as a no-op, ``Module.to``/``to_empty``, loading a checkpoint
into a meta model with ``assign=True``, and torch's errors for reading a meta tensor."""
import warnings

import pytest

import ember
from .oracle.oracle import torch

LIBS = pytest.mark.parametrize('lib', [ember, torch], ids=['ember', 'torch'])


def _raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize('make', [
    lambda lib: lib.empty(2, 3, device='meta'),
    lambda lib: lib.zeros(2, dtype=lib.int64, device='meta'),
    lambda lib: lib.ones((), dtype=lib.float64, device='meta'),
    lambda lib: lib.full((2, 0), 1.5, device='meta'),
    lambda lib: lib.randn(3, device='meta', requires_grad=True),
    lambda lib: lib.arange(4, device='meta'),
    lambda lib: lib.tensor([True, False], device='meta'),
    lambda lib: lib.nn.Parameter(lib.empty(1, device='meta')),
    lambda lib: lib.zeros(3).to('meta'),
    lambda lib: lib.zeros_like(lib.empty(2, device='meta')),
    lambda lib: lib.empty(2, device='meta').new_ones(4),
])
def test_factories_and_reprs(make):
    e, t = make(ember), make(torch)
    assert str(e) == str(t) and repr(e) == repr(t)
    assert (str(e.device), e.is_meta, tuple(e.shape), str(e.dtype)) == \
        (str(t.device), t.is_meta, tuple(t.shape), str(t.dtype))


@pytest.mark.parametrize('read', [
    lambda lib: lib.zeros(1, device='meta').item(),
    lambda lib: lib.zeros(2, device='meta').item(),
    lambda lib: lib.zeros(2, device='meta').tolist(),
    lambda lib: lib.zeros(2, device='meta').numpy(),
    lambda lib: lib.zeros(2, device='meta').to('cpu'),
    lambda lib: lib.zeros(2, device='meta').cpu(),
    lambda lib: lib.nn.Linear(2, 2, device='meta').to('cpu'),
])
def test_the_values_of_a_meta_tensor_cannot_be_read(read):
    assert _raises(lambda: read(ember)) == _raises(lambda: read(torch)) is not None


@LIBS
def test_default_device(lib):
    assert lib.get_default_device() == lib.device('cpu')
    with lib.device('meta'):
        assert lib.get_default_device() == lib.device('meta')
        made = [lib.zeros(2), lib.tensor(0), lib.rand(2), lib.eye(2), lib.linspace(0, 1, 3),
                lib.full((1,), 2.0), lib.zeros(2, device='cpu')]
        like = lib.zeros_like(lib.zeros(2, device='cpu'))  # follows its input, not the default
    assert [str(t.device) for t in made] == ['meta'] * 6 + ['cpu']
    assert str(like.device) == 'cpu' and not lib.zeros(1).is_meta
    lib.set_default_device('meta')
    try:
        assert lib.zeros(1).is_meta and lib.get_default_device() == lib.device('meta')
    finally:
        lib.set_default_device(None)
    assert lib.get_default_device() == lib.device('cpu') and not lib.zeros(1).is_meta


@LIBS
def test_a_meta_model_initialises_nothing_and_loads_by_assignment(lib):
    lib.manual_seed(0)
    real = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    with lib.device('meta'):
        meta = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
                                 lib.nn.Linear(4, 2))
    assert all(p.is_meta for p in meta.parameters()) and all(b.is_meta for b in meta.buffers())
    w = meta[0].weight
    assert lib.nn.init.kaiming_uniform_(w) is w and w.is_meta  # in place: a no-op on meta
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        meta.load_state_dict(real.state_dict())  # copying into meta: nothing happens
    assert 'copying from a non-meta parameter' in str(caught[0].message)
    assert meta[0].weight.is_meta
    meta.load_state_dict(real.state_dict(), assign=True)
    assert not any(p.is_meta for p in meta.parameters())
    assert isinstance(meta[0].weight, lib.nn.Parameter) and meta[0].weight.requires_grad
    x = lib.randn(5, 3)
    real.eval(), meta.eval()
    assert lib.equal(real(x), meta(x))


@LIBS
def test_to_meta_and_to_empty(lib):
    m = lib.nn.Linear(2, 3)
    assert m.to('meta') is m and m.weight.is_meta and type(m.weight) is lib.nn.Parameter
    m.to_empty(device='cpu')
    assert not m.weight.is_meta and m(lib.ones(1, 2)).shape == (1, 3)
