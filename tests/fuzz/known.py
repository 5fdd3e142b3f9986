"""Mismatches with torch the CI sweep (test_fuzz_sweep.py) knows about, each with its reason.

Keyed by (function, category). "left:" entries are real differences not fixed yet (the
detail is the first finding, reproducible with ``python -m tests.fuzz --only NAME``); others
say why ember differs on purpose or which helper owns the fix. Delete an entry once fixed.
"""

_LOGIC_UINT8_OUT = (
    'torch quirk: all/any with a uint8 out= tensor cast the input to uint8 before testing it '
    '(0.5 and 0.3+2j count as zero); ember tests the values themselves')
_EMPTY_EXTREME_OUT = (
    "torch bug: max/min(empty, out=t) return the dtype's extreme value (-2**63 for int64) "
    'where max/min(empty) refuse: no maximum of no elements ("Expected reduction dim to be '
    'specified for input.numel() == 0"); ember refuses both')
_NORMAL_OUT = (
    "torch quirk: normal(mean_tensor, std_number, out=t) broadcasts mean's shape with out's "
    'current one (a (3, 1) mean into an empty out gives (3, 0), a 0-d mean an empty result '
    "that runs no kernel; (2, 3, 3) with (4, 4) fails); ember's result has mean's shape, as "
    'without out= (out resized to it)')

_IHFFTN_OUT = (
    "torch bug: fft.ihfftn/ihfft2 over a single dim with out= leave out untouched (the "
    "result without out= is right); ember writes it")
_ILL_CHOLESKY = (
    "a random 17x17 triangle taken as a Cholesky factor (--shapes large): its triangle's "
    "condition number is 2e6-5e6, the matrix it factors 4e12-3e13, so float64 gradients of "
    "1e11-1e14 agree to 1e-5 only; the order of the triangular solves' roundings differs "
    "between torch's BLAS and NumPy's")
KNOWN = {
    ('F.elu_', 'clearly wrong gradients'):
        "torch bug: in-place elu's backward reads the result's sign, wrong for a negative"
        ' input_scale; ember differentiates the function',
    ('inverse', 'silent acceptance of bad input'):
        'a float32 batch of singular matrices: whether LU meets an exact zero pivot depends '
        "on the LAPACK build's rounding (torch's MKL finds one and refuses; NumPy's OpenBLAS "
        'leaves a tiny pivot and inverts)',
    ('linalg.eigvalsh', 'clearly wrong gradients'):
        "LAPACK's convergence on an ill-conditioned matrix differs between torch's build "
        "and NumPy's",
    ('unique_consecutive', 'wrong dtype / shape / structure'):
        "torch bug: torch.unique_consecutive's boolean dispatch reads return_counts from "
        'position 1 and return_inverse from position 2 (swapped), so unique_consecutive(x, '
        'True) positionally returns an empty counts tensor and (x, False, True) the inverse; '
        'ember reads the arguments by their names (keyword calls agree)',
    ('narrow_copy', 'clearly wrong gradients'):
        "torch bug: narrow_copy's backward with a negative start writes the gradient "
        "nowhere (all zeros); ember's is narrow's (pinned in test_found_issue15_s3_d.py)",
    ('Tensor.narrow_copy', 'clearly wrong gradients'):
        "torch bug: narrow_copy's backward with a negative start writes the gradient "
        "nowhere (all zeros); ember's is narrow's (see narrow_copy)",
    ('F.batch_norm', 'clearly wrong gradients'):
        "torch bug: batch_norm's backward reads a non-contiguous weight (w[::2]) as if it "
        "were contiguous -- the input's gradient scales channel c by the weight's storage "
        "element c, not w[c] (the weight's own gradient is right); ember's is torch's with "
        "the weight's contiguous copy, which finite differences confirm (pinned in "
        "test_found_issue15_s8_a.py)",
    ('linalg.eigvals', 'silent acceptance of bad input'):
        "a matrix holding NaN: torch's geev (MKL) either fails to converge (LinAlgError) or "
        "kills the process (\"Parameter 3 was incorrect on entry to SGEBAL\", then a "
        "segmentation fault), by the matrix; ember returns NaN eigenvalues, as torch does "
        'for a matrix holding inf',
    ('linalg.pinv', 'silent acceptance of bad input'):
        "a matrix holding inf: whether torch's gesdd (MKL) fails to converge (LinAlgError, "
        "error code 3) or returns NaN singular values depends on the matrix; ember always "
        'gives NaN (and refuses a NaN as torch does)',
    ('Tensor.matrix_exp', 'wrong values on finite inputs'):
        'torch bug: float16 and bfloat16 matrix_exp return garbage (-2.1e4 or -1.3e30 on the '
        'diagonal of a 3x3 matrix whose float32 exponential is about 1); ember computes in '
        'float32 and rounds. Also float64 matrices whose entries span many scales (see '
        'linalg.matrix_exp)',
    ('linalg.matrix_exp', 'wrong values on finite inputs'):
        'torch bug: float16 and bfloat16 matrix_exp return garbage (-2.1e4 or -1.3e30 on the '
        'diagonal); ember computes in float32 and rounds. torch is also wrong on float64 '
        'matrices whose entries span many scales (+-1e30 beside 1): its scaling and squaring '
        '(2**-98, then 98 squarings) loses the small entries -- exp(diag(-1e30, 1)) is '
        'diag(0, e), torch diag(0, 1); exp([[1, 1e30], [0, 1]]) is e times the matrix, torch '
        'the matrix; exp(diag(1e30, 1)) is diag(inf, e), torch NaN. ember is right there '
        '(block triangular structure, balancing by powers of two, Parlett\'s recurrence; '
        'pinned in test_found_issue15_s12_mexp.py). Where such a matrix has eigenvalues of '
        'imaginary part beyond about 1e15 (a rotation by more radians than float64 resolves '
        'the phase of) no answer is meaningful: torch NaN, ember bounded values; where a '
        'dense (irreducible) block overflows, both give inf or NaN',
    ('linalg.solve_ex', 'wrong values on finite inputs'):
        'singular matrix with check_errors=False: the result is undefined (torch NaN, ember '
        'inf), info reports the failure in both',
    ('linalg.lu', 'wrong values on finite inputs'):
        'singular (rank-1) matrices: the multipliers below a zero pivot are rounding '
        'remainders over rounding remainders, different between LAPACK builds (MKL, '
        'OpenBLAS); P @ L @ U reproduces the input in both',
    ('linalg.lu_factor_ex', 'wrong values on finite inputs'):
        'singular (rank-1) matrices: the multipliers below a zero pivot, and so the index '
        'info reports, come from rounding remainders that differ between LAPACK builds',
    ('lobpcg', 'wrong values on finite inputs'):
        'a non-symmetric A is outside lobpcg\'s domain: the two iterations differ and neither '
        'answer means anything; on symmetric positive-definite input the eigenvalues agree '
        '(pinned in test_found_issue15_s3_d.py)',
    ('F.linear', 'wrong values on finite inputs'):
        'complex products overflowing to inf: the NaN/inf imaginary part depends on the '
        'BLAS',
    ('Tensor.median', 'wrong values on finite inputs'):
        'torch bug: median along a dim of an expanded (stride-0) input returns a wrong '
        "element; ember's is right",
    ('Tensor.pinverse', 'wrong values on finite inputs'):
        'ill-conditioned complex64 matrix: the inverted tiny singular values differ '
        'between LAPACK builds',
    ('Tensor.polygamma', 'wrong values on finite inputs'):
        'trigamma at a negative integer (a pole; every float32 beyond 2**24 is one): ember '
        "gives the pole's +inf, torch's kernel a large finite number (pi^2 / sin(pi x)^2 with "
        "sin's rounding, e.g. 2.16e13 at -5)",
    ('Tensor.polygamma_', 'wrong values on finite inputs'):
        'trigamma at a negative integer (a pole; every float32 beyond 2**24 is one): ember '
        "gives the pole's +inf, torch's kernel a large finite number (pi^2 / sin(pi x)^2 with "
        "sin's rounding, e.g. 1.29e15 at -1)",
    ('Tensor.nansum', 'wrong values on finite inputs'):
        'catastrophic cancellation: float32 values holding 1e30, -1e30, 1e30, -1e30 among '
        "small ones sum exactly to -0.0881; torch's answer (-0.41) is a rounding remainder of "
        'its summation order (its own nansum of the flipped tensor gives 0.0, as ember does)',
    ('mvlgamma', 'wrong values on finite inputs'):
        "near a pole of lgamma: torch forms x - j/2 in float32 (-1.5000435 - 0.5 rounds), and "
        "lgamma's slope there (1 / (x + 2) = 23000) turns that ulp into 2.5e-4 of the value; "
        "ember evaluates in float64 and rounds once (10.781682, the exact value; torch 10.784426)",
    ('cholesky_solve', 'clearly wrong gradients'): _ILL_CHOLESKY,
    ('Tensor.cholesky_solve', 'clearly wrong gradients'): _ILL_CHOLESKY,
    ('Tensor.cholesky_inverse', 'clearly wrong gradients'): _ILL_CHOLESKY,
    ('matrix_exp', 'spurious errors'):
        "a complex32 matrix holding NaN: torch's matrix_exp returns NaN before it multiplies, "
        "so its bmm kernel (which refuses ComplexHalf) never runs; ember refuses every "
        "complex32 matrix as torch does a finite one",
    ('nansum', 'wrong values on finite inputs'):
        'catastrophic cancellation, as Tensor.nansum: float32 values holding +-1e30 among small '
        "ones; torch's answer is a rounding remainder of its summation order",
    ('fft.ihfftn', 'wrong values on finite inputs'): _IHFFTN_OUT,
    ('fft.ihfft2', 'wrong values on finite inputs'): _IHFFTN_OUT,
    ('normal', 'silent acceptance of bad input'): _NORMAL_OUT,
    ('normal', 'wrong dtype / shape / structure'): _NORMAL_OUT,
    ('normal', 'spurious errors'): _NORMAL_OUT,
    ('linspace', 'spurious errors'):
        "torch quirk: linspace(complex_start, ..., out=half_t) casts the complex values into "
        "out, where linspace(..., dtype=half) refuses them (\"inferred dtype can't be safely "
        'cast"); ember refuses both (the result of a range with out= has out\'s dtype)',
    ('max', 'spurious errors'): _EMPTY_EXTREME_OUT,
    ('min', 'spurious errors'): _EMPTY_EXTREME_OUT,
    ('diff', 'silent acceptance of bad input'):
        'torch bug: diff of an empty input with prepend/append and out= raises IndexError '
        '("start out of range") where the same call without out= returns the empty result; '
        'ember returns it with or without out=',
    ('all', 'wrong values on finite inputs'): _LOGIC_UINT8_OUT,
    ('any', 'wrong values on finite inputs'): _LOGIC_UINT8_OUT,
    ('Tensor.sum', 'wrong values on finite inputs'):
        'catastrophic cancellation: float32 rows holding -1e30, 1e30 among small ones sum '
        "exactly to 1.0433 (ember, and float64); torch's vectorized order absorbs two of the "
        'small values into 1e30 before it cancels (1.4533)',
    ('histogram', 'wrong values on finite inputs'):
        "torch's CPU capability decides the bin of a value on an inner edge: its linspace "
        'kernel is compiled with fused multiply-adds on AVX2/AVX512, which round the middle '
        'edge of a constant input (x - 0.5, x + 0.5, 100 bins) one ulp above x, so x falls '
        'into bin 49; the exact edge is x (bin 50), which ember and torch with '
        'ATEN_CPU_CAPABILITY=default give. Also (see Tensor.histogram): '
        "torch bug: a constant input too large for its +-0.5 range to change it (|x| >= "
        "2**53 in float64) gets equal edges, and torch's kernel casts (x - left) * bins / "
        "(right - left) = 0 / 0 = NaN to int64 (undefined; on x86 its search then lands in "
        "bin 1); ember's binary search over the equal edges gives the last bin",
    ('Tensor.histogram', 'wrong values on finite inputs'):
        "torch bug: a constant input too large for its +-0.5 range to change it (|x| >= "
        "2**53 in float64) gets equal edges, and torch's kernel casts (x - left) * bins / "
        "(right - left) = 0 / 0 = NaN to int64 (undefined; on x86 its search then lands in "
        "bin 1); ember's binary search over the equal edges gives the last bin",
    ('linalg.svd', 'wrong values on finite inputs'):
        "LAPACK's SVD bounds each singular value's error by eps * the largest only: a float32 "
        'matrix holding +-1e30 has the small singular value 0.1422 (exact, mpmath); MKL '
        "(torch) gets it, OpenBLAS's gesdd (NumPy) gives 4.5e13, within that bound (see "
        'linalg.svdvals)',
    ('F.group_norm', 'wrong values on finite inputs'):
        'a float32 group holding -1e30 among small values: its variance (2.2e59) overflows '
        "float32 on both sides, torch's moments give NaN, ember's 0; the exact result "
        '(-1.414, 0.707, 0.707, which float64 gives in both) is neither',
    ('linalg.eigvals', 'wrong values on finite inputs'):
        "the eigenvalues' order is LAPACK's (geev) and not defined: on a rank-1 matrix MKL "
        "(torch) and OpenBLAS (NumPy) list the same eigenvalues (the trace and two zeros, up "
        'to rounding) in different orders',
    ('linalg.matrix_rank', 'wrong values on finite inputs'):
        'a negative tol makes the threshold max(tol, 0 * largest) = 0, so the rank counts '
        'rounding remainders: the small singular values of a rank-1 float32 matrix are 0 in '
        "MKL's SVD (torch: rank 1) and 1.3e-16 in OpenBLAS's (NumPy: rank 2)",
    ('linalg.svdvals', 'wrong values on finite inputs'):
        "LAPACK's SVD bounds each singular value's error by eps * the largest only: for a "
        'float32 matrix holding 1e30 and 1e-30 the small singular value is 0.34377706 '
        "(exact, mpmath); MKL's gesdd (torch) gets it, OpenBLAS's (NumPy, even in float64) "
        'gives 1.29e14, within that bound (eps * 1e30)',
    ('Tensor.put_', 'wrong values on finite inputs'):
        'duplicate indices without accumulate: which write wins is undefined in torch',
    ('svd', 'wrong values on finite inputs'):
        "LAPACK's SVD bounds each singular value's error by eps * the largest only: the "
        'small singular values of a complex64 matrix holding 1e30 are rounding noise '
        '(1e14 in OpenBLAS, 4.5e22 in MKL; eps * 1e30 is 1.2e23) (see linalg.svd)',
    ('Tensor.svd', 'wrong values on finite inputs'):
        "float32 matrices holding 1e30: LAPACK builds scale differently (torch's singular"
        ' values overflow)',
    ('isin', 'wrong values on finite inputs'):
        "assume_unique=True with duplicates: undefined (torch's and ember's answers "
        'differ, both allowed)',
    ('linalg.lstsq', 'wrong values on finite inputs'):
        "rcond-truncated systems: the rank torch's gelsy (MKL) keeps, and so its solution, "
        "changes with torch's build and thread count; ember runs the same driver through "
        "scipy's LAPACK (the SVD's minimum-norm solution without scipy)",
    ('geqrf', 'wrong values on finite inputs'):
        'rank-deficient matrices: the rounding remainders LAPACK builds (MKL, OpenBLAS) leave '
        'below the diagonal differ, and so do the reflectors built from them (a complex '
        "remainder's phase turns a tau of 0 into one near 2); ember's output is scipy's "
        'LAPACK geqrf bit for bit (pinned in test_found_issue15_s5_h.py)',
    ('Tensor.geqrf', 'wrong values on finite inputs'):
        'rank-deficient matrices: the rounding remainders LAPACK builds (MKL, OpenBLAS) leave '
        "below the diagonal differ, and so do the reflectors built from them; ember's output "
        "is scipy's LAPACK geqrf bit for bit (see geqrf)",
    ('cov', 'silent acceptance of bad input'):
        'torch bug: cov with fweights or aweights (not both) of a single observation subtracts '
        'the mean '
        'from its input in place (a plain input comes back zeroed), so an input that requires '
        "grad, or a view of one, is refused by autograd's in-place check; ember leaves the "
        "input alone and returns torch's values (pinned in test_found_issue15_s5_h.py)",
    ('linalg.ldl_factor', 'silent acceptance of bad input'):
        'a NaN in the input: MKL\'s sytrf (torch) reports a zero pivot for it (info > 0) and '
        "torch then fails its own INTERNAL ASSERT; the reference LAPACK ember calls through "
        'scipy reports none and leaves NaN in LD (pinned in test_found_issue15_s5_h.py)',
    ('F.linear', 'silent acceptance of bad input'):
        "torch bug: a 1-d input with a (1, n) bias works or fails by the bias's memory "
        'layout -- a contiguous one is added by addmm (the (n,) result), a strided one by an '
        'in-place add that refuses to enlarge the result; ember gives the (n,) result for '
        'both (pinned in test_found_issue15_s5_h.py)',
    ('Tensor.cov', 'silent acceptance of bad input'):
        'torch bug: cov with weights and a single observation mutates its input in place '
        "(see cov); ember leaves the input alone and returns torch's values",
    ('median', 'wrong values on finite inputs'):
        'torch bug: median along a dim of an expanded (stride-0) input returns a wrong '
        "element; ember's is right",
    ('pinverse', 'wrong values on finite inputs'):
        'rcond=0 on an ill-conditioned matrix: the inverted tiny singular values differ '
        'between LAPACK builds',
    ('polygamma', 'wrong values on finite inputs'):
        'trigamma at a negative integer (a pole; every float32 beyond 2**24 is one): ember '
        "gives the pole's +inf, torch's kernel a large finite number (pi^2 / sin(pi x)^2 with "
        "sin's rounding, e.g. 2.16e13 at -5)",
    ('special.polygamma', 'wrong values on finite inputs'):
        'trigamma at a negative integer (a pole; every float32 beyond 2**24 is one): ember '
        "gives the pole's +inf, torch's kernel a large finite number (pi^2 / sin(pi x)^2 with "
        "sin's rounding, e.g. 2.16e13 at -5)",
    ('unique_consecutive', 'wrong values on finite inputs'):
        "torch bug: torch.unique_consecutive's boolean dispatch reads return_counts and "
        'return_inverse from swapped positions (see the structure entry)',
    ('special.bessel_y1', 'wrong values on finite inputs'):
        "torch's float64 Bessel functions are single-precision accurate; ember uses scipy's "
        'exact values',
    ('special.bessel_j0', 'wrong values on finite inputs'):
        "torch's float64 Bessel functions are single-precision accurate; ember uses scipy's "
        'exact values',
    ('special.bessel_j1', 'wrong values on finite inputs'):
        "torch's float64 Bessel functions are single-precision accurate; ember uses scipy's "
        'exact values',
    ('special.bessel_y0', 'wrong values on finite inputs'):
        "torch's float64 Bessel functions are single-precision accurate; ember uses scipy's "
        'exact values',
    ('special.airy_ai', 'wrong values on finite inputs'):
        "torch's float64 Airy/Bessel functions are single-precision accurate; ember uses "
        "scipy's exact values",
    ('matrix_exp', 'wrong values on finite inputs'):
        'torch bug: bfloat16 matrix_exp of a small non-contiguous batch returns garbage '
        '(-1.3e30 on the diagonal where float32 gives 1.2); ember computes it. Also float64 '
        'matrices whose entries span many scales (see linalg.matrix_exp)',
    ('linalg.inv_ex', 'wrong values on finite inputs'):
        'singular matrix with check_errors=False: the result is undefined (torch NaN, ember '
        'inf), info reports the failure in both',
    ('binomial', 'wrong values on finite inputs'):
        "random sampling: ember's generator differs from torch's (the deterministic "
        'degenerate counts/probabilities match and are pinned in test_found_issue15.py)',
    ('kron', 'silent acceptance of bad input'):
        "torch bug: kron of a float vector and a non-contiguous bool tensor fails in torch's "
        'own reshape ("view size is not compatible"); ember computes the product',
    ('Tensor.__add__', 'spurious errors'):
        "not supported on purpose: the operator's kernel (a + b) takes two operands only, so "
        'Tensor.__add__(other, alpha=) and __radd__(alpha, other) are refused (Tensor.add '
        'takes both forms); the operator path stays free of argument handling',
    ('Tensor.__radd__', 'spurious errors'):
        "not supported on purpose: the operator's kernel (a + b) takes two operands only, so "
        'Tensor.__add__(other, alpha=) and __radd__(alpha, other) are refused (Tensor.add '
        'takes both forms); the operator path stays free of argument handling',
    ('Tensor.tril_', 'spurious errors'):
        'torch bug: tril_/triu_ skip the internal-overlap check every other in-place op '
        "makes, writing through an expanded (stride-0) tensor; ember refuses as torch's other "
        'in-place ops do',
    ('linalg.pinv', 'wrong values on finite inputs'):
        'ill-conditioned matrix with a tiny or negative rcond: the inverted tiny singular '
        'values differ between LAPACK builds',
    ('Tensor.triu_', 'spurious errors'):
        'torch bug: tril_/triu_ skip the internal-overlap check every other in-place op '
        "makes, writing through an expanded (stride-0) tensor; ember refuses as torch's other "
        'in-place ops do',
    ('native_batch_norm', 'spurious errors'):
        "torch bug: native_batch_norm does not check the sizes of weight, bias and the running "
        'statistics against the channel count (it reads past a short one: garbage values); '
        'ember refuses as the functional form does ("weight should contain 3 elements not 2"). '
        'Also a 1-d input: torch raises IndexError for dim 1 unless an operand is '
        'non-contiguous, when a kernel runs that reads no channel dim (its output is neither '
        "the normalised input nor a refusal); ember always raises torch's IndexError",
    ('lu_unpack', 'spurious errors'):
        "torch bug: lu_unpack does not check the pivots' shape against LU_data's (the "
        "batch of min(m, n) exchanges lu_factor gives): it reads LU's count of them from "
        "the pivots' memory, past the end of a short tensor; ember refuses pivots of another "
        'shape (those of an LU with no rows or columns are not read, in both)',
    ('batch_norm_update_stats', 'spurious errors'):
        "torch bug: batch_norm_update_stats does not check the running statistics' sizes "
        'against the channel count: it updates a short one past its end (memory it does not '
        "own); ember refuses as the functional form does (\"running_mean should contain 2 "
        'elements not 1")',
    ('native_batch_norm', 'silent acceptance of bad input'):
        "torch bug: native_batch_norm's kernel for a strided input or parameter fails an "
        "INTERNAL ASSERT ('t.dim() == 1', \"please report a bug\") on a weight or bias of "
        'more than one dim, which its contiguous kernel takes (any shape of one value per '
        'channel); ember takes them as the contiguous kernel does',
    ('take_along_dim', 'spurious errors'):
        'torch bug: take_along_dim does not bounds-check its indices (an index past the size '
        'reads whatever memory lies there); ember refuses as gather does',
    ('Tensor.take_along_dim', 'spurious errors'):
        'torch bug: take_along_dim does not bounds-check its indices (an index past the size '
        'reads whatever memory lies there); ember refuses as gather does',
    ('take_along_dim', 'silent acceptance of bad input'):
        "torch bug: take_along_dim of an expanded (stride-0) or a 0-d index fails in torch's "
        'own view ("view size is not compatible"); ember computes the gather',
    ('Tensor.take_along_dim', 'silent acceptance of bad input'):
        "torch bug: take_along_dim of an expanded (stride-0) or a 0-d index fails in torch's "
        'own view ("view size is not compatible"); ember computes the gather',
    ('Tensor.kron', 'silent acceptance of bad input'):
        "torch bug: kron of a non-contiguous operand fails in torch's own reshape (\"view "
        'size is not compatible"); ember computes the product',
    ('isin', 'silent acceptance of bad input'):
        "torch bug: isin of a number in a non-contiguous tensor fails in torch's own view "
        '("view size is not compatible"); ember answers',
    ('lobpcg', 'silent acceptance of bad input'):
        "LAPACK's convergence on ill-conditioned matrices differs between torch's build and "
        "NumPy's (and torch's lobpcg fails on float16 with a KeyError); ember answers",
    ('linalg.eigvalsh', 'silent acceptance of bad input'):
        "LAPACK's convergence on an ill-conditioned matrix differs between torch's build and "
        "NumPy's: torch's eigh fails where NumPy's converges",
    ('Tensor.svd', 'silent acceptance of bad input'):
        "LAPACK's convergence on an ill-conditioned matrix differs between torch's build and "
        "NumPy's: torch's gesdd fails where NumPy's converges",
    ('linalg.lstsq', 'silent acceptance of bad input'):
        "torch bug: a matrix right-hand side one dim shorter than A (A (2, 3, 3), B (3, 3)) "
        "has its batch taken from B.shape[:-1] rather than B.shape[:-2] (the documented "
        "broadcasting): torch refuses it, or returns a batch too many ((1, 3, 4) with (3, 5) "
        "gives (3, 4, 5)); ember broadcasts as documented, as torch does for B.unsqueeze(0) "
        '(pinned in test_found_issue15_s4_e.py)',
    ('Tensor.cholesky', 'silent acceptance of bad input'):
        'a float32 matrix on the edge of positive-definiteness: whether the last pivot '
        'rounds positive differs between LAPACK builds',
    ('std', 'clearly wrong gradients'):
        'torch bug: at a constant input the gradient of std is a sign of the mean\'s '
        'rounding remainder -- torch gives +-1/sqrt(n (n - correction)) or 0 as its mean of '
        'equal values rounds above, below or onto them (0.5245 x 6: -0.18, -6.2296 x 6: '
        '+0.18, 1.0 x 6: 0); ember gives the 0 torch gives when its std is exactly 0 '
        '(pinned in test_found_issue15_s4_g.py)',
    ('Tensor.std', 'clearly wrong gradients'):
        "torch bug: at a constant input the gradient of std is a sign of the mean's "
        'rounding remainder (see std); ember gives 0 as torch does where its std is 0',
    ('var', 'wrong values on finite inputs'):
        'torch bug: the variance of equal float32 values (1e30 x 16) is 0; torch gives inf '
        '(its float32 mean is off by a rounding remainder whose square overflows, and its '
        'std of the same values is 7.8e22, not sqrt(inf)); ember gives 0 (pinned in '
        'test_found_issue15_s4_g.py)',
    ('Tensor.var', 'wrong values on finite inputs'):
        'torch bug: the variance of equal float32 values (1e30 x 16) is 0; torch gives inf '
        '(see var)',
    ('std', 'wrong values on finite inputs'):
        'torch bug: the std of equal float32 values (1e30 x 16) is 0; torch gives 7.8e22 '
        '(see var)',
    ('Tensor.std', 'wrong values on finite inputs'):
        'torch bug: the std of equal float32 values (1e30 x 16) is 0; torch gives 7.8e22 '
        '(see var)',
    ('nanmedian', 'wrong values on finite inputs'):
        'torch bug: nanmedian along a dim of an expanded (stride-0) input returns a wrong '
        'element (9.1e-44 among [3, 1, 2, 5, 4] repeated), as median does; ember\'s is the '
        "contiguous copy's",
    ('Tensor.nanmedian', 'wrong values on finite inputs'):
        'torch bug: nanmedian along a dim of an expanded (stride-0) input returns a wrong '
        "element, as median does; ember's is the contiguous copy's",
    ('cumprod', 'clearly wrong gradients'):
        'torch bug: cumprod of a complex input with a real dtype= differentiates with the '
        'complex input\'s values, not the real ones it multiplied (its gradient has an '
        'imaginary part the function does not depend on); ember matches finite differences '
        'and torch\'s own x.to(dtype).cumprod() (pinned in test_found_issue15_s4_g.py)',
    ('Tensor.cumprod', 'clearly wrong gradients'):
        'torch bug: cumprod of a complex input with a real dtype= differentiates with the '
        "complex values (see cumprod); ember's matches finite differences",
    ('matrix_exp', 'silent acceptance of bad input'):
        "torch bug: matrix_exp of an expanded (stride-0) batch of more than one batch dim "
        "fails in torch's own view (\"view size is not compatible\"); ember computes it, as "
        'torch does for the contiguous copy',
    ('Tensor.matrix_exp', 'silent acceptance of bad input'):
        "torch bug: matrix_exp of an expanded batch fails in torch's own view (see matrix_exp)",
    ('linalg.matrix_exp', 'silent acceptance of bad input'):
        "torch bug: matrix_exp of an expanded batch fails in torch's own view (see matrix_exp)",
    ('pixel_unshuffle', 'wrong dtype / shape / structure'):
        'torch bug: pixel_unshuffle of an empty input returns it unchanged ((3, 0, 2) by 2 '
        "stays (3, 0, 2)); ember gives the documented shape (12, 0, 1)",
    ('F.pixel_unshuffle', 'wrong dtype / shape / structure'):
        'torch bug: pixel_unshuffle of an empty input returns it unchanged (see '
        'pixel_unshuffle)',
    ('linalg.lstsq', 'wrong dtype / shape / structure'):
        "torch bug: a right-hand side one dim shorter than A takes its batch from "
        "B.shape[:-1] (see lstsq's silent acceptance entry); ember broadcasts as documented",
    ('Tensor.put', 'wrong values on finite inputs'):
        'duplicate indices without accumulate: which write wins is undefined in torch',
    ('Tensor.pinverse', 'silent acceptance of bad input'):
        "LAPACK's convergence on an ill-conditioned matrix differs between torch's build and "
        "NumPy's: torch's gesdd fails where NumPy's converges",
    ('F.multi_margin_loss', 'wrong values on finite inputs'):
        "torch bug: the 'mean' or 'sum' of an empty input is an uninitialized value "
        '(1.2e-26, 139701052710080...); ember gives the mean of nothing (NaN; 0 in an integer '
        'dtype) and a sum of 0',
    ('F.multilabel_margin_loss', 'wrong values on finite inputs'):
        "torch bug: the 'mean' or 'sum' of an empty input is an uninitialized value (see "
        'F.multi_margin_loss)',
    ('conv1d', 'wrong dtype / shape / structure'):
        'torch bug: a convolution of an input with no channels returns no output channels '
        "either ((3, 0, 2) by a (3, 0, 2) weight gives (3, 0, 1)); ember gives the weight's 3 "
        'channels of zeros (the empty sum)',
    ('batch_norm', 'wrong values on finite inputs'):
        'training over a channel of one value: the normalised value is exactly 0; torch\'s '
        'float32 mean leaves a rounding remainder that a tiny eps amplifies (-1.3e-4 with eps '
        '1e-8)',
    ('F.batch_norm', 'wrong values on finite inputs'):
        'training over a channel of one value: the normalised value is exactly 0; torch\'s '
        'float32 mean leaves a rounding remainder that a tiny eps amplifies (see batch_norm)',
    ('Tensor.cholesky', 'spurious errors'):
        'a float32 matrix on the edge of positive-definiteness: whether the last pivot '
        'rounds positive differs between LAPACK builds',
    ('pinverse', 'clearly wrong gradients'):
        'singular (expanded) input with a negative rcond: the inverted tiny singular values, '
        'and so the gradient (1e34), differ between LAPACK builds',
    ('ctc_loss', 'spurious errors'):
        'torch bug: float targets are read as class indices without a bounds check (6.4 reads '
        'past the 2 classes: inf); ember refuses the index',
    ('linalg.eig', 'wrong values on finite inputs'):
        "the eigenvalues' order is LAPACK's (geev) and not defined: on a rank-1 matrix MKL "
        "(torch) and OpenBLAS (NumPy) list the same eigenvalues in different orders",
    ('addmv', 'wrong dtype / shape / structure'):
        'torch bug: addmv with an empty inner dim (a (2, 0) matrix) returns self as given '
        '(shape [1], "An output with one or more elements was resized") instead of self '
        'broadcast to the 2 rows; ember broadcasts, as addmm does',
    ('native_group_norm', 'spurious errors'):
        "torch bug: aten's native_group_norm does not check that the channels divide into "
        'the groups (3 channels, 2 groups answers); ember refuses as F.group_norm does',
    ('lobpcg', 'spurious errors'):
        'a singular B (all entries equal) is outside lobpcg\'s domain (B must be positive '
        "definite): torch's iteration answers regardless, ember's Cholesky of B refuses it",
    ('linalg.slogdet', 'wrong values on finite inputs'):
        'an exactly singular matrix: whether its LU pivot rounds to exactly 0 (torch: sign 0, '
        'logabsdet -inf) or to 1e-15 (ember: a finite logabsdet) differs between LAPACK builds',
    ('cholesky_inverse', 'wrong values on finite inputs'):
        'a complex factor with a zero on its diagonal (singular): the result is undefined; '
        "MKL's complex division gives inf, NumPy's (inf * 0 terms) NaN",
    ('native_group_norm', 'wrong values on finite inputs'):
        "torch bug: aten's native_group_norm does not check that the channels divide into "
        'the groups, so its statistics run over misaligned groups; ember refuses such a call '
        '(see the spurious-errors entry)',
    ('F.scaled_dot_product_attention', 'spurious errors'):
        "torch bug: torch's fused CPU attention does not check that key and value have the "
        'same sequence length (1 key, 3 values answers, reading the first value); ember\'s '
        "matmul refuses the mismatch",
    ('Tensor.baddbmm_', 'spurious errors'):
        'torch bug: baddbmm_ skips the internal-overlap check every other in-place op makes '
        '(addmm_ refuses an expanded self), so its result on an expanded self depends on the '
        'write order; ember refuses, as torch does for addmm_',
    ('linalg.cholesky_ex', 'wrong values on finite inputs'):
        'a float32 matrix on the edge of positive-definiteness: which pivot first rounds '
        'non-positive (info) and the partial factor differ between LAPACK builds (see '
        'Tensor.cholesky)',
    ('Tensor.to', 'spurious errors'):
        "torch bug: Tensor.to(1.5) reads a float number as the dtype float64 (to(True) as "
        "bool): torch's parser takes any number where it wants a dtype; ember refuses it",
    ('Tensor.pow', 'wrong values on finite inputs'):
        'torch bug: a complex base near 0 to a negative whole power that overflows: torch\'s '
        "polar form puts inf in a part whose exact value is 0 or finite ((1e-20+1e-20j) ** -8 "
        "is 1e160 / 16, real: torch inf-infj), and a tensor exponent garbage (** tensor(-2) "
        "is -5e39j: torch -2.2e32-infj); ember gives the exact power rounded part by part "
        "(inf+0j, 0-infj; for a number exponent -1 or -2 it follows torch's reciprocal), "
        'pinned against exact rational arithmetic in test_found_issue15_s11_left.py',
    ('F.silu', 'spurious errors'):
        'torch inconsistency: silu of a complex tensor that requires grad refuses ("silu does '
        'not support automatic differentiation for outputs with complex dtype"), but '
        'silu(x, inplace=True) records SiluBackward0 for it; ember refuses both',
    ('var_mean', 'wrong values on finite inputs'):
        'catastrophic cancellation: float32 values holding 1e30 and -1e30 among small ones '
        "have an exact mean of 0.0217; torch's running (Welford) mean gives -0.0213, its plain "
        "mean -0.127, ember's 0.0 -- each a rounding remainder of its summation order",
    ('put', 'wrong values on finite inputs'):
        'duplicate indices without accumulate: which write wins is undefined in torch (its '
        "order follows the source's memory layout: a transposed source gives another winner "
        'than its contiguous copy); ember writes in logical order',
    ('pow', 'wrong values on finite inputs'):
        'torch bug: a complex 0 to a complex tensor exponent 0 (or -0) is NaN+NaNj (its '
        "kernel's exp(0 * log 0)); torch's number-exponent path, Python and NumPy give 1, as "
        'ember does',
    ('linalg.eigvalsh', 'spurious errors'):
        "a matrix holding inf and NaN: LAPACK's answer differs between builds -- torch's "
        '(MKL) returns finite garbage for some ([-1.41, 1, 1.41] for [[1, 0, 0], [0, inf, 0], '
        "[0, 1, nan]]) and fails on others; NumPy's fails to converge, so ember raises "
        "torch's LinAlgError",
    ('_foreach_powsum', 'wrong values on finite inputs'):
        'torch bug: a complex tensor with a real dtype: torch drops the imaginary part for a '
        'one-element tensor (|Re z| ** ord) but uses |z| for longer ones, and gives garbage '
        '(5e14, 1e-38) for bfloat16; ember always uses |z| rounded to the dtype, as torch '
        'does for tensors of several elements',
    ('instance_norm', 'wrong values on finite inputs'):
        'one value per instance (input (1, 3)): the exact result is 0 (x - its own mean); '
        "torch's mean carries a ~1e-8 rounding error that eps=1e-8 magnifies to 1e-4",
    ('Tensor.addbmm_', 'spurious errors'):
        'torch bug: addbmm_ resizes a self that only broadcasts to the product (shape (3,) '
        'becomes (3, 3)) -- an in-place op never changes its shape, addmm_ and baddbmm_ '
        'refuse ("Bad in-place call"), and for a (3, 1) self the values read the overlapping '
        'old storage (wrong); ember refuses',
    ('logspace', 'wrong values on finite inputs'):
        'torch bug: base 0 to a complex exponent 0 (steps=1 with a complex end, start 0) is '
        "NaN+NaNj (its complex pow's exp(0 * log 0), see pow); with a real end torch gives 1, "
        'as ember does for both',
    ('F.layer_norm', 'wrong values on finite inputs'):
        'torch bug: float32/bfloat16 values beyond ~1.8e19: their squares (or the row sum) '
        "overflow torch's float32 statistics: NaN ([1e30, -2e30, 3]), or 0 for [2e19, -2e19, "
        '1, 0], whose exact normalisation is [1.41, -1.41, 0, 0]; ember recomputes such rows '
        "in float64 and gives torch's float64 answer rounded (pinned in "
        'test_found_issue15_s11_left.py)',
    ('index_put_', 'silent acceptance of bad input'):
        "torch bug: a 0-d mask index (bool, or the deprecated uint8) fails an INTERNAL ASSERT "
        "in index_put_ (\"ntensor >= 3\", \"please report a bug\"), which torch's own "
        'x[mask] takes (it adds a dim of 1); ember puts through it as indexing reads it',
    ('linalg.det', 'clearly wrong gradients'):
        "torch bug: det's backward at a singular matrix of rank n-1 returns zeros; the "
        'derivative is the adjugate, which ember returns (finite differences agree; pinned '
        'in test_found_issue15.py)',
    ('Tensor.det', 'clearly wrong gradients'):
        "torch bug: det's backward at a singular matrix of rank n-1 returns zeros (see "
        'linalg.det)',
    ('det', 'clearly wrong gradients'):
        "torch bug: det's backward at a singular matrix of rank n-1 returns zeros (see "
        'linalg.det)',
    ('batch_norm', 'silent acceptance of bad input'):
        "torch bug: a (1, C) weight is accepted when contiguous but fails torch's internal "
        'assert (t.dim() == 1) when expanded from (1, 1); ember takes both, as torch takes '
        'the contiguous one',
    ('group_norm', 'wrong values on finite inputs'):
        "a float32 group of one element, -1e30: torch's moments square it (1e60 overflows "
        'float32) and give NaN; the exact result is 0 (x - mean), which ember gives',
    ('cov', 'wrong values on finite inputs'):
        'BLAS rounding: complex cov with correction >= the number of observations divides by '
        'zero degrees of freedom, so the diagonal\'s imaginary part -- exactly 0 in exact '
        'arithmetic, a rounding remainder of about 1e-16 in the complex matrix product -- '
        'becomes +-inf by the sign of that remainder, which depends on the product\'s '
        'summation order (torch itself gives +inf for a contiguous input and -inf for its '
        'transposed copy)',
    ('corrcoef', 'wrong values on finite inputs'):
        'a constant row: its correlation is 0 / 0; whether the rounded mean leaves an exact '
        'zero variance (NaN) or a tiny one (1) differs between the two reductions',
    ('Tensor.corrcoef', 'wrong values on finite inputs'):
        'a constant row: its correlation is 0 / 0 (see corrcoef)',
    ('nuclear_norm', 'clearly wrong gradients'):
        'a rank-deficient matrix: the nuclear norm is not differentiable there; torch\'s '
        'gradient U V^H includes the arbitrary singular vectors of the zero singular values '
        '(whatever LAPACK picks), ember\'s those of the nonzero ones',
    ('linalg.lu', 'clearly wrong gradients'):
        "a singular matrix with nonzero pivots but the last: torch's backward solves with "
        'the singular U (NaN); the factors are differentiable there, and ember\'s gradient '
        'is finite',
    ('Tensor.logdet', 'wrong values on finite inputs'):
        'a singular matrix: whether the last pivot rounds to exactly 0 (torch: -inf) or to '
        "1e-8 (ember: a finite logarithm of a negative determinant, NaN) differs between "
        'LAPACK builds',
    ('slogdet', 'wrong values on finite inputs'):
        'a singular matrix: whether the last pivot rounds to exactly 0 (sign 0, -inf) or to '
        '1e-15 differs between LAPACK builds (see linalg.slogdet)',
    ('det', 'wrong values on finite inputs'):
        'complex64 pivots whose product overflows: torch multiplies them to NaN+NaNj, '
        'ember to inf+infj (both non-finite)',
    # -- fresh seeds 15000-15039 --
    ('logdet', 'wrong values on finite inputs'):
        'an exactly singular (rank-1, expanded) matrix: whether the last pivot is exactly 0 '
        "(ember's OpenBLAS: -inf, the exact answer) or a rounding remainder (torch's MKL: "
        '-50) differs between LAPACK builds (see Tensor.logdet)',
    ('Tensor.lu', 'wrong values on finite inputs'):
        'singular (rank-1) matrices: the multipliers below a zero pivot are not determined '
        '(see linalg.lu); P @ L @ U reproduces the input in both',
    ('linalg.solve', 'spurious errors'):
        'an exactly singular float32 (rank-1, expanded) matrix: whether LU meets an exact zero '
        'pivot (refused) or a rounding remainder differs between LAPACK builds (see '
        'linalg.lu_factor)',
    ('linalg.solve_ex', 'spurious errors'):
        'an exactly singular (rank-1, expanded) matrix with check_errors=True: whether its LU '
        'meets an exact zero pivot (refused) or a rounding remainder differs between LAPACK '
        'builds (see linalg.solve)',
    ('linalg.eigvalsh', 'wrong values on finite inputs'):
        'LAPACK rounding: eigenvalues are accurate to about eps * ||A||, so the zero '
        'eigenvalues of a matrix of equal 1e30 entries come out as rounding noise of 1e14 '
        '(-3.1e14 in one build, -2.1e14 in the other)',
    ('lobpcg', 'clearly wrong gradients'):
        'a degenerate eigenvalue (a constant matrix: 0 twice): its eigenvector is any unit '
        'vector of a plane, and the gradient v v^T of the eigenvalue depends on which one '
        "each build's iteration lands on; undefined",
    ('linalg.solve_triangular', 'wrong dtype / shape / structure'):
        "torch bug: a real A with a complex B -- torch casts B to A's dtype and drops the "
        'imaginary part (with a warning); ember promotes to complex and keeps it (a '
        'difference on purpose, pinned in test_found_issue15_values.py)',
    ('linalg.eigh', 'silent acceptance of bad input'):
        "a matrix holding inf (beside 1e30): whether torch's (MKL) eigensolver returns NaN "
        'or fails to converge depends on where the inf sits ([[1, inf], [inf, 1]]: NaN; '
        '-inf in a corner of a 3x3: LinAlgError); ember returns NaN for every matrix with an '
        'inf (and raises for a NaN, as torch)',
    ('linalg.inv', 'silent acceptance of bad input'):
        'an exactly singular complex64 (rank-1, expanded) matrix: whether its LU meets an '
        'exact zero pivot (refused) or a rounding remainder (a huge inverse) differs between '
        'LAPACK builds (see linalg.solve)',
    ('linalg.matrix_power', 'spurious errors'):
        'a negative power of an exactly singular float32 (rank-1, expanded) matrix: whether '
        "the inverse's LU meets an exact zero pivot (refused) or a rounding remainder differs "
        'between LAPACK builds (see linalg.inv)',
    ('cholesky_solve', 'wrong values on finite inputs'):
        'a complex factor with a zero on its diagonal (singular): the result is undefined; '
        "torch's solves give NaN throughout, ember's substitution inf (x / 0) in the row of "
        'the zero and NaN before it (see cholesky_inverse)',
    ('linalg.ldl_factor_ex', 'wrong values on finite inputs'):
        'a constant complex matrix (rank 1, singular): MKL\'s complex division a / a gives '
        '1 + 8.8e-9j, leaving a nonzero D pivot (info 3) where the exact quotient 1 leaves '
        "ember's exactly 0 (info 2); LAPACK rounding",
    ('matrix_power', 'spurious errors'):
        'a negative power of an exactly singular (constant) matrix: whether the inverse\'s LU '
        'meets an exact zero pivot (refused: a - (a / a) * a is 0) or a rounding remainder '
        "(MKL's multiplier a * (1 / a) is not 1) differs between LAPACK builds",
    ('Tensor.det', 'wrong values on finite inputs'):
        'an exactly singular (rank-1, expanded) float32 matrix: ember gives its determinant '
        "0; torch's LU (MKL) of the strided input leaves remainders 1e-8, 1e-16, ... that "
        'underflow and divide to inf and NaN (its contiguous copy gives 0)',
    ('linalg.eigh', 'wrong values on finite inputs'):
        'LAPACK rounding: eigenvalues are accurate to about eps * ||A||, so the small ones of '
        'a complex64 matrix holding 1e30 are rounding noise of 1e14 to 1e22 (eps * 1e30 is '
        '1.2e23) that differs between builds (see linalg.eigvalsh)',
    ('linalg.lu_factor', 'wrong values on finite inputs'):
        'a rank-1 (expanded) matrix: after the first step the column is rounding remainders, '
        'so the next pivot row and the multipliers below it differ between LAPACK builds '
        '(P @ L @ U reproduces the input in both)',
    ('svd', 'clearly wrong gradients'):
        'a rank-deficient matrix (a constant 2x2): its zero singular value is a rounding '
        'remainder (2.2e-16 in MKL, another in OpenBLAS), and the singular vectors\' '
        'gradient terms divided by it differ between builds (1e-4 relative here)',
    ('linalg.svd', 'clearly wrong gradients'):
        'a rank-deficient (constant) matrix: the zero singular value and its singular vectors '
        'are not determined (see linalg.svdvals and svd)',
    ('linalg.svdvals', 'clearly wrong gradients'):
        'a rank-deficient (constant) matrix: a zero singular value is not differentiable '
        '(|s| at 0; its singular vectors are any of a plane), and the u v^H each build '
        'returns for it, so the gradient, differs',
    ('Tensor.svd', 'clearly wrong gradients'):
        'a rank-deficient (constant) matrix: the zero singular value and its singular vectors '
        'are not determined (see linalg.svdvals and svd)',
    ('linalg.cholesky_ex', 'clearly wrong gradients'):
        'a singular positive semi-definite matrix (rank 1) with check_errors=False: the '
        'factor past the zero pivot, and so its gradient (1e32 in both), is rounding '
        'remainders that differ between LAPACK builds',
    ('Tensor.lu', 'clearly wrong gradients'):
        'a wide rank-1 matrix: LU is not differentiable where the leading square block of U '
        "is singular; ember's pivot is exactly 0 (NaN gradient), torch's MKL leaves a "
        '-2.8e-17 remainder that its backward divides by and happens to cancel',
    ('linalg.solve', 'wrong values on finite inputs'):
        'a matrix of condition 3e31 (holding 1e30 and 1e-30): an element 1e17 times smaller '
        "than the solution's norm is rounding noise in both (ember's agrees with NumPy's "
        "solve, torch's MKL gives -1.6e13 where the exact value is 1.52)",
    ('Tensor.slogdet', 'wrong values on finite inputs'):
        'an exactly singular (expanded) matrix: whether the last pivot is exactly 0 (sign 0, '
        '-inf) or a rounding remainder differs between LAPACK builds (see linalg.slogdet)',
    ('corrcoef', 'clearly wrong gradients'):
        'constant rows: the correlation is 0 / 0, its gradient too; whether the rounded '
        'mean leaves an exact zero deviation (ember: 0) or a remainder that the backward '
        'divides by (torch: -0.25) differs between the two reductions (see the values entry)',
    ('inverse', 'spurious errors'):
        'an exactly singular (rank-1, expanded) float64 matrix: ember\'s LU meets an exact '
        "zero pivot and refuses, torch's MKL a rounding remainder and inverts it (garbage "
        'of 1e16); see the silent-acceptance entry',
    ('linalg.inv', 'spurious errors'):
        'an exactly singular (rank-1, expanded) matrix: exact zero pivot or rounding '
        'remainder, by LAPACK build (see inverse)',
    ('linalg.inv_ex', 'spurious errors'):
        'an exactly singular (rank-1, expanded) matrix: exact zero pivot or rounding '
        'remainder, by LAPACK build (see inverse)',
    ('Tensor.inverse', 'spurious errors'):
        'an exactly singular (rank-1, expanded) matrix: exact zero pivot or rounding '
        'remainder, by LAPACK build (see inverse)',
    ('linalg.lu_factor_ex', 'spurious errors'):
        'an exactly singular (rank-1, expanded) float32 matrix with check_errors=True: '
        'whether a pivot is exactly 0 (refused) or a rounding remainder differs between '
        'LAPACK builds (see linalg.lu_factor)',
    ('linalg.lu_factor', 'spurious errors'):
        'a singular matrix: whether a pivot rounds to exactly 0 (refused) or to 1e-8 '
        'differs between LAPACK builds',
    ('linalg.lu_factor', 'silent acceptance of bad input'):
        'a singular matrix: whether a pivot rounds to exactly 0 (refused) or to 1e-8 '
        'differs between LAPACK builds (see the spurious-errors entry)',
    ('linalg.lu_factor_ex', 'silent acceptance of bad input'):
        'a singular matrix: whether a pivot rounds to exactly 0 (refused with '
        'check_errors) or to 1e-16 differs between LAPACK builds',
    ('linalg.ldl_factor', 'spurious errors'):
        'a singular matrix: whether D rounds to exactly 0 (refused) or to 1e-8 differs '
        'between LAPACK builds',
    ('cholesky', 'silent acceptance of bad input'):
        'a positive semi-definite (singular) matrix: whether its last leading minor rounds '
        'below 0 (refused) or to a tiny positive value differs between LAPACK builds',
    ('linalg.svd', 'silent acceptance of bad input'):
        "torch's gesdd (MKL) fails to converge on some matrices with repeated singular "
        'values (LinAlgError); NumPy\'s LAPACK converges',
    ('pinverse', 'silent acceptance of bad input'):
        "torch's gesdd (MKL) fails to converge on some ill-conditioned matrices "
        '(LinAlgError); NumPy\'s LAPACK converges (see linalg.pinv)',
    ('linalg.ldl_factor_ex', 'silent acceptance of bad input'):
        "a matrix holding inf: torch's sytrf reports an illegal argument and torch fails "
        'its own internal assert; ember factors it (inf entries in LD), as for other '
        'non-finite input',
    ('Tensor.cholesky_solve', 'wrong values on finite inputs'):
        'a factor of +-1e30 entries: each substitution cancels two products of 1e30 to '
        'rounding noise, which float32 flushes to 0 in torch and keeps (5e15) in ember; '
        'neither means anything',
}
# (the same torch bug in every convolution)
for _name in ('conv2d', 'conv3d', 'F.conv1d', 'F.conv2d', 'F.conv3d'):
    KNOWN[(_name, 'wrong dtype / shape / structure')] = \
        KNOWN[('conv1d', 'wrong dtype / shape / structure')]
for _name in ('conv1d', 'conv2d', 'conv3d', 'F.conv1d', 'F.conv2d', 'F.conv3d'):
    KNOWN[(_name, 'spurious errors')] = (
        'torch bug: a convolution of an input with no channels returns early, before its '
        'check that input and weight share a dtype (a uint8 input by a float32 weight gives '
        "float32); ember refuses the mix, as torch does for an input with channels")
del _name
