"""``out=`` calls (issue 15): the fuzzer's out= mode (``EMBER_FUZZ_OUT``) found ember
ignoring out= in its factories and several joins, refusing out= where its body had no such
parameter, refusing an out= tensor of another shape instead of resizing it, and casting into
out= tensors torch refuses. Each behaviour is pinned here against torch."""
import warnings

import numpy as np
import pytest

from tests.oracle.oracle import check


def _into(T, make_out, call):
    """Runs ``call(T, out)`` and returns (the result is out, out, the warnings' first words)."""
    out = make_out(T)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        r = call(T, out)
    return r is out, out, [str(w.message).split(' since')[0] for w in caught]


@pytest.mark.parametrize('call', [
    lambda T, o: T.zeros(2, 3, out=o),
    lambda T, o: T.ones(4, out=o),
    lambda T, o: T.full((2,), 1.5, out=o),
    lambda T, o: T.arange(0.5, 3, out=o),
    lambda T, o: T.linspace(0, 1, 3, out=o),
    lambda T, o: T.logspace(0, 1, 3, out=o),
    lambda T, o: T.eye(2, out=o),
], ids=['zeros', 'ones', 'full', 'arange', 'linspace', 'logspace', 'eye'])
@pytest.mark.parametrize('dtype', ['int32', 'float64', 'float16'])
def test_factories_fill_out_in_its_dtype(call, dtype):
    """A factory given out= makes its result in out's dtype and returns out (ember ignored
    out= and returned a new tensor of the default dtype)."""
    check(lambda T: _into(T, lambda T: T.empty(0, dtype=getattr(T, dtype)),
                          lambda T, o: call(T, o))[:2], grad=False)


def test_empty_resizes_out():
    check(lambda T: (lambda o: (T.empty(2, 2, out=o) is o, o.shape, o.dtype))(
        T.empty(0, dtype=T.int32)), grad=False)


@pytest.mark.parametrize('call', [
    lambda T, o: T.zeros(2, dtype=T.float32, out=o),
    lambda T, o: T.arange(3, dtype=T.float64, out=o),
    lambda T, o: T.eye(2, dtype=T.float64, out=o),
], ids=['zeros', 'arange', 'eye'])
def test_factories_refuse_a_dtype_other_than_outs(call):
    check(lambda T: call(T, T.empty(0, dtype=T.int64)), grad=False, match_message=True)


@pytest.mark.parametrize('shape', [(3, 1), (1, 3), (4,)], ids=['3x1', '1x3', 'other_count'])
def test_ranges_keep_outs_shape_when_its_element_count_fits(shape):
    """torch's arange/linspace/logspace resize out only to another number of elements."""
    for name in ('arange', 'linspace', 'logspace'):
        check(lambda T: _into(T, lambda T: T.zeros(*shape),
                              lambda T, o: getattr(T, name)(0, 3, *(() if name == 'arange'
                                                                    else (3,)), out=o))[:2],
              grad=False)


@pytest.mark.parametrize('call', [
    lambda T, o: T.stack([T.ones(2), T.zeros(2)], out=o),
    lambda T, o: T.cat([T.zeros(0), T.ones(2)], out=o),
    lambda T, o: T.column_stack([T.ones(2), T.zeros(2)], out=o),
    lambda T, o: T.dstack([T.ones(2), T.zeros(2)], out=o),
    lambda T, o: T.tril(T.ones(3, 3), out=o),
    lambda T, o: T.triu(T.ones(3, 3), 1, out=o),
    lambda T, o: T.kron(T.ones(2), T.arange(2.), out=o),
    lambda T, o: T.unsqueeze_copy(T.ones(2), 0, out=o),
    lambda T, o: T.transpose_copy(T.ones(2, 3), 0, 1, out=o),
    lambda T, o: T.pow(2, T.tensor([1., 2.]), out=o),
    lambda T, o: T.normal(T.zeros(3), T.ones(3), out=o).shape,
], ids=['stack', 'cat_skipping_empty', 'column_stack', 'dstack', 'tril', 'triu', 'kron',
        'unsqueeze_copy', 'transpose_copy', 'pow_number_base', 'normal'])
@pytest.mark.parametrize('empty', [True, False], ids=['empty_out', 'resized_out'])
def test_out_is_written_and_returned(call, empty):
    """Every op torch gives out= writes its result there and returns out itself: ember
    ignored out= in stack/tril/triu and normal, returned a new tensor from pow with a number
    base, and refused out= where its body had no such parameter (the *_copy ops, kron).
    An out of another shape is resized, with torch's warning when it held elements."""
    check(lambda T: _into(T, lambda T: T.zeros(0 if empty else 5), call)[::2] + (
        _into(T, lambda T: T.zeros(0 if empty else 5), call)[1].shape,), grad=False)


@pytest.mark.parametrize('out_dtype', ['float64', 'int32', 'float32', 'int64', 'float16'])
@pytest.mark.parametrize('call', [
    lambda T, o: T.index_select(T.ones(3, 3), 0, T.tensor([0, 1]), out=o),
    lambda T, o: T.masked_select(T.ones(3), T.tensor([True, False, True]), out=o),
    lambda T, o: T.gather(T.ones(3, 3), 0, T.tensor([[0, 1]]), out=o),
    lambda T, o: T.mm(T.ones(2, 2), T.ones(2, 2), out=o),
    lambda T, o: T.sum(T.ones(3), 0, dtype=T.float32, out=o),
    lambda T, o: T.argmax(T.ones(3), 0, out=o),
    lambda T, o: T.softmax(T.ones(3), 0, out=o),
    lambda T, o: T.tril(T.ones(2, 2), out=o),
    lambda T, o: T.add(T.ones(2), 1, out=o),
    lambda T, o: T.exp(T.tensor([1, 2]), out=o),
], ids=['index_select', 'masked_select', 'gather', 'mm', 'sum_dtype', 'argmax', 'softmax',
        'tril', 'add', 'exp_of_ints'])
def test_out_dtype_rules(call, out_dtype):
    """Most ops cast their result into out= (refusing a lossy kind: float into int);
    others take only their own dtype, each with torch's message."""
    # (a result computed in float32 keeps float32's precision in a float64 out)
    check(lambda T: call(T, T.empty(0, dtype=getattr(T, out_dtype))), grad=False,
          match_message=True, rtol=1e-6)


@pytest.mark.parametrize('out_dtype', ['int16', 'float64', 'float16'])
@pytest.mark.parametrize('name', ['sum', 'cumsum', 'cumprod', 'prod', 'mean'])
def test_reductions_compute_in_outs_dtype(name, out_dtype):
    """sum(x, out=int_t) sums in int (1.5 + 2.5 -> 1 + 2): out's dtype is the result's."""
    x = np.array([1.5, 2.5, -3.25], np.float32)
    check(lambda T, a: getattr(T, name)(a, 0, out=T.empty(0, dtype=getattr(T, out_dtype))),
          x, grad=False, match_message=True)


@pytest.mark.parametrize('input_dtype', ['uint8', 'float32', 'complex64'])
@pytest.mark.parametrize('out_dtype', ['bool', 'uint8', 'int32', 'float32'])
@pytest.mark.parametrize('name', ['all', 'any'])
def test_all_any_write_bool_or_uint8_out(name, input_dtype, out_dtype):
    """all/any take a bool or uint8 out= (a uint8 input into a bool out too: ember refused
    the cast) and refuse any other."""
    x = np.array([[1, 0], [2, 3]]).astype(input_dtype)
    check(lambda T, a: getattr(T, name)(a, 1, out=T.empty(0, dtype=getattr(T, out_dtype))),
          x, grad=False, match_message=True)


def test_out_none_is_no_out():
    """``out=None`` is the same call as none: ember's bodies without the parameter refused
    it."""
    check(lambda T: T.conj_physical(T.ones(2), out=None), grad=False)
    check(lambda T: T.float_power(T.ones(2), 2, out=None), grad=False)


def test_an_out_with_grad_inputs_is_refused():
    check(lambda T: T.add(T.ones(2, requires_grad=True), 1, out=T.empty(0)), grad=False,
          match_message=True)
    check(lambda T: T.mm(T.ones(2, 2, requires_grad=True), T.ones(2, 2), out=T.empty(0)),
          grad=False, match_message=True)


def test_dtype_refusals_do_not_read_out_as_an_input():
    """pinv's refusal of a complex tolerance read a complex out= tensor as one."""
    check(lambda T: T.linalg.pinv(T.zeros(2, 0, dtype=T.complex64), hermitian=True,
                                  out=T.zeros(2, 0, dtype=T.complex64)), grad=False)


@pytest.mark.parametrize('out_dtype', ['float32', 'bfloat16', 'float64', 'complex128', 'int64'])
@pytest.mark.parametrize('input_dtype', ['float32', 'complex64'])
def test_logsumexp_copies_into_out(input_dtype, out_dtype):
    """torch copies logsumexp's result into out= (complex into real dropping the imaginary
    part) but refuses an integer out; ember refused every lossy cast."""
    x = np.array([1 + 1j, 2, -0.5j]).astype(input_dtype)
    for fn in ('logsumexp', 'special.logsumexp'):
        check(lambda T, a: (T.special.logsumexp if '.' in fn else T.logsumexp)(
            a, 0, out=T.empty(0, dtype=getattr(T, out_dtype))), x, grad=False,
            match_message=True, rtol=2e-2)


@pytest.mark.parametrize('out_dtype', ['uint8', 'int32', 'complex64', 'float16'])
@pytest.mark.parametrize('base', [1, 1.0, 2.0, True], ids=['int_1', 'float_1', 'float_2', 'bool'])
def test_pow_of_a_number_base_into_out(base, out_dtype):
    """torch fills out with ones for a base of 1, whatever the dtypes; other bases cast
    (or refuse) as every out= does."""
    check(lambda T: T.pow(base, T.tensor([1 + 1j, 2]) if out_dtype == 'complex64' else
                          T.tensor([1.5, 2.0]), out=T.empty(0, dtype=getattr(T, out_dtype))),
          grad=False, match_message=True)


def test_autograd_refusal_comes_before_the_dtype_refusal():
    """torch's autograd kernel refuses an out= call with inputs that require grad before
    the kernel checks out's dtype (ember checked the dtype first)."""
    check(lambda T: T.norm(T.ones(2, 2, dtype=T.float64, requires_grad=True), 'fro', [0, 1],
                           False, T.ones(())), grad=False, match_message=True)
    check(lambda T: T.mm(T.ones(2, 2, requires_grad=True), T.ones(2, 2),
                         out=T.empty(0, dtype=T.float64)), grad=False, match_message=True)


@pytest.mark.parametrize('name', ['max', 'min', 'sort'])
@pytest.mark.parametrize('dtypes', [('float32', 'int32'), ('float16', 'int64'),
                                    ('float64', 'int64')], ids=str)
def test_pair_outs_name_cpp_types(name, dtypes):
    """The named-tuple ops' out=(values, indices) refusals name torch's C++ types ('long
    int', 'c10::Half'), from the one message builder of the exact-dtype out= refusals
    (ember printed 'long', 'half')."""
    check(lambda T: getattr(T, name)(T.ones(2, 3), 1, out=(
        T.empty(0, dtype=getattr(T, dtypes[0])), T.empty(0, dtype=getattr(T, dtypes[1])))),
        grad=False, match_message=True)
