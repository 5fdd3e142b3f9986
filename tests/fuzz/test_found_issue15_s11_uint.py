"""Findings of the fuzzer restricted to uint16/uint32/uint64 (seeds 16000-16059, issue 15),
each pinned against torch: calls torch answers because they run no kernel (or not the
kernel that refuses the barebones unsigned dtypes), which ember refused from its dtype
refusal tables (``_args._KERNEL_SKIPS``), and the ops whose own bodies promote them."""
import random

import numpy as np
import pytest

from tests.oracle.oracle import check

UINTS = ['uint16', 'uint32', 'uint64']


def _ones(T, dtype, shape):
    """A tensor of ``shape`` and ``dtype`` holding 1, 2, ..., 7, 1, 2..."""
    values = (np.arange(int(np.prod(shape)), dtype=np.int64) % 7 + 1).reshape(shape)
    return T.tensor(values.tolist(), dtype=getattr(T, dtype))


def _strided(T, dtype, shape, perm, step):
    """A tensor of ``shape`` whose memory is strided by ``step`` and permuted by ``perm``."""
    big = [s * st for s, st in zip(shape, step)]
    x = _ones(T, dtype, big)
    if shape:
        x = x[tuple(slice(None, None, st) for st in step)]
    return x.permute(perm) if len(shape) > 1 else x


def _flip_cases(n):
    rng = random.Random(15)
    out = []
    for _ in range(n):
        nd = rng.randint(0, 4)
        shape = tuple(rng.choice([1, 1, 2, 3]) for _ in range(nd))
        perm = list(range(nd))
        rng.shuffle(perm)
        step = tuple(rng.choice([1, 1, 2]) for _ in range(nd))
        dims = [d for d in range(nd) if rng.random() < .5]
        out.append((shape, tuple(perm), step, dims, rng.randint(-2, 5)))
    return out


@pytest.mark.parametrize('case', _flip_cases(80), ids=str)
def test_flip_copies_rows_of_any_dtype(case):
    """torch's flip copies whole rows (memcpy, no dtype dispatch) unless it flips the
    innermost dim of size > 1 in its own order of the dims (by strides, an expanded dim
    comparing with none) or that dim is not contiguous; only then does uint16+ meet
    "flip_cpu not implemented". ember refused every fliplr/rot90 of uint16+ (and answered
    every flip and flipud)."""
    shape, perm, step, dims, k = case
    dtype = UINTS[len(shape) % 3]
    mk = lambda T: _strided(T, dtype, shape, perm, step)  # noqa: E731
    check(lambda T: T.flip(mk(T), dims), grad=False, match_message=True)
    if len(dims) == 1:
        check(lambda T: mk(T).flip(dims[0]), grad=False, match_message=True)
    check(lambda T: T.flipud(mk(T)), grad=False, match_message=True)
    check(lambda T: T.fliplr(mk(T)), grad=False, match_message=True)
    if len(shape) >= 2:
        check(lambda T: T.rot90(mk(T), k, dims[:2] if len(dims) >= 2 else [0, 1]),
              grad=False, match_message=True)
        check(lambda T: mk(T).rot90(k), grad=False, match_message=True)


def test_flip_of_an_expanded_tensor():
    """An expanded (stride 0) innermost dim makes torch's flip dispatch on the dtype."""
    for dtype in UINTS:
        check(lambda T: T.flip(_ones(T, dtype, (3, 1)).expand(3, 4), [0]), grad=False,
              match_message=True)
        check(lambda T: T.flip(_ones(T, dtype, (1, 4)).expand(3, 4), [0]), grad=False,
              match_message=True)
        check(lambda T: T.flip(_ones(T, dtype, (2, 1, 3)).expand(2, 4, 3), [0, 1]),
              grad=False, match_message=True)


_SHAPES = [(), (1,), (3,), (1, 3), (3, 1), (2, 0), (0,), (0, 3), (2, 1, 3), (1, 1, 3), (1, 1)]


def _reduction_cases():
    out = []
    for s in _SHAPES:
        out.append((s, None))
        out += [(s, d) for d in range(-max(len(s), 1), max(len(s), 1))]
        if len(s) >= 2:
            out.append((s, (0, 1)))
    return out


def _one(d):
    return d[0] if isinstance(d, tuple) else d


_REDUCTIONS = {
    'amax': lambda T, x, d: T.amax(x, () if d is None else d),
    'amin': lambda T, x, d: T.amin(x, () if d is None else d),
    'aminmax': lambda T, x, d: T.aminmax(x, dim=None if d is None else _one(d)),
    'argmax': lambda T, x, d: T.argmax(x, None if d is None else _one(d)),
    'argmin': lambda T, x, d: x.argmin(None if d is None else _one(d), True),
    'max': lambda T, x, d: T.max(x) if d is None else T.max(x, _one(d)),
    'min': lambda T, x, d: x.min() if d is None else x.min(_one(d), True),
    'count_nonzero': lambda T, x, d: T.count_nonzero(x, d),
    'Tensor.count_nonzero': lambda T, x, d: x.count_nonzero([] if d is None else d),
    'median': lambda T, x, d: T.median(x) if d is None else T.median(x, _one(d)),
    'nanmedian': lambda T, x, d: T.nanmedian(x) if d is None else x.nanmedian(_one(d)),
}


@pytest.mark.parametrize('name', sorted(_REDUCTIONS))
def test_reductions_that_run_no_kernel(name):
    """argmax/argmin over a size-1 dim (or of an empty input), max/min/aminmax with a
    dim of a 0-d or empty input, amax/amin of an empty input and count_nonzero with
    dims run no kernel in torch, which answers them for uint16+; ember refused them.
    max/min with a dim refuse as "max_cpu"/"min_cpu", median with a dim as "median_out",
    even when empty (ember said "max_all", and answered an empty median)."""
    f = _REDUCTIONS[name]
    for i, (shape, d) in enumerate(_reduction_cases()):
        dtype = UINTS[i % 3]
        check(lambda T: f(T, _ones(T, dtype, shape), d), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
@pytest.mark.parametrize('n', [0, 1, 2, -1])
def test_matrix_power(dtype, n):
    """The first power is a copy (no eye, no product): torch answers it for uint16+."""
    check(lambda T: T.linalg.matrix_power(_ones(T, dtype, (2, 3, 3)), n), grad=False,
          match_message=True)
    check(lambda T: _ones(T, dtype, (4, 4)).matrix_power(n), grad=False, match_message=True)
    check(lambda T: T.matrix_power(_ones(T, dtype, (3, 3)).t(), n=n), grad=False,
          match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
def test_gather_and_scatter_with_an_empty_index(dtype):
    """An empty index runs no kernel: torch answers for uint16+ inputs."""
    empty = lambda T: T.zeros(0, dtype=T.int64)  # noqa: E731
    check(lambda T: T.gather(_ones(T, dtype, (2, 3)), 1, empty(T).reshape(2, 0)),
          grad=False, match_message=True)
    check(lambda T: _ones(T, dtype, (3,)).gather(0, empty(T)), grad=False, match_message=True)
    check(lambda T: _ones(T, dtype, (3,)).scatter(0, empty(T), _ones(T, dtype, (0,))),
          grad=False, match_message=True)
    check(lambda T: _ones(T, dtype, (2, 0)).scatter_(0, empty(T).reshape(2, 0), -1.0),
          grad=False, match_message=True)
    check(lambda T: T.gather(_ones(T, dtype, (3,)), 0, T.zeros(2, dtype=T.int64)),
          grad=False, match_message=True)


@pytest.mark.parametrize('ne', [0, 1, 3, 6, 30, 100])
@pytest.mark.parametrize('nt', [0, 1, 9, 10, 12, 13, 17, 20])
def test_isin_sorts_many_test_elements(ne, nt):
    """torch's isin compares element by element -- the kernel that refuses uint16+ --
    only for fewer test elements than 10 * elements ** 0.145; else it sorts, which
    answers (an int element then meets its promotion error). ember refused every isin of
    two uint16+ tensors (and answered a number's isin against a few)."""
    dtype = UINTS[(ne + nt) % 3]
    check(lambda T: T.isin(_ones(T, dtype, (ne,)), _ones(T, dtype, (nt,))), grad=False,
          match_message=True)
    if nt:
        check(lambda T: T.isin(2, _ones(T, dtype, (nt,))), grad=False, match_message=True)
        check(lambda T: T.isin(2.5, _ones(T, dtype, (nt,))), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
def test_diff_of_order_zero_is_a_copy(dtype):
    """diff(x, 0) is x (prepend and append are checked, not joined): no kernel."""
    x = lambda T: _ones(T, dtype, (2, 3))  # noqa: E731
    check(lambda T: T.diff(x(T), 0), grad=False, match_message=True)
    check(lambda T: x(T).diff(0, -1, None, x(T)), grad=False, match_message=True)
    check(lambda T: T.diff(x(T), 0, 0, x(T)), grad=False, match_message=True)
    check(lambda T: T.diff(x(T), 1, append=x(T)), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
@pytest.mark.parametrize('call', [
    lambda T, x: x.clamp(min=-1, max=2.0), lambda T, x: x.clamp(2, -0.7),
    lambda T, x: T.clamp(x, None, 1.0), lambda T, x: T.clip(x, 2, max=2.5),
    lambda T, x: T.clamp(x, 1, 2), lambda T, x: x.clamp(1), lambda T, x: x.clamp(max=2),
    lambda T, x: x.clamp(x, x), lambda T, x: T.clamp(x, min=x), lambda T, x: x.clip(None, x),
    lambda T, x: T.clamp_min(x, 1), lambda T, x: T.clamp_max(x, 1.5),
    lambda T, x: T.add(x, 4, 2.5), lambda T, x: x.add(3, 0.5), lambda T, x: x.sub(-2, 0.0),
    lambda T, x: x.__sub__(-1, -1.0), lambda T, x: T.add(x, 3, alpha=0.5),
    lambda T, x: T.add(x, 2.5, alpha=2), lambda T, x: T.sub(x, 2),
], ids=['clamp_kw', 'clamp_pos', 'clamp_none', 'clip', 'clamp_ints', 'clamp_min', 'clamp_max',
        'clamp_tensors', 'clamp_min_tensor', 'clip_max_tensor', 'clamp_min_int',
        'clamp_max_float',
        'add_deprecated', 'Tensor.add_deprecated', 'Tensor.sub_deprecated', '__sub__',
        'add_float_alpha', 'add_float', 'sub_int'])
def test_a_float_operand_runs_in_float(dtype, call):
    """A float number among clamp's bounds or add/sub's operands (the deprecated form
    add(input, alpha, other) included) makes torch compute in float: no uint16+ kernel.
    A float alpha of an integral input is refused before that. Other bounds refuse in
    their own kernel's words (clamp_scalar_cpu, clamp_min_scalar_cpu, clamp_cpu...)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T: call(T, _ones(T, dtype, (2, 3))), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
def test_vander_promotes_to_int64(dtype):
    """linalg.vander of uint16+ gives int64 powers in torch; ember's cat of ones and
    powers refused the promotion of uint16+ with int64."""
    check(lambda T: T.linalg.vander(_ones(T, dtype, (4,))), grad=False)
    check(lambda T: T.linalg.vander(_ones(T, dtype, (2, 3)), N=2), grad=False)
    check(lambda T: T.linalg.vander(_ones(T, dtype, ())), grad=False, match_message=True)


@pytest.mark.parametrize('a,b', [('uint32', 'uint16'), ('uint64', 'uint16'),
                                 ('uint16', 'int64'), ('int32', 'uint16'),
                                 ('uint16', 'float64'), ('uint64', 'float16'),
                                 ('uint32', 'uint32')])
def test_ldexp_of_uint16_and_up(a, b):
    """torch's ldexp multiplies by pow(2., other), of other's float type: a uint16+
    operand meets only that float. ember promoted the two operands first, which uint16+
    refuse with another integer dtype."""
    check(lambda T: T.ldexp(_ones(T, a, (2, 3)), _ones(T, b, (2, 3))), grad=False)


@pytest.mark.parametrize('dtype', UINTS)
@pytest.mark.parametrize('eps', [0, 3, 1e-8])
@pytest.mark.parametrize('shape', [(2, 3), (2, 0)])
def test_poisson_nll_loss_adds_eps_as_a_float(dtype, eps, shape):
    """torch's poisson_nll_loss takes eps as a double, so ``input + eps`` is a float even
    for an int eps; ember added an int eps to a uint16+ input (add refused)."""
    check(lambda T: T.nn.functional.poisson_nll_loss(
        _ones(T, dtype, shape), _ones(T, dtype, shape), False, False, eps=eps,
        reduction='none'), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
@pytest.mark.parametrize('call', [
    lambda T, u: T.addmm(u(2, 2), u(2, 0), u(0, 2)),
    lambda T, u: T.addmm(u(2, 2), u(2, 0), u(0, 2), beta=2),
    lambda T, u: T.addmm(u(2), u(2, 0), u(0, 2), beta=0),
    lambda T, u: T.addmm(u(2, 2), u(2, 3), u(3, 2)),
    lambda T, u: T.nn.functional.linear(u(2, 0), u(2, 0), u(2, 1)),
    lambda T, u: T.nn.functional.linear(u(2, 0), u(2, 0), u(2)),
    lambda T, u: T.nn.functional.linear(u(2, 3), u(4, 3), u(4)),
], ids=['addmm', 'addmm_beta', 'addmm_beta0', 'addmm_full', 'linear', 'linear_bias',
        'linear_full'])
def test_a_product_over_an_empty_inner_dim_runs_no_kernel(dtype, call):
    """addmm (and linear) over an empty inner dim answers beta * input in torch, even for
    uint16+; ember refused unless the result was empty."""
    check(lambda T: call(T, lambda *s: _ones(T, dtype, s)), grad=False, match_message=True)


@pytest.mark.parametrize('dtype', UINTS)
@pytest.mark.parametrize('call', [
    lambda x: x.to_sparse_csc(2), lambda x: x.to_sparse_csr(1), lambda x: x.to_sparse_csc(),
    lambda x: x.to_sparse_csr(dense_dim=0), lambda x: x[0, 0].to_sparse_csr(),
], ids=['csc2', 'csr1', 'csc', 'csr0', 'csr_2d'])
def test_compressed_sparse_with_dense_dims(dtype, call):
    """A compressed sparse conversion with dense dims takes the values as blocks: no
    index_select, which refuses uint16+ (ember refused it with dense dims too)."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        check(lambda T: call(_ones(T, dtype, (2, 2, 3, 4))).values(), grad=False,
              match_message=True)


@pytest.mark.parametrize('dtype', ['complex64', 'bool', 'float16', 'int32'])
@pytest.mark.parametrize('call', [
    lambda T, x: x.clamp(min=-1, max=2.0), lambda T, x: T.clamp_min(x, 1.5),
    lambda T, x: T.clip(x, 2, max=2.5), lambda T, x: T.max(x[0], 0),
    lambda T, x: T.amax(x[:0], 0), lambda T, x: T.argmax(x[:1], 0),
    lambda T, x: T.addmm(x[:, :2], x[:, :0], x[:0, :2]),
    lambda T, x: T.ldexp(x, _ones(T, 'uint16', (2, 3))),
], ids=['clamp', 'clamp_min', 'clip', 'max_0d', 'amax_empty', 'argmax_size1',
        'addmm_empty_inner', 'ldexp_uint_exponent'])
def test_other_dtypes_keep_their_refusals(dtype, call):
    """What lifts a uint16+ refusal (a float operand, a call that runs no kernel) leaves
    the other dtypes' refusals as torch's: complex clamps, a bool addmm over an empty
    inner dim (torch's cast of beta * input), a float input's ldexp by a uint16 exponent."""
    check(lambda T: call(T, _ones(T, 'int64', (2, 3)).to(getattr(T, dtype))), grad=False)
