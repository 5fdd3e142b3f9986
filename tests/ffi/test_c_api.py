"""<ember/ember_c.h> from C, through ``ember.utils.ffi.load``: what a C function sees of a
tensor (checked against torch's sizes, strides and dtype names), the helpers (element access,
fill, resize, checks), errors reported from C, and the conversion of numbers, strings and
results between Python and C."""
import os

import numpy as np
import pytest

import ember
from ember.utils.ffi import load

torch = pytest.importorskip('torch', reason='real PyTorch 2.13 (the oracle) is not installed')

CSRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'csrc')
DTYPES = ['bool', 'uint8', 'int8', 'int16', 'int32', 'int64', 'float16', 'float32', 'float64',
          'complex64', 'complex128']  # EmberDtype's order


@pytest.fixture(scope='module')
def lib(toolchain):
    return load('c_api', os.path.join(CSRC, 'c_api.h'), os.path.join(CSRC, 'c_api.c'))


def _describe(lib, t):
    out = ember.empty(0, dtype=ember.int64)
    assert lib.describe(t, out) == 1
    values = out.tolist()
    ndim = values[1]
    return {'dtype': DTYPES[values[0]], 'ndim': ndim, 'writable': values[2],
            'numel': values[3], 'sizes': values[4:4 + ndim], 'strides': values[4 + ndim:]}


VIEWS = {
    'contiguous': lambda lib: lib.arange(24.).reshape(2, 3, 4),
    'transposed': lambda lib: lib.arange(24.).reshape(2, 3, 4).transpose(0, 2),
    'sliced': lambda lib: lib.arange(24.).reshape(4, 6)[1:, ::2],
    'expanded': lambda lib: lib.arange(3.).expand(4, 3),
    'scalar': lambda lib: lib.tensor(2.5),
    'empty': lambda lib: lib.zeros(0, 3),
}


@pytest.mark.parametrize('view', VIEWS)
def test_a_view_has_torchs_sizes_strides_and_elements(lib, view):
    e, t = VIEWS[view](ember), VIEWS[view](torch)
    seen = _describe(lib, e)
    assert seen['sizes'] == list(t.shape)
    # The C view of an empty tensor shows its array's strides, NumPy's (0, 0), where torch
    # (and ember's Tensor.stride()) give row-major ones, (3, 1).
    strides = [s // e._data.itemsize for s in e._data.strides]
    assert seen['strides'] == (list(t.stride()) if view != 'empty' else strides)
    assert seen['numel'] == t.numel() and seen['ndim'] == t.dim()
    assert seen['writable'] == (view != 'expanded')  # an expanded array is read-only memory
    assert lib.total(e) == t.sum().item()
    assert lib.contiguous(e) == t.is_contiguous()
    flat = ember.empty(0, dtype=e.dtype)
    assert lib.flatten_into(e, flat) == 1
    np.testing.assert_array_equal(flat.numpy(), t.reshape(-1).numpy())


@pytest.mark.parametrize('name', DTYPES)
def test_dtypes_and_their_torch_names(lib, name):
    e = ember.ones(2, dtype=getattr(ember, name))
    assert _describe(lib, e)['dtype'] == name
    if name == 'float32':
        assert lib.require_float(e) == 1
        return
    torch_name = torch.ones(1, dtype=getattr(torch, name)).type()[len('torch.'):-len('Tensor')]
    with pytest.raises(RuntimeError, match=f'^expected scalar type Float but found '
                                           f'{torch_name}$'):
        lib.require_float(e)


def test_fill_and_element_access_match_torch(lib):
    e, t = ember.zeros(3, 4, dtype=ember.float64), torch.zeros(3, 4, dtype=torch.float64)
    assert lib.fill(e[:, 1:3], 7.5) == 1
    t[:, 1:3].fill_(7.5)
    assert lib.set_2d(e.t(), 3, 2, -1.0) == 1
    t.t()[3, 2] = -1.0
    np.testing.assert_array_equal(e.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="^ember_fill: the tensor's memory is read-only$"):
        lib.fill(ember.zeros(3).expand(2, 3), 1.0)
    with pytest.raises(IndexError, match=r'^set_2d: index \(3, 0\) is out of bounds for size '
                                         r'\[3, 4\]$'):
        lib.set_2d(e, 3, 0, 1.0)
    with pytest.raises(ValueError, match='^set_2d: expected a 2-D tensor, got 1-D$'):
        lib.set_2d(ember.zeros(3, dtype=ember.float64), 0, 0, 1.0)


@pytest.mark.parametrize('ndim,a,b', [(2, 2, 4), (1, 3, 0), (2, 3, 2), (1, 0, 0)])
def test_resize_keeps_the_first_elements_and_bumps_the_version(lib, ndim, a, b):
    e, t = ember.arange(6.), torch.arange(6.)
    ev, tv = e._version, t._version
    assert lib.resize(e, ndim, a, b) == 1
    t.resize_(*((a, b)[:ndim]))
    assert e.shape == t.shape and e.dtype == ember.float32
    n = min(6, t.numel())
    np.testing.assert_array_equal(e.reshape(-1).numpy()[:n], t.reshape(-1).numpy()[:n])
    assert e._version - ev == t._version - tv


def test_resize_to_the_same_size_changes_nothing(lib):
    e = ember.arange(6.).reshape(3, 2).t()
    data, version = e._data, e._version
    assert lib.resize(e, 2, 2, 3) == 1
    assert e._data is data and e._version == version  # as torch: same sizes, no-op


def test_resize_refusals(lib):
    torch_leaf = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError) as expected:
        torch_leaf.resize_(5)
    with pytest.raises(RuntimeError, match=f'^{expected.value}$'):
        lib.resize(ember.ones(3, requires_grad=True), 1, 5, 0)
    with pytest.raises(RuntimeError, match=r'^Trying to create tensor with negative dimension '
                                           r'-1: \[2, -1\]$'):
        lib.resize(ember.ones(3), 2, 2, -1)


def test_resize_of_a_non_contiguous_tensor_keeps_its_first_elements_in_row_major_order(lib):
    # A documented difference: torch keeps the storage's first elements instead.
    e = ember.arange(6.).reshape(2, 3).t()
    assert lib.resize(e, 2, 2, 2) == 1
    assert e.tolist() == [[0.0, 3.0], [1.0, 4.0]] and e.is_contiguous()


def test_errors_reported_from_c(lib):
    kinds = [RuntimeError, TypeError, ValueError, IndexError]
    for kind, exception in enumerate(kinds):
        with pytest.raises(exception, match='^report: went wrong$') as info:
            lib.report(kind, 'went wrong')
        assert type(info.value) is exception
    with pytest.raises(RuntimeError, match='^the first error$'):
        lib.report_twice()
    assert lib.same_size(ember.ones(2, 3), ember.ones(2, 3)) == 1
    with pytest.raises(RuntimeError, match=r'^a and b must have the same size, but got '
                                           r'\[2, 3\] and \[3, 2\]$'):
        lib.same_size(ember.ones(2, 3), ember.ones(3, 2))
    assert lib.is_null(ember.ones(1)) == 0  # an earlier error does not linger


def test_arguments_are_checked(lib):
    with pytest.raises(TypeError, match=r'^describe\(\) takes 2 positional arguments but 1 was '
                                        r'given$'):
        lib.describe(ember.ones(1))
    with pytest.raises(TypeError, match=r"^total\(\): argument 1 \(EmberTensor const \*\) "
                                        r"must be an ember Tensor, not numpy.ndarray$"):
        lib.total(np.ones(3))
    with pytest.raises(OverflowError, match=r"^add_ints\(\): argument 1: 128 does not fit "
                                            r"'signed char'$"):
        lib.add_ints(128, 0, 0)
    with pytest.raises(OverflowError, match=r"argument 2: -1 does not fit 'unsigned short'"):
        lib.add_ints(0, -1, 0)
    with pytest.raises(TypeError, match=r'^add_ints\(\): argument 3 \(long long\) must be int, '
                                        r'not float$'):
        lib.add_ints(0, 0, 1.5)
    with pytest.raises(TypeError, match=r'^length\(\): argument 1 \(char const \*\) must be str '
                                        r'or bytes, not int$'):
        lib.length(3)


def test_numbers_strings_and_results(lib):
    assert lib.add_ints(-128, 65535, 2 ** 40) == -128 + 65535 + 2 ** 40
    assert lib.halve(3) == 1.5 and isinstance(lib.halve(3), float)
    assert lib.negate(True) is False and lib.negate(0) is True
    assert lib.nothing() is None
    assert lib.length('héllo') == len('héllo'.encode()) and lib.length(b'ab') == 2
    assert lib.is_null(None) == 1
    a, b = ember.ones(1), ember.zeros(1)
    assert lib.pick(a, b, 0) is a and lib.pick(a, b, 1) is b and lib.pick(a, b, 2) is None
    with pytest.raises(RuntimeError, match=r'^pick\(\) returned an EmberTensor that is not one '
                                           r'of its arguments$'):
        lib.pick(a, b, 3)


def test_other_functions_stay_cffi_functions(lib):
    buffer = lib.ffi.new('float[4]')
    lib.count_into(buffer, 4)
    assert list(buffer) == [0.0, 1.0, 2.0, 3.0]
    assert lib.count_into is lib.lib.count_into
    assert lib.describe.__doc__ == 'int describe(EmberTensor const *, EmberTensor *)'
    assert sorted(lib.__all__) == lib.__all__ and 'count_into' in lib.__all__
