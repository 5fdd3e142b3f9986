"""torch.ops.aten.convolution_backward against torch: the three gradients and the
``output_mask`` that picks them (None for the others), their own gradients through torch's
``ConvolutionBackwardBackward0`` node, dtypes, and the errors of its schema and its checks."""
import itertools

import numpy as np
import pytest

import ember
from ..oracle.oracle import arr, check, torch

MASKS = [list(m) for m in itertools.product([True, False], repeat=3)]

# (grad_output, input, weight shapes; bias_sizes, stride, padding, dilation, transposed,
#  output_padding, groups)
CONFIGS = {
    'plain 2d': ((2, 6, 5, 5), (2, 4, 7, 7), (6, 2, 3, 3), [6], [1, 1], [0, 0], [1, 1], False,
                 [0, 0], 2),
    'strided padded 2d': ((1, 3, 4, 3), (1, 2, 7, 6), (3, 2, 3, 2), [3], [2, 2], [1, 0],
                          [1, 1], False, [0, 0], 1),
    'dilated 2d': ((2, 3, 3, 3), (2, 4, 7, 7), (3, 4, 3, 3), None, [1, 1], [0, 0], [2, 2],
                   False, [0, 0], 1),
    'depthwise 2d': ((1, 4, 5, 5), (1, 4, 7, 7), (4, 1, 3, 3), [4], [1, 1], [0, 0], [1, 1],
                     False, [0, 0], 4),
    '1d': ((2, 3, 4), (2, 4, 10), (3, 4, 3), [3], [2], [0], [1], False, [0], 1),
    '3d': ((1, 3, 2, 2, 2), (1, 2, 4, 4, 4), (3, 2, 3, 3, 3), [3], [1, 1, 1], [0, 0, 0],
           [1, 1, 1], False, [0, 0, 0], 1),
    # (torch's own second derivative of a transposed one fails for an output_padding)
    'transposed 2d': ((1, 6, 7, 7), (1, 4, 4, 4), (4, 3, 3, 3), [6], [2, 2], [1, 1], [1, 1],
                      True, [0, 0], 2),
    'transposed 1d': ((1, 3, 9), (1, 2, 4), (2, 3, 3), [3], [2], [0], [1], True, [0], 1),
}


def _op(params, mask):
    def f(lib, go, x, w):
        return lib.ops.aten.convolution_backward(go, x, w, *params, mask)
    return f


@pytest.mark.parametrize('mask', MASKS, ids=str)
@pytest.mark.parametrize('name', list(CONFIGS))
def test_values_and_gradients(name, mask):
    """Values, None where masked out, and (inputs requiring grad) the gradients of the
    gradients -- and theirs -- against torch's."""
    go, x, w, *params = CONFIGS[name]
    args = [arr(*go, seed=1), arr(*x, seed=2), arr(*w, seed=3)]
    check(_op(params, mask), *args, grad=False, rtol=1e-9, atol=1e-9)
    if any(mask):
        check(_op(params, mask), *args, double=True, rtol=1e-9, atol=1e-9)


# (small ones: gradcheck's finite differences take a pass per element)
SMALL = {
    'grouped 2d': ((1, 2, 2, 2), (1, 2, 3, 3), (2, 1, 2, 2), [2], [1, 1], [0, 0], [1, 1],
                   False, [0, 0], 2),
    'dilated strided 2d': ((1, 1, 2, 1), (1, 1, 5, 4), (1, 1, 2, 2), None, [2, 2], [0, 0],
                           [2, 2], False, [0, 0], 1),
    'transposed 2d': ((1, 2, 4, 4), (1, 2, 2, 2), (2, 1, 2, 2), [2], [2, 2], [0, 0], [1, 1],
                      True, [0, 0], 2),
    '1d': CONFIGS['1d'], 'transposed 1d': CONFIGS['transposed 1d'],
}


@pytest.mark.parametrize('name', list(SMALL))
def test_gradcheck(name):
    go, x, w, *params = SMALL[name]
    ins = [ember.tensor(arr(*s, seed=i), requires_grad=True)
           for i, s in enumerate((go, x, w))]

    def f(*t):
        return tuple(ember.ops.aten.convolution_backward(*t, *params, [True] * 3))
    assert ember.autograd.gradcheck(f, ins)
    assert ember.autograd.gradgradcheck(f, ins)


def test_node_and_saved_values():
    got = []
    for lib in (ember, torch):
        x = lib.ones(2, 4, 7, 7, dtype=lib.float64, requires_grad=True)
        r = lib.ops.aten.convolution_backward(
            lib.ones(2, 6, 5, 5, dtype=lib.float64), x, lib.ones(6, 2, 3, 3, dtype=lib.float64),
            [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, [False, True, True])
        fn = r[1].grad_fn
        assert r[2].grad_fn is fn and r[0] is None
        got.append((type(fn).__name__ if lib is ember else fn.name(), r[1].output_nr,
                    r[2].output_nr, fn._saved_stride, fn._saved_padding, fn._saved_dilation,
                    fn._saved_transposed, fn._saved_output_padding, fn._saved_groups,
                    tuple(fn._saved_input.shape), tuple(fn._saved_grad_output.shape),
                    [f is None for f, _ in fn.next_functions]))
    assert got[0] == got[1]
    assert got[0][0] == 'ConvolutionBackwardBackward0'


def test_no_graph_without_grad():
    """No input requiring grad, or no_grad: plain results, as torch's."""
    for lib in (ember, torch):
        x = lib.ones(2, 4, 7, 7, requires_grad=True)
        args = (lib.ones(2, 6, 5, 5), x, lib.ones(6, 2, 3, 3), [6], [1, 1], [0, 0], [1, 1],
                False, [0, 0], 2, [True] * 3)
        with lib.no_grad():
            assert not any(t.requires_grad for t in lib.ops.aten.convolution_backward(*args))
        args = (args[0], x.detach()) + args[2:]
        assert not any(t.requires_grad for t in lib.ops.aten.convolution_backward(*args))


@pytest.mark.parametrize('dtype', [np.float32, np.float16, 'bfloat16'])
def test_float_dtypes(dtype):
    go, x, w, *params = CONFIGS['plain 2d']
    if dtype == 'bfloat16':
        from ..oracle.oracle import BFLOAT16 as dtype
    args = [arr(*s, seed=i).astype(dtype) for i, s in enumerate((go, x, w))]
    tol = 1e-5 if dtype == np.float32 else 0.1
    check(_op(params, [True] * 3), *args, rtol=tol, atol=tol)


def test_bias_sizes_not_read():
    """torch sums grad_output for the bias's gradient whatever ``bias_sizes`` says."""
    go, x, w, _, *params = CONFIGS['plain 2d']
    for sizes in (None, [5], [1, 2]):
        check(_op([sizes] + params, [False, False, True]), arr(*go), arr(*x), arr(*w),
              grad=False)


def _a(*shape, dtype=np.float64):
    return np.ones(shape, dtype)


GO, X, W, M = _a(2, 6, 5, 5), _a(2, 4, 7, 7), _a(6, 2, 3, 3), [True] * 3
TR_W = _a(4, 3, 3, 3)


@pytest.mark.parametrize('args', [
    # the schema: argument types, the mask's length
    (GO, X, W, [6], 1, [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, 6, [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2.0, M),
    (GO, X, 3, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, True),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, None),
    (GO, X, W, [6], [1.5, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, [True, True]),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, [True] * 4),
    # the convolution's arguments
    (GO, X, _a(6, 2), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 3, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 3, [False] * 3),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 0, M),
    (GO, X[0], W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [-1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [-1, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [0, 1], False, [0, 0], 2, M),
    (GO, _a(2, 4, 2, 2), W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], False, [1, 1], 2, M),
    (GO, X, W, [6], [1, 1], [0, 0], [1, 1], 1, [0, 0], 2, M),
    (_a(2, 6, 14, 14), X, TR_W, [6], [2, 2], [1, 1], [1, 1], True, [3, 3], 2, M),
    (_a(1, 3, 7), _a(1, 2, 4), _a(2, 3, 3), [3], [1], [0], [1], True, [1], 1, M),
    # grad_output against the output (checked only for the input's and weight's gradients)
    (_a(2, 6, 4, 4), X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (_a(2, 6, 5, 4), X, _a(6, 4, 3, 3), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, M),
    (_a(2, 5, 5, 5), X, _a(6, 4, 3, 3), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, M),
    (_a(2, 5, 4, 4), X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (_a(6, 5, 5), X, _a(6, 4, 3, 3), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, M),
    (_a(2, 6, 4, 4), X, _a(6, 4, 3, 3), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
     [False, True, False]),
    (_a(2, 6, 4, 4), X, _a(6, 4, 3, 3), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
     [False, False, True]),
    (_a(1, 3, 3, 2, 2), _a(1, 2, 4, 4, 4), _a(3, 2, 3, 3, 3), [3], [1] * 3, [0] * 3, [1] * 3,
     False, [0] * 3, 1, M),
    (_a(2, 3, 7), _a(2, 4, 10), _a(3, 4, 3), [3], [1], [0], [1], False, [0], 1, M),
    (_a(2, 6, 15, 15), X, TR_W, [6], [2, 2], [1, 1], [1, 1], True, [1, 1], 2, M),
    (_a(2, 5, 14, 14), X, TR_W, [6], [2, 2], [1, 1], [1, 1], True, [1, 1], 2, M),
    (_a(2, 3, 2, 3), X, _a(3, 4, 3, 3), [3], [1, 1], [0, 0], [2, 2], False, [0, 0], 1, M),
    (_a(2, 5, 3, 3), X, _a(3, 4, 3, 3), [3], [1, 1], [0, 0], [2, 2], False, [0, 0], 1, M),
    # dtypes
    (GO.astype(np.float32), X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO, X, W.astype(np.float32), [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2, M),
    (GO.astype(np.float32), X, W, [6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2,
     [False, False, True]),
    (GO.astype(np.int64), X.astype(np.int64), W.astype(np.int64), [6], [1, 1], [0, 0],
     [1, 1], False, [0, 0], 2, M),
    (GO.astype(np.int32), X.astype(np.int32), W.astype(np.int32), [6], [1, 1], [0, 0],
     [1, 1], False, [0, 0], 2, [False, True, False]),
    (GO.astype(np.int64), X.astype(np.int64), W.astype(np.int64), [6], [1, 1], [0, 0],
     [1, 1], False, [0, 0], 2, [False, False, True]),
    (_a(2, 3, 9, 9, dtype=np.int32), _a(2, 4, 7, 7, dtype=np.int32),
     _a(4, 3, 3, 3, dtype=np.int32), [3], [1, 1], [0, 0], [1, 1], True, [0, 0], 1, M),
    (_a(2, 3, 3, 3, dtype=np.int32), _a(2, 4, 7, 7, dtype=np.int32),
     _a(3, 4, 3, 3, dtype=np.int32), [3], [1, 1], [0, 0], [2, 2], False, [0, 0], 1, M),
    (_a(2, 3, 3, 3, dtype=np.int64), _a(2, 4, 7, 7, dtype=np.int64),
     _a(3, 4, 3, 3, dtype=np.int64), [3], [1, 1], [0, 0], [2, 2], False, [0, 0], 1, M),
    (_a(1, 3, 2, 2, 2, dtype=bool), _a(1, 2, 4, 4, 4, dtype=bool), _a(3, 2, 3, 3, 3, dtype=bool),
     [3], [1] * 3, [0] * 3, [1] * 3, False, [0] * 3, 1, M),
    (GO.astype(np.complex128), X.astype(np.complex128), W.astype(np.complex128), [6], [1, 1],
     [0, 0], [1, 1], False, [0, 0], 2, M),
])
def test_errors_and_edge_cases(args):
    """torch's exception and message (its first line: torch's schema errors go on to list
    each overload), or the same results where torch accepts."""
    def f(lib):
        return lib.ops.aten.convolution_backward(
            *[lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    check(f, grad=False, match_message=True)


def test_forward_mode_upstream_case_still_masks():
    """(the case test_autograd_forward_mode_upstream uses) a zero-batch input's gradient
    masked out, the weight's asked for."""
    go, x, w = arr(0, 6, 5, 5), arr(0, 4, 7, 7), arr(6, 2, 3, 3)
    check(_op([[6], [1, 1], [0, 0], [1, 1], False, [0, 0], 2], [False, True, True]),
          go, x, w, grad=False)
