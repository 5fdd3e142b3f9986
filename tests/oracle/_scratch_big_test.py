import numpy as np
import pytest
from .oracle import check, arr

# -- generated cases -------------------------------------------------------------------------
hyp = pytest.importorskip('hypothesis', reason='hypothesis generates the random-shape cases')
st = hyp.strategies


@st.composite
def _shape_and_dims(draw):
    shape = tuple(draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    nd = len(shape)
    if nd == 0:
        return shape, draw(st.sampled_from([None, 0, -1, ()]))
    kind = draw(st.sampled_from(['none', 'int', 'tuple']))
    if kind == 'none':
        return shape, None
    if kind == 'int':
        return shape, draw(st.integers(-nd, nd - 1))
    dims = draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
    # negative spellings of the same dims
    return shape, tuple(d - nd if draw(st.booleans()) else d for d in dims)


@hyp.settings(max_examples=600, deadline=None, derandomize=False)
@hyp.given(_shape_and_dims(), st.booleans(), st.sampled_from(['sum', 'mean', 'nansum', 'amax', 'amin', 'var', 'std', 'logsumexp', 'norm', 'var_mean', 'std_mean', 'count_nonzero', 'all', 'any', 'max', 'min', 'argmax', 'cumsum', 'cumprod', 'softmax', 'log_softmax', 'sort', 'median', 'prod', 'topk', 'kthvalue']))
def test_generated_sum_mean(shape_dims, keepdim, op):
    shape, dim = shape_dims
    x = arr(*shape)
    import warnings
    warnings.simplefilter('ignore')
    if op == 'norm':
        check(lambda T, x: T.norm(x, 2, dim, keepdim), x, double=True)
    elif op in ('count_nonzero',):
        check(lambda T, x: T.count_nonzero(x, dim), x)
    elif op in ('all', 'any'):
        check(lambda T, x: getattr(T, op)(x, dim, keepdim), np.asarray(x > 0))
    elif op in ('max', 'min', 'argmax', 'median', 'prod'):
        d = dim if isinstance(dim, int) else 0
        check(lambda T, x: getattr(T, op)(x, d, keepdim), x, double=True)
        check(lambda T, x: getattr(T, op)(x), x, double=True)
    elif op in ('topk', 'kthvalue'):
        d = dim if isinstance(dim, int) else 0
        check(lambda T, x: getattr(T, op)(x, 1, d), x, double=True)
    elif op in ('cumsum', 'cumprod', 'softmax', 'log_softmax', 'sort'):
        d = dim if isinstance(dim, int) else 0
        check(lambda T, x: getattr(T, op)(x, d), x, double=True)
    else:
        check(lambda T, x: getattr(T, op)(x, dim, keepdim=keepdim), x, double=True)
