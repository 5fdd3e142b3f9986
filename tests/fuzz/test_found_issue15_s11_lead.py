"""Findings of the fuzzer on fresh seeds 15000-15039, wide seeds 1500-1539, dtype-restricted
seeds 16000-16019 and all-keyword seeds 17000-17019 (issue 15), each pinned against torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check


@pytest.mark.parametrize('fn', ['as_strided', 'as_strided_copy'])
def test_as_strided_of_an_expanded_input_shares_the_gradient(fn):
    """Input elements reading one storage element (an expanded input) share its gradient,
    as torch's: ember gave each the whole of it, so the expand's backward summed it three
    times."""
    a = np.arange(1., 17.).reshape(2, 2, 1, 4)
    check(lambda T, b: getattr(T, fn)(b.expand(2, 2, 3, 4), [2, 2, 3, 4], [2, 3, 2, 1]), a)


def test_as_strided_of_an_overlapping_input():
    """The same for an input whose own strides overlap (no stride of 0), and its second
    derivative."""
    check(lambda T, b: T.as_strided(b.as_strided((3, 3), (1, 1)), (2, 2), (2, 1), 1),
          np.arange(1., 7.), double=True)


@pytest.mark.parametrize('view', [
    lambda t: t[..., ::2], lambda t: t[::2], lambda t: t.reshape(0, 3)[::2, ::3],
    lambda t: t.reshape(0, 3).t()[::2], lambda t: t.reshape(0, 4)[:, ::2],
    lambda t: t.reshape(2, 0)[..., ::2]], ids=range(6))
@pytest.mark.parametrize('requires_grad', [False, True])
def test_strided_slice_of_an_empty_tensor_multiplies_the_stride(view, requires_grad):
    """NumPy keeps the stride of a dim sliced to nothing; torch multiplies it by the step
    (``zeros(0)[::2].stride()`` is (2,)): ember reported the unsliced stride."""
    def strides(T):
        v = view(T.zeros(0, dtype=T.float64, requires_grad=requires_grad))
        return T.tensor(list(v.stride()) + [v.is_contiguous()])
    check(strides, grad=False)
