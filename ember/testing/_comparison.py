"""assert_close: compares tensors, NumPy arrays, numbers, None, and nested sequences and
mappings of them, with torch's default tolerances per dtype and torch's messages."""
import collections.abc
import math
import warnings

import numpy as np

from .. import _dtype
from .._layout import strided as _strided
from .._tensor import Tensor

__all__ = ['assert_close', 'assert_allclose']

# dtype name -> (rtol, atol): torch's defaults; other dtypes compare exactly.
PRECISIONS = {'float16': (0.001, 1e-5), 'bfloat16': (0.016, 1e-5), 'float32': (1.3e-6, 1e-5),
              'float64': (1e-7, 1e-7), 'complex64': (1.3e-6, 1e-5),
              'complex128': (1e-7, 1e-7)}
# The Python number types and the dtype torch gives each.
_NUMBER_DTYPES = {int: 'int64', float: 'float64', complex: 'complex128'}


class _Mismatch(Exception):
    """One failed comparison: the exception class to raise and its message."""

    def __init__(self, cls, message, where=()):
        super().__init__(message)
        self.cls, self.message, self.where = cls, message, where


class _NoPair(Exception):
    """No comparison handles this pair of inputs."""


def _tolerances(names, rtol, atol, precisions=PRECISIONS):
    """``(rtol, atol)``: the given ones, or the loosest defaults of the dtypes ``names``."""
    if (rtol is None) != (atol is None):
        missing = 'atol' if atol is None else 'rtol'
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    if rtol is not None:
        return rtol, atol
    rtols, atols = zip(*(precisions.get(n, (0.0, 0.0)) for n in names))
    return max(rtols), max(atols)


def _mismatch_msg(what, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    """torch's message: header, statistics, the greatest differences (with the allowed
    tolerances unless the comparison was for equality)."""
    exact = rtol == 0 and atol == 0
    lines = [f"{what} are not {'equal' if exact else 'close'}!", '']
    if extra:
        lines.append(extra.strip())
    for kind, diff, idx, tol in (('absolute', abs_diff, abs_idx, atol),
                                 ('relative', rel_diff, rel_idx, rtol)):
        line = f'{kind.title()} difference: {diff}' if idx is None else \
            f'Greatest {kind} difference: {diff} at index {idx}'
        lines.append(line if exact else f'{line} (up to {tol} allowed)')
    return '\n'.join(lines).strip()


def _scalar_msg(actual, expected, rtol, atol):
    abs_diff = abs(actual - expected)
    rel_diff = float('inf') if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg('Scalars', f'Expected {expected} but got {actual}.', abs_diff, None,
                         atol, rel_diff, None, rtol)


def _floating(dt):
    """Whether a NumPy dtype holds floats or complex numbers (ml_dtypes' bfloat16 too)."""
    return dt.kind in 'fc' or dt.name == 'bfloat16'


def _isclose(a, b, rtol, atol, equal_nan):
    """torch.isclose on arrays of one dtype, computed in that dtype."""
    if not _floating(a.dtype):
        if rtol == 0 and atol == 0 or a.dtype.kind == 'b':
            return a == b
        a, b = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid='ignore', over='ignore'):
        scale = np.abs(b) * a.real.dtype.type(rtol) + a.real.dtype.type(atol)
        close = (a == b) | (np.isfinite(a) & np.isfinite(b) & (np.abs(a - b) <= scale))
    if equal_nan:
        close |= np.isnan(a) & np.isnan(b)
    return close


def _index(flat, shape):
    return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()


def _tensor_msg(a, b, matches, rtol, atol, what='Tensor-likes'):
    """The statistics of a failed elementwise comparison, in the arrays' dtype as torch
    computes them (integers in int64)."""
    total = matches.size
    wrong = total - int(matches.sum())
    extra = f'Mismatched elements: {wrong} / {total} ({wrong / total:.1%})'
    fa, fb, ok = a.ravel(), b.ravel(), matches.ravel()
    if not _floating(a.dtype):
        fa, fb = fa.astype(np.int64), fb.astype(np.int64)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        abs_diff = np.abs(fa - fb)
        abs_diff[ok] = 0
        if abs_diff.dtype.kind == 'i':  # true division of integers: the default float dtype
            rel_diff = abs_diff.astype(_dtype.DEFAULT.np_float) / \
                np.abs(fb).astype(_dtype.DEFAULT.np_float)
        else:
            rel_diff = abs_diff / np.abs(fb)
        rel_diff[ok] = 0
    ia, ir = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    return _mismatch_msg(what, extra, abs_diff[ia].item(), _index(ia, a.shape), atol,
                         rel_diff[ir].item(), _index(ir, a.shape), rtol)


def _compare_tensors(actual, expected, opts):
    def attribute(name, x, y):
        raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: "
                                        f'{x} != {y}.')
    if isinstance(actual, np.ndarray):
        from .. import from_numpy
        actual, expected = from_numpy(actual), from_numpy(expected)
    if actual.shape != expected.shape:
        attribute('shape', actual.shape, expected.shape)
    what = 'Tensor-likes'
    if actual.layout != expected.layout:
        if opts['check_layout']:
            attribute('layout', actual.layout, expected.layout)
        actual, expected = actual.to_dense(), expected.to_dense()  # (compared as dense)
    elif actual.layout is not _strided:
        # (torch compares the stored values; ember compares the dense tensors they make)
        what = f"Sparse {_SPARSE_NAMES[str(actual.layout)]} values"
        actual, expected = actual.to_dense(), expected.to_dense()
    elif opts['check_stride'] and actual.stride() != expected.stride():
        attribute('stride()', actual.stride(), expected.stride())
    if opts['check_device'] and actual.device != expected.device:
        attribute('device', actual.device, expected.device)
    if opts['check_dtype'] and actual.dtype != expected.dtype:
        attribute('dtype', actual.dtype, expected.dtype)
    rtol, atol = _tolerances((actual.dtype.name, expected.dtype.name), opts['rtol'],
                             opts['atol'])
    a, b = actual._data, expected._data
    if a.dtype != b.dtype:
        common = _dtype.promote_types(actual.dtype, expected.dtype).np
        a, b = a.astype(common), b.astype(common)
    matches = _isclose(a, b, rtol, atol, opts['equal_nan'])
    if matches.all():
        return
    if a.ndim == 0:
        raise _Mismatch(AssertionError, _scalar_msg(a.item(), b.item(), rtol, atol))
    raise _Mismatch(AssertionError, _tensor_msg(a, b, matches, rtol, atol, what))


_SPARSE_NAMES = {'torch.sparse_coo': 'COO', 'torch.sparse_csr': 'CSR',
                 'torch.sparse_csc': 'CSC', 'torch.sparse_bsr': 'BSR',
                 'torch.sparse_bsc': 'BSC'}


def _compare_numbers(actual, expected, opts):
    if opts['check_dtype'] and type(actual) is not type(expected):
        raise _Mismatch(AssertionError, f'The (d)types do not match: {type(actual)} != '
                                        f'{type(expected)}.')
    rtol, atol = _tolerances((_NUMBER_DTYPES[type(actual)], _NUMBER_DTYPES[type(expected)]),
                             opts['rtol'], opts['atol'])
    if actual == expected:
        return
    if opts['equal_nan'] and _isnan(actual) and _isnan(expected):
        return
    finite = all(math.isfinite(abs(v)) for v in (actual, expected))
    if finite and abs(actual - expected) <= atol + rtol * abs(expected):
        return
    raise _Mismatch(AssertionError, _scalar_msg(actual, expected, rtol, atol))


def _isnan(v):
    return v != v


def _as_number(v):
    """A Python number for a Python or NumPy number (None if ``v`` is not one)."""
    if isinstance(v, np.generic) and not isinstance(v, np.bool_):
        v = v.item()
    return v if type(v) in _NUMBER_DTYPES else None


def _compare_leaves(actual, expected, opts):
    if actual is None or expected is None:
        if actual is not expected:
            raise _Mismatch(AssertionError, f'None mismatch: {actual} is not {expected}')
        return
    bools = (bool, np.bool_)
    if isinstance(actual, bools) and isinstance(expected, bools):
        if bool(actual) is not bool(expected):
            raise _Mismatch(AssertionError, f'Booleans mismatch: {bool(actual)} is not '
                                            f'{bool(expected)}')
        return
    na, ne = _as_number(actual), _as_number(expected)
    if na is not None and ne is not None:
        return _compare_numbers(na, ne, opts)
    tensors = isinstance(actual, Tensor) and isinstance(expected, Tensor)
    arrays = isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray)
    if (tensors or arrays) and (opts['allow_subclasses'] or type(actual) is type(expected)):
        return _compare_tensors(actual, expected, opts)
    raise _NoPair()


def _is_sequence(v):
    return isinstance(v, collections.abc.Sequence) and not isinstance(v, str)


def _compare(actual, expected, opts, where=()):
    """Walks nested sequences and mappings; raises _Mismatch (with ``where``, the path to the
    item) for the first failure."""
    if _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f'The length of the sequences mismatch: '
                                            f'{len(actual)} != {len(expected)}', where)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, opts, where + (i,))
        return
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        ka, ke = set(actual), set(expected)
        if ka != ke:
            raise _Mismatch(AssertionError, 'The keys of the mappings do not match:\n'
                                            f'Missing keys in the actual mapping: '
                                            f'{sorted(ke - ka)}\nAdditional keys in the actual '
                                            f'mapping: {sorted(ka - ke)}', where)
        try:
            keys = sorted(ka)
        except TypeError:
            keys = list(actual)
        for k in keys:
            _compare(actual[k], expected[k], opts, where + (k,))
        return
    try:
        _compare_leaves(actual, expected, opts)
    except _Mismatch as m:
        m.where = where
        raise
    except _NoPair:
        raise TypeError(f'No comparison pair was able to handle inputs of type {type(actual)} '
                        f'and {type(expected)}.') from None


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raises AssertionError, with torch's message, unless ``actual`` and ``expected`` are
    close: ``|actual - expected| <= atol + rtol * |expected|`` elementwise, with per-dtype
    default tolerances (float32: rtol 1.3e-6, atol 1e-5; integers: exact), after checking
    shape, device, dtype and (``check_stride``) strides. Inputs may be tensors, NumPy
    arrays, numbers, None, or sequences and mappings of them.

    >>> ember.testing.assert_close(ember.tensor([1.0, 2.0]), ember.tensor([1.0, 2.0 + 1e-6]))
    """
    opts = {'allow_subclasses': allow_subclasses, 'rtol': rtol, 'atol': atol,
            'equal_nan': equal_nan, 'check_device': check_device, 'check_dtype': check_dtype,
            'check_stride': check_stride, 'check_layout': check_layout}
    try:
        _compare(actual, expected, opts)
    except _Mismatch as m:
        message = m.message
        if callable(msg):
            message = msg(message)
        elif msg is not None:
            message = msg
        elif m.where:
            message += '\n\nThe failure occurred for item ' + ''.join(f'[{k!r}]'
                                                                       for k in m.where)
        raise m.cls(message) from None


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=''):
    """Deprecated (as in torch): ``assert_close`` with ``expected`` converted to ``actual``'s
    dtype, looser float tolerances, NaNs equal and dtypes not checked."""
    warnings.warn('`torch.testing.assert_allclose()` is deprecated since 1.12 and will be '
                  'removed in a future release. Please use `torch.testing.assert_close()` '
                  'instead. You can find detailed upgrade instructions in '
                  'https://github.com/pytorch/pytorch/issues/61844.', FutureWarning,
                  stacklevel=2)
    from .. import tensor
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tolerances((actual.dtype.name, expected.dtype.name), None, None,
                                 {'float16': (1e-3, 1e-3), 'float32': (1e-4, 1e-5),
                                  'float64': (1e-5, 1e-8)})
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_device=True, check_dtype=False, check_stride=False, msg=msg or None)
