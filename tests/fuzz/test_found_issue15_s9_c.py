"""Gated findings of the fuzzer on fresh seeds 3000-3199 and wide-shape seeds 300-399
(issue 15), each pinned against torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('call', [
    lambda T: T.ormqr(T.ones(3, 3), T.tensor(1.), T.ones(4, 4)),
    lambda T: T.ormqr(T.ones(3, 3), T.ones(7), T.ones(4, 4), False),
    lambda T: T.ormqr(T.ones(3, 3), T.ones(7), T.ones(3, 3)),
    lambda T: T.ormqr(T.ones(3, 3), T.tensor(1.), T.ones(3, 3)),
], ids=['other_then_0d_tau', 'other_right', 'tau_size', 'tau_0d'])
def test_ormqr_checks_other_before_tau(call):
    """torch checks other's rows against input before tau's length (ember checked tau
    first, and a 0-d tau raised an IndexError where torch names other)."""
    check(call, grad=False, match_message=True)


def test_tensorsolve_refuses_other_with_more_dims():
    """A 1-d A and a 2-d B: torch fails (RuntimeError); ember solved a 1x1 system."""
    check(lambda T: T.linalg.tensorsolve(T.ones(1), T.ones(1, 1)), grad=False)
    check(lambda T: T.linalg.tensorsolve(T.ones(1, 1), T.ones(1)), grad=False)


@pytest.mark.parametrize('dtype', ['int64', 'float32'])
def test_index_put_with_an_empty_result_and_a_0d_index(dtype):
    """The result is empty, so torch checks no bounds; ember's clip turned the 0-d index
    into a NumPy scalar and leaked a TypeError."""
    check(lambda T: T.zeros(2, 3, dtype=getattr(T, dtype)).index_put(
        [T.tensor(-4), T.zeros(2, 0, dtype=T.int64)], T.zeros(1, 0, dtype=getattr(T, dtype))),
        grad=False)


@pytest.mark.parametrize('weight', [True, False])
def test_lerp_takes_a_bool_weight(weight):
    """torch reads a bool Scalar weight as 0 or 1; ember's abs() of it refused Bool."""
    x, y = np.array([[1., 2, 3]], np.float32), np.array([[0., -1, 4]], np.float32)
    check(lambda T, a, b: T.lerp(a, b, weight), x, y)
    check(lambda T, a, b: a.detach().clone().lerp_(b, weight), x, y, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.linalg.pinv(T.ones(2, 3, dtype=T.complex128), atol=T.tensor(0.5)),
    lambda T: T.linalg.pinv(T.zeros(0, 3, dtype=T.complex128), atol=T.zeros(0, 3, dtype=T.float64)),
    lambda T: T.linalg.pinv(T.ones(2, 3, dtype=T.complex128),
                            atol=T.tensor(0.5, dtype=T.complex128)),
    lambda T: T.linalg.pinv(T.ones(2, 3), rtol=T.tensor(0.5, dtype=T.complex64)),
    lambda T: T.linalg.pinv(T.ones(2, 3, dtype=T.complex128), atol=T.tensor(0.5),
                            rtol=T.tensor(0.5, dtype=T.complex128)),
], ids=['complex_A_real_atol', 'empty', 'complex_atol', 'real_A_complex_rtol', 'complex_rtol'])
def test_pinv_refuses_complex_tolerances_not_complex_matrices(call):
    """torch refuses a complex atol/rtol tensor whatever A is; ember refused a complex A
    given a real atol by keyword (its dtype table read the call as one dtype) and took a
    complex rtol for a real A."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.zeros(0, 3).index_put([T.tensor([-3, -3, 0])], T.zeros(0, 3), accumulate=True),
    lambda T: T.zeros(0, 3).index_put([T.tensor([0])], T.zeros(5)),
    lambda T: T.zeros(0, 3).index_put([T.tensor([], dtype=T.long)], T.zeros(5)),
    lambda T: T.zeros(3, 0).index_put([T.tensor([5]), T.tensor([0])], T.tensor(1.)),
    lambda T: T.zeros(3, 0)[T.tensor([5]), T.tensor([0])],
], ids=['accumulate', 'values_shape', 'empty_index', 'bounds', 'getitem'])
def test_an_index_into_a_size_0_dim_is_refused_first(call):
    """torch refuses a non-empty index into a dim of size 0 before it checks the values'
    shape (ember reported the shape mismatch)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('dtypes', [('float32', 'float64'), ('float64', 'float32'),
                                    ('float16', 'float64')])
def test_rms_norm_returns_the_input_dtype(dtypes):
    """A weight of another dtype: torch casts the result to the input's dtype (ember
    returned the promoted one)."""
    x = np.array([[-0.45, 1., -0.59], [2., 0.5, 0.25]])
    w = np.array([0.24, 2., -0.05])
    check(lambda T, a, b: T.nn.functional.rms_norm(a.to(getattr(T, dtypes[0])), [3],
                                                   b.to(getattr(T, dtypes[1]))), x, w)


@pytest.mark.parametrize('call', [
    lambda T: T.subtract(1.5, other=3, alpha=-0.7),
    lambda T: T.sub(1.5, 3, alpha=-0.7),
    lambda T: T.add(1, other=2, alpha=2),
    lambda T: T.add(True, other=2, alpha=2),
    lambda T: T.add(1, other=2.5, alpha=2),
    lambda T: T.sub(1j, other=2, alpha=2),
    lambda T: T.add(1.5, other=T.tensor([2], dtype=T.int8), alpha=2),
    lambda T: T.add(1.5, other=T.tensor([2], dtype=T.float16), alpha=2),
], ids=['subtract', 'sub', 'int', 'bool', 'float_other', 'complex', 'int8', 'float16'])
def test_add_sub_of_two_numbers_with_alpha(call):
    """torch's parser makes a number ``input`` a 0-d tensor; ember's scaled path read the
    number's ``_data`` (AttributeError)."""
    check(call, grad=False)


@pytest.mark.parametrize('call', [
    lambda T: T.zeros(0, 3, dtype=T.int64).index_fill_(1, T.tensor([4, 4, 4]), 0.5),
    lambda T: T.zeros(3, 0).index_fill(0, T.tensor([-7]), 0.5),
    lambda T: T.zeros(0, 3).index_fill(1, T.tensor([4]), T.tensor(2.)),
    lambda T: T.zeros(2, 3).index_fill_(1, T.tensor([4]), 0.5),
], ids=['in_place', 'negative', 'tensor_value', 'non_empty'])
def test_index_fill_of_an_empty_input_checks_no_index(call):
    """An empty input along a non-empty dim: torch writes nothing and so checks no index
    (ember refused index 4 of a size-3 dim)."""
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('op', ['_foreach_add', '_foreach_mul', '_foreach_sub', '_foreach_div'])
@pytest.mark.parametrize('dtypes', [('int64', 'bfloat16'), ('int64', 'float16'),
                                    ('float16', 'float64'), ('int32', 'int8'),
                                    ('float32', 'float64'), ('bool', 'float32')])
def test_foreach_promotes_a_0d_tensor_as_a_number(op, dtypes):
    """torch promotes the one 0-d ``other`` as a Python number (int64 tensors and a
    bfloat16 0-d give float32); ember promoted it as a tensor (bfloat16)."""
    if op == '_foreach_sub' and dtypes[0] == 'bool':
        return  # (bool subtraction: refused by both, pinned elsewhere)
    check(lambda T, a, b, c: getattr(T, op)([a.to(getattr(T, dtypes[0])),
                                             b.to(getattr(T, dtypes[0]))],
                                            c.to(getattr(T, dtypes[1]))),
          np.array([4., 0.]), np.array(1.), np.array(-2.), grad=False)



@pytest.mark.parametrize('dtype', ['float32', 'int64'])
def test_embedding_max_norm_with_no_index_writes_nothing(dtype):
    """No index: torch renorms no row, so an expanded (read-only) weight is fine; ember
    refused the write."""
    check(lambda T: T.nn.functional.embedding(
        T.tensor([], dtype=T.int64), T.ones(1, 3, dtype=getattr(T, dtype)).expand(3, 3),
        max_norm=1.5), grad=False)
