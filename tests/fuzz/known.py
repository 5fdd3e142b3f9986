"""Mismatches with torch the CI sweep (test_fuzz_sweep.py) knows about, each with its reason.

Keyed by (function, category). "left:" entries are real differences not fixed yet (the
detail is the first finding, reproducible with ``python -m tests.fuzz --only NAME``); others
say why ember differs on purpose or which helper owns the fix. Delete an entry once fixed.
"""

KNOWN = {
    ('F.elu_', 'clearly wrong gradients'):
        "torch bug: in-place elu's backward reads the result's sign, wrong for a negative"
        ' input_scale; ember differentiates the function',
    ('F.lp_pool2d', 'clearly wrong gradients'):
        'p < 1 over a window of zeros: torch masks the 0 ** (p - 1) gradient to 0, ember '
        'gives NaN',
    ('float_power', 'clearly wrong gradients'):
        "complex exponent with a zero base: torch's gradient is NaN, ember's 0",
    ('linalg.eigvalsh', 'clearly wrong gradients'):
        "LAPACK's convergence on an ill-conditioned matrix differs between torch's build "
        "and NumPy's",
    ('std_mean', 'clearly wrong gradients'):
        "dim=[] with a correction: torch's backward treats the empty dim list "
        'inconsistently (finite for correction=3, inf for 1); ember keeps its '
        'unbiased=-overload rule',
    ('kron', 'silent acceptance of bad input'):
        "left: torch raises RuntimeError: view size is not compatible with input tensor's"
        ' size and stride (at least one dimension spans across two contiguous subspaces).',
    ('linalg.vecdot', 'silent acceptance of bad input'):
        'left: torch raises RuntimeError: inconsistent tensor size, expected tensor [4] '
        'and src [1] to have the same number of elements, but got 4 and 1 elements '
        'respect',
    ('logspace', 'silent acceptance of bad input'):
        'left: torch raises RuntimeError: logspace only supports 0-dimensional start and '
        'end tensors, but got start with 1 dimension(s) and end with 1 dimension(s).',
    ('normal', 'silent acceptance of bad input'):
        'left: torch raises RuntimeError: value cannot be converted to type int8_t '
        'without overflow',
    ('randint_like', 'silent acceptance of bad input'):
        'left: torch raises RuntimeError: high must be a scalar tensor and on CPU',
    ('F.batch_norm', 'spurious errors'):
        'left: ember raises ZeroDivisionError: integer division or modulo by zero',
    ('F.rms_norm', 'spurious errors'):
        'left: ember raises NotImplementedError: "rms_norm" not implemented for '
        "'ComplexFloat'",
    ('F.scaled_dot_product_attention', 'spurious errors'):
        'left: ember raises ZeroDivisionError: float division by zero',
    ('F.silu', 'spurious errors'):
        'left: ember raises NotImplementedError: "silu_cpu" not implemented for '
        "'ComplexDouble'",
    ('Tensor.__add__', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: Tensor.__add__() got an '
        "unexpected keyword argument 'alpha'",
    ('Tensor.__radd__', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: Tensor.__radd__() takes 2 '
        'positional arguments but 3 were given',
    ('Tensor.__sub__', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: sub() takes 2 positional '
        'arguments but 3 were given',
    ('Tensor.add', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: add() takes 2 positional '
        'arguments but 3 were given',
    ('Tensor.add_', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: add_() takes 2 positional '
        'arguments but 3 were given',
    ('Tensor.cholesky', 'spurious errors'):
        'left: ember raises RuntimeError: cholesky: The input tensor A must have at least'
        ' 2 dimensions.',
    ('Tensor.expand', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: expand() got an unexpected'
        " keyword argument 'implicit'",
    ('Tensor.gather', 'spurious errors'):
        'left: ember raises RuntimeError: gather(): Expected dtype int32/int64 for index',
    ('Tensor.log_softmax', 'spurious errors'):
        'left: ember raises NotImplementedError: "log_softmax_lastdim_kernel_impl" not '
        "implemented for 'Long'",
    ('Tensor.logaddexp', 'spurious errors'):
        "left: ember raises TypeError: ufunc 'logaddexp' not supported for the input "
        'types, and the inputs could not be safely coerced to any supported types '
        'according t',
    ('Tensor.logcumsumexp', 'spurious errors'):
        "left: ember raises TypeError: ufunc 'logaddexp' not supported for the input "
        'types, and the inputs could not be safely coerced to any supported types '
        'according t',
    ('Tensor.round', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: Tensor.round() got an '
        "unexpected keyword argument 'decimals'",
    ('Tensor.scatter_', 'spurious errors'):
        'left: ember raises RuntimeError: scatter(): Expected dtype int32/int64 for index',
    ('Tensor.scatter_add', 'spurious errors'):
        'left: ember raises RuntimeError: scatter(): Expected dtype int32/int64 for index',
    ('Tensor.scatter_add_', 'spurious errors'):
        'left: ember raises RuntimeError: scatter(): Expected dtype int32/int64 for index',
    ('Tensor.sub', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: sub() takes 2 positional '
        'arguments but 3 were given',
    ('Tensor.subtract', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: sub() takes 2 positional '
        'arguments but 3 were given',
    ('Tensor.subtract_', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: sub_() takes 2 positional '
        'arguments but 3 were given',
    ('Tensor.take_along_dim', 'spurious errors'):
        'left: ember raises RuntimeError: gather(): Expected dtype int32/int64 for index',
    ('Tensor.tril_', 'spurious errors'):
        'left: ember raises RuntimeError: tril_: unsupported operation: more than one '
        'element of the written-to tensor refers to a single memory location. Please '
        'clone()',
    ('Tensor.view', 'spurious errors'):
        'left: ember raises RuntimeError: view(dtype): only dtypes of the same size are '
        'supported',
    ('cholesky', 'spurious errors'):
        'left: ember raises RuntimeError: cholesky: Expected a floating point or complex '
        'tensor as input. Got Char',
    ('complex', 'spurious errors'):
        'left: ember raises RuntimeError: complex: ember has no complex32 (ComplexHalf) '
        'dtype; convert the half tensors to float first',
    ('linalg.matrix_norm', 'spurious errors'):
        'left: ember raises IndexError: amax(): Expected reduction dim 0 to have non-zero'
        ' size.',
    ('linalg.pinv', 'wrong values on finite inputs'):
        'ill-posed input: the fuzzer hands a random tensor as rcond (a relative tolerance, '
        'some entries negative) with a rank-1 matrix, so no singular value is cut and both '
        'libraries invert values of about 1e-16: the 1e16-sized results differ by roundoff',
    ('linspace', 'spurious errors'):
        'left: ember raises TypeError: float() argument must be a string or a real '
        "number, not 'complex'",
    ('logaddexp', 'spurious errors'):
        "left: ember raises TypeError: ufunc 'logaddexp' not supported for the input "
        'types, and the inputs could not be safely coerced to any supported types '
        'according t',
    ('logcumsumexp', 'spurious errors'):
        "left: ember raises TypeError: ufunc 'logaddexp' not supported for the input "
        'types, and the inputs could not be safely coerced to any supported types '
        'according t',
    ('roll', 'spurious errors'):
        'left: ember raises IndexError: Dimension out of range (expected to be in range '
        'of [-1, 0], but got 1)',
    ('round', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: round() got an unexpected '
        "keyword argument 'decimals'",
    ('rsub', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: rsub() takes 2 positional '
        'arguments but 3 were given',
    ('scatter', 'spurious errors'):
        'left: ember raises RuntimeError: scatter(): Expected dtype int32/int64 for index',
    ('scatter_add', 'spurious errors'):
        'left: ember raises RuntimeError: scatter(): Expected dtype int32/int64 for index',
    ('sub', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: sub() takes 2 positional '
        'arguments but 3 were given',
    ('subtract', 'spurious errors'):
        'argument layer (owner: argl): ember raises TypeError: sub() takes 2 positional '
        'arguments but 3 were given',
    ('trapezoid', 'spurious errors'):
        'left: ember raises RuntimeError: start (1) + length (2) exceeds dimension size '
        '(2).',
    ('F.hinge_embedding_loss', 'wrong dtype / shape / structure'):
        'integer inputs: torch keeps an integer loss (owner: nnf)',
    ('F.margin_ranking_loss', 'wrong dtype / shape / structure'):
        'integer inputs: torch gives a float loss (owner: nnf)',
    ('bincount', 'wrong dtype / shape / structure'):
        "empty input with integer weights: torch keeps the weights' dtype, ember gives "
        'float64',
    ('unique_consecutive', 'wrong dtype / shape / structure'):
        'torch bug: unique_consecutive(x, True) positionally returns an empty inverse; '
        'ember returns the inverse',
    ('F.linear', 'wrong values on finite inputs'):
        'complex products overflowing to inf: the NaN/inf imaginary part depends on the '
        'BLAS',
    ('Tensor.median', 'wrong values on finite inputs'):
        'torch bug: median along a dim of an expanded (stride-0) input returns a wrong '
        "element; ember's is right",
    ('Tensor.mvlgamma', 'wrong values on finite inputs'):
        'bfloat16 rounding of a special function (owner: special)',
    ('Tensor.nanmedian', 'wrong values on finite inputs'):
        'empty input: torch returns an unspecified value (0 or True); ember returns its '
        'own',
    ('Tensor.pinverse', 'wrong values on finite inputs'):
        'ill-conditioned complex64 matrix: the inverted tiny singular values differ '
        'between LAPACK builds',
    ('Tensor.polygamma', 'wrong values on finite inputs'):
        'polygamma overflows to inf for large orders near poles (owner: special)',
    ('Tensor.put_', 'wrong values on finite inputs'):
        'duplicate indices without accumulate: which write wins is undefined in torch',
    ('Tensor.stride', 'wrong values on finite inputs'):
        'strides of size-1 dims after permute: torch keeps the permuted stride, NumPy '
        'reports its own (no effect on values)',
    ('Tensor.svd', 'wrong values on finite inputs'):
        "float32 matrices holding 1e30: LAPACK builds scale differently (torch's singular"
        ' values overflow)',
    ('bucketize', 'wrong values on finite inputs'):
        'a negative number against uint8 boundaries: torch wraps it into uint8 first',
    ('isin', 'wrong values on finite inputs'):
        "assume_unique=True with duplicates: undefined (torch's and ember's answers "
        'differ, both allowed)',
    ('linalg.lstsq', 'wrong values on finite inputs'):
        "rank-deficient/rcond-truncated systems: torch's gelsy gives a basic solution, "
        'ember the minimum-norm one (both least squares)',
    ('median', 'wrong values on finite inputs'):
        'torch bug: median along a dim of an expanded (stride-0) input returns a wrong '
        "element; ember's is right",
    ('nanmedian', 'wrong values on finite inputs'):
        'empty input: torch returns an unspecified value (0 or True); ember returns its '
        'own',
    ('pinverse', 'wrong values on finite inputs'):
        'rcond=0 on an ill-conditioned matrix: the inverted tiny singular values differ '
        'between LAPACK builds',
    ('polygamma', 'wrong values on finite inputs'):
        'polygamma overflows to inf for large orders near poles (owner: special)',
    ('unique_consecutive', 'wrong values on finite inputs'):
        'torch bug: unique_consecutive(x, True) positionally returns an empty inverse; '
        'ember returns the inverse',
    ('Tensor.chalf', 'spurious errors'):
        'left: ember has no complex32 (ComplexHalf) dtype (owner: issue 14 coverage work)',
    ('Tensor.storage_type', 'wrong values on finite inputs'):
        'left: ember returns a plain class where torch returns its legacy typed-storage class'
        ' (e.g. ComplexFloatStorage) (owner: issue 14 coverage work)',
    ('cumulative_trapezoid', 'spurious errors'):
        'left: x shaped differently from y along dim (torch broadcasts the differences of x '
        'against y) raises in ember (owner: issue 14 coverage work)',
    ('trapz', 'spurious errors'):
        'left: x shaped differently from y along dim (torch broadcasts the differences of x '
        'against y) raises in ember (owner: issue 14 coverage work)',
    ('special.bessel_y1', 'wrong values on finite inputs'):
        "torch's float64 Bessel functions are single-precision accurate; ember uses scipy's "
        'exact values',
    ('special.airy_ai', 'wrong values on finite inputs'):
        "torch's float64 Airy/Bessel functions are single-precision accurate; ember uses "
        "scipy's exact values",
    ('hinge_embedding_loss', 'wrong dtype / shape / structure'):
        'integer inputs: torch keeps an integer loss (owner: nnf)',
    ('matrix_exp', 'wrong values on finite inputs'):
        'torch bug: bfloat16 matrix_exp of a small non-contiguous batch returns garbage '
        '(-1.3e30 on the diagonal where float32 gives 1.2); ember computes it',
    ('view_copy', 'spurious errors'):
        'left: view(dtype) of a 0-dim tensor to a smaller dtype: torch allows it, ember '
        'refuses (owner: issue 14 coverage work)',
    ('linalg.lu', 'spurious errors'):
        'left: pivot=False is refused on the CPU by torch too, but torch accepts it for empty'
        ' matrices (owner: linalg)',
    ('pca_lowrank', 'spurious errors'):
        'left: q=False (a bool, taken as 0 by torch) is refused by the argument check of the '
        'randn ember uses inside (owner: linalg)',
    ('batch_norm', 'spurious errors'):
        'left: an empty 1-D input with running stats of another shape: torch returns an empty'
        ' result, ember checks the dims first (owner: issue 14 coverage work)',
    ('special.log_softmax', 'spurious errors'):
        'left: an integer dtype on an empty tensor: torch returns an empty result, ember '
        'refuses the dtype first (owner: special)',
    ('svd_lowrank', 'wrong values on finite inputs'):
        "random sampling: svd_lowrank starts from a random matrix (ember's generator differs "
        "from torch's), so the singular vectors' signs differ",
    ('svd_lowrank', 'spurious errors'):
        'left: backward through linalg.qr of a wide matrix (m < n) is not implemented (owner:'
        ' linalg)',
    ('linalg.cholesky_ex', 'wrong values on finite inputs'):
        'left: check_errors=False on a matrix that is not positive definite: torch returns '
        "LAPACK's partial factor, ember another partial result (owner: linalg)",
    ('linalg.inv_ex', 'wrong values on finite inputs'):
        'singular matrix with check_errors=False: the result is undefined (torch NaN, ember '
        'inf), info reports the failure in both',
    ('slice_inverse', 'spurious errors'):
        'left: a dim valid for the source but not for the input is refused by ember (owner: '
        'issue 14 coverage work)',
    ('batch_norm_update_stats', 'silent acceptance of bad input'):
        'left: running_mean/running_var are not checked to be 1-D (owner: issue 14 coverage work)',
    ('poisson', 'spurious errors'):
        "left: a rate of 1e30 leaks NumPy's ValueError 'lam value too large' where torch "
        'returns a meaningless -9.2e18 (owner: issue 14 coverage work)',
    ('binomial', 'wrong values on finite inputs'):
        "random sampling: ember's generator differs from torch's (the deterministic "
        'degenerate counts/probabilities match and are pinned in test_found_issue15.py)',
    ('Tensor.cummin', 'spurious errors'):
        "left: torch skips cummin's complex-dtype refusal on an empty input; ember's refusal "
        'table (the argument layer) applies whatever the size',
    ('Tensor.clamp_', 'spurious errors'):
        'left: in-place clamp of a bool tensor with a bool tensor bound: ember promotes the '
        'bound to int64 and refuses the cast back to bool; torch keeps bool',
}
