"""DLPack against torch 2.13: ember tensors and torch/NumPy arrays share memory both ways,
views keep their strides, and what torch refuses ember refuses."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch
from .helpers import DTYPES, values

LIBS = (ember, torch)


def _views(lib):
    base = lib.arange(24, dtype=lib.float32).reshape(4, 6)
    return {'base': base, 'block': base[1:3, 2:5], 'transposed': base.t(),
            'strided': base[::2, ::3], 'scalar': base[2, 3], 'empty': base[:0]}


@pytest.mark.parametrize('view', list(_views(torch)))
def test_views_go_to_numpy_and_torch_without_a_copy(view):
    e, t = _views(ember)[view], _views(torch)[view]
    for importer in (np.from_dlpack, torch.from_dlpack):
        from_e, from_t = importer(e), importer(t)
        assert tuple(from_e.shape) == tuple(from_t.shape)
        if e.numel():   # (an empty tensor's strides are not kept by torch's exporter)
            assert (from_e.strides if importer is np.from_dlpack else from_e.stride()) == \
                (from_t.strides if importer is np.from_dlpack else from_t.stride())
        np.testing.assert_array_equal(np.asarray(from_e), np.asarray(from_t))
    assert e.__dlpack_device__() == t.__dlpack_device__() == (1, 0)
    if e.numel():
        torch.from_dlpack(e).fill_(7.0)     # the write shows in ember
        assert (e == 7.0).all().item()


@pytest.mark.parametrize('dtype', DTYPES)
def test_every_dtype_crosses_both_ways(dtype):
    if dtype == 'bfloat16':
        pytest.xfail("NumPy's DLPack exporter has no bfloat16 (ml_dtypes) code")
    t = (torch.arange(6).reshape(2, 3) % 3).to(getattr(torch, dtype))
    e = ember.from_dlpack(t)
    assert str(e.dtype) == str(t.dtype)
    np.testing.assert_array_equal(values(e), values(t))
    assert np.shares_memory(e.numpy(), t.numpy())
    back = torch.from_dlpack(e)
    assert back.dtype == t.dtype and back.data_ptr() == t.data_ptr()


def test_torch_views_come_to_ember_with_their_strides():
    t = torch.arange(20.).reshape(4, 5)[1:, ::2]
    e = ember.from_dlpack(t)
    assert e.stride() == t.stride() and e.tolist() == t.tolist()
    e.mul_(2)
    assert t.tolist() == e.tolist()


def test_capsules_from_to_dlpack_work_both_ways():
    e = ember.from_dlpack(torch.utils.dlpack.to_dlpack(torch.arange(3)))
    assert e.tolist() == [0, 1, 2] and e.dtype is ember.int64
    back = torch.utils.dlpack.from_dlpack(ember.utils.dlpack.to_dlpack(ember.arange(3)))
    assert back.tolist() == [0, 1, 2]
    with pytest.raises(TypeError, match="expected an object with __dlpack__"):
        ember.from_dlpack([1, 2])


def test_a_tensor_that_requires_grad_is_refused_as_in_torch():
    messages = []
    for lib in LIBS:
        with pytest.raises(BufferError) as info:
            np.from_dlpack(lib.ones(2, requires_grad=True))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert np.from_dlpack(ember.ones(2, requires_grad=True).detach()).tolist() == [1.0, 1.0]


def test_version_counters_are_not_shared_across_libraries():
    # as between torch and NumPy: a write through the other library bumps neither counter
    for lib in LIBS:
        x = lib.zeros(3)
        before = x._version
        other = torch.from_dlpack(x) if lib is ember else ember.from_dlpack(x)
        other.add_(1)
        assert x._version == before and x.tolist() == [1.0, 1.0, 1.0]
