"""Findings of the fuzzer's message check (issue 15): ember raised torch's exception class
but with NumPy's or Python's own text, or a wrong class the second time a call was made
(the fast path), each pinned against torch with its message."""
import pytest

from tests.oracle.oracle import check


def twice(call):
    """The call made twice: the first runs the checked path, the second the fast path."""
    def run(T):
        try:
            call(T)
        except Exception:  # noqa: BLE001 - the second call is the one compared
            pass
        return call(T)
    return run


@pytest.mark.parametrize('call', [
    lambda T: T.ones(3, 3, dtype=T.float64).tile([0, -1, 0]),
    lambda T: T.ones(3, 3).repeat(1, 0, -1, 0),
    lambda T: T.ones(3, 3).tile(2, -2),
    lambda T: T.ones(2, 3).tile(2, 3),
    lambda T: T.randperm(-2),
    lambda T: T.fft.rfftfreq(-5),
], ids=['tile_list', 'repeat', 'tile_unpacked', 'tile_unpacked_ok', 'randperm', 'rfftfreq'])
def test_negative_sizes(call):
    check(call, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.permute(T.ones(2, 2), 1, 0),
    lambda T: T.tile(T.ones(2, 2), 1, 2),
    lambda T: T.reshape(T.ones(2, 2), 4, 1),
    lambda T: T.ones(2, 2).permute(1, 0),
    lambda T: T.ones(2, 2).reshape(4, 1),
], ids=['permute', 'tile', 'reshape', 'Tensor.permute', 'Tensor.reshape'])
def test_function_forms_take_no_unpacked_sizes_on_the_fast_path(call):
    check(twice(call), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.tensordot(T.ones(2, 2), 2),
    lambda T: T.tensordot(1.5, T.ones(2, 2)),
    lambda T: T.tensordot(T.ones(2, 2), 2.0, dims=([0], [0])),
    lambda T: T.tensordot(1, T.ones(2, 2), dims=([0], [0])),
], ids=['int_dims_other', 'int_dims_input', 'list_dims_other', 'list_dims_input'])
def test_tensordot_of_a_number(call):
    check(twice(call), grad=False, match_message=True)


@pytest.mark.parametrize('upper', [False, True])
def test_cholesky_inverse_zero_diagonal_names_it(upper):
    """A factor with a zero on its diagonal is singular: torch's LinAlgError names the first
    zero, even where LU with pivoting would find no zero pivot (ember raised None)."""
    import ember
    import torch
    raised = []
    for T in (ember, torch):
        m = T.tensor([[0.0, 1.0, 2.0], [1.0, 3.0, 0.5], [2.0, 0.5, 4.0]])
        with pytest.raises(T.linalg.LinAlgError) as info:
            T.cholesky_inverse(T.stack([T.eye(3) + 0.1, m]), upper=upper)
        raised.append(str(info.value))
    assert raised[0] == raised[1]


@pytest.mark.parametrize('call', [
    lambda T: T.sort([2.0, 1.0]),
    lambda T: T.add(T.ones(2), (1, 2)),
    lambda T: T.mm(T.ones(2, 2), [[1.0]]),
    lambda T: T.cat([T.ones(2), [1.0]]),
    lambda T: T.add(T.ones(2), T.ones(2), alpha=[1]),
    lambda T: T.zeros([1, [2]]),
    lambda T: T.isin(T.ones(2), 'a', assume_unique=1, invert='b'),
    lambda T: T.isin(elements=T.ones(2), test_elements='a', invert=1),
], ids=['sort_list', 'add_tuple', 'mm_nested', 'cat_element', 'alpha_list', 'zeros_nested',
        'isin_keywords', 'isin_keywords_only'])
def test_a_sequence_is_named_by_its_class(call):
    """torch's parser names a list or tuple passed where a tensor or number goes by its class
    ("not list"), and lists keywords last given first (ember said "tuple of floats", and
    isin listed keywords in the order given)."""
    check(twice(call), grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T: T.trapezoid(T.tensor(1.)),
    lambda T: T.trapezoid(T.tensor(1.), dx=2.),
    lambda T: T.trapezoid(T.tensor(1.), T.tensor(2.)),
    lambda T: T.trapz(T.tensor(1.), T.tensor(2.)),
    lambda T: T.trapezoid(T.tensor(1.), dim=0),
    lambda T: T.cumulative_trapezoid(T.tensor(1.)),
    lambda T: T.cumulative_trapezoid(T.tensor(1.), T.tensor(2.)),
    lambda T: T.tensor(1.).flatten(1),
    lambda T: T.tensor(1.).flatten(0, -2),
    lambda T: T.tensor(1.).flatten(-1, 0),
], ids=['trapezoid', 'trapezoid_dx', 'trapezoid_x', 'trapz_x', 'trapezoid_dim0',
        'cumulative', 'cumulative_x', 'flatten_start', 'flatten_end', 'flatten_ok'])
def test_zero_dim_inputs(call):
    """0-d inputs: torch's IndexError naming the dim (ember said "tuple index out of
    range"), and flatten's dims checked even on a 0-d tensor (ember accepted any)."""
    check(twice(call), grad=False, match_message=True)
