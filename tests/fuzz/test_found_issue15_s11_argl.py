"""Findings of the fuzzer's out= and wrong-type modes (issue 15, session 11, helper argl):
exception classes where torch checks something else before its kernel's dtype refusal,
each pinned against torch."""
import pytest

from tests.oracle.oracle import check

# (op, refused input dtype, number of tensor operands, out dtype): torch's elementwise ops
# check out's dtype before their kernel's dtype support
_OUT_FIRST = [
    ('bitwise_not', 'float64', 1, 'bfloat16'),
    ('bitwise_not', 'complex64', 1, 'int16'),
    ('abs', 'bool', 1, 'float32'),
    ('frac', 'int64', 1, 'float32'),
    ('round', 'complex64', 1, 'float32'),
    ('floor', 'bool', 1, 'uint8'),
    ('trunc', 'bool', 1, 'float64'),
    ('nn.functional.gelu', 'int32', 1, 'uint8'),
    ('nn.functional.softplus', 'complex128', 1, 'bool'),
    ('nn.functional.softplus', 'int64', 1, 'float32'),
    ('bitwise_or', 'complex128', 2, 'bool'),
    ('bitwise_and', 'float32', 2, 'int64'),
    ('gcd', 'float64', 2, 'uint8'),
    ('lcm', 'complex64', 2, 'float32'),
    ('atan2', 'complex64', 2, 'float64'),
    ('hypot', 'int64', 2, 'bool'),
    ('special.i0e', 'complex64', 1, 'int32'),
    ('special.log_ndtr', 'complex128', 1, 'bfloat16'),
    ('special.xlogy', 'complex64', 2, 'float32'),
    ('special.gammainc', 'complex64', 2, 'float32'),
    ('special.chebyshev_polynomial_w', 'float16', 2, 'bool'),
    ('special.hermite_polynomial_he', 'float16', 2, 'int64'),
    # (the kernel's refusal stands: out castable, or an op whose refusal comes first)
    ('bitwise_or', 'float64', 2, 'complex128'),
    ('ceil', 'complex64', 1, 'float32'),
    ('gt', 'complex64', 2, 'float32'),
    ('lcm', 'float64', 2, 'complex64'),
]


@pytest.mark.parametrize('op,dtype,n,out_dtype', _OUT_FIRST,
                         ids=[f'{o}-{d}-{od}' for o, d, _, od in _OUT_FIRST])
def test_elementwise_out_dtype_checked_before_kernel_dtype(op, dtype, n, out_dtype):
    """A refused input dtype with out= of another dtype: torch's iterator first checks that
    the common dtype casts into out ("result type ComplexDouble can't be cast to the desired
    output type Bool"), or, for the same-dtype unary ops, that out has the input's dtype
    ("Found dtype BFloat16 but expected Double"); ember raised the kernel's
    NotImplementedError."""
    def f(T):
        fn = T
        for part in op.split('.'):
            fn = getattr(fn, part)
        x = T.tensor([[0.5, 1.5], [2.0, 3.0]]).to(getattr(T, dtype))
        return fn(*([x] * n), out=T.empty(0, dtype=getattr(T, out_dtype)))
    check(f, grad=False, match_message=True)


_CAT = [
    ('cat', [(2, 3), (2, 4)], 'bool', {}),
    ('cat', [(2, 3), (3, 3, 3)], 'bool', {}),
    ('cat', [(0,), (3, 3)], 'bool', {'dim': 1}),
    ('cat', [(3,), (3,)], 'bool', {'dim': 1}),       # (the dim's IndexError first)
    ('cat', [(), (3,)], 'bool', {}),                 # (the zero-dim refusal first)
    ('concat', [(2, 3), (2, 4)], 'int8', {}),
    ('stack', [(3,), (3,)], 'bool', {'dim': 1}),
    ('stack', [(3,), (4,)], 'bool', {}),             # (stack's sizes first)
    ('hstack', [(3,), (3, 3)], 'bool', {}),
    ('vstack', [(3,), (3, 3, 3)], 'int64', {}),
    ('dstack', [(3,), (3, 3, 3, 3)], 'bool', {}),
    ('column_stack', [(3,), (3, 3, 3, 3)], 'uint8', {}),
    ('row_stack', [(3,), (3,)], 'int16', {}),
    ('cat', [(3,), (3,)], 'float64', {}),
]


@pytest.mark.parametrize('op,shapes,out_dtype,kw', _CAT,
                         ids=[f'{o}-{i}' for i, (o, *_) in enumerate(_CAT)])
def test_cat_out_dtype_is_a_type_error_before_the_sizes(op, shapes, out_dtype, kw):
    """torch.cat (and stack, hstack, vstack, dstack, column_stack, row_stack, made of it)
    checks that its inputs cast into out's dtype after the dim and zero-dim checks, before
    the sizes, with a TypeError; ember raised the write's RuntimeError ("result type Double
    can't be cast ...") or the sizes' error."""
    check(lambda T: getattr(T, op)([T.ones(s) for s in shapes],
                                   out=T.empty(0, dtype=getattr(T, out_dtype)), **kw),
          grad=False, match_message=True)


def test_cat_out_autograd_refusal_before_its_dtype():
    """An input requiring grad: torch's refusal of out= with autograd comes first."""
    check(lambda T: T.cat([T.ones(3, requires_grad=True), T.ones(3)],
                          out=T.empty(0, dtype=T.bool)), grad=False, match_message=True)


_F_WRONG_TYPES = {
    'embedding_bool_weight': lambda T: T.nn.functional.embedding(T.ones(3), True),
    'embedding_str_weight': lambda T: T.nn.functional.embedding(T.ones(3), weight='x'),
    'embedding_padding_first': lambda T: T.nn.functional.embedding((0.5,), T.ones(0), 1, 0.25),
    'embedding_padding_before_indices': lambda T: T.nn.functional.embedding(
        2, T.ones(2, 3), 2, 2.0),
    'embedding_contiguous': lambda T: T.nn.functional.embedding(True, T.ones(3, 2), 1, -1.0),
    'embedding_indices': lambda T: T.nn.functional.embedding(True, T.ones(3, 2)),
    'kl_div_none': lambda T: T.nn.functional.kl_div(None, T.ones(3)),
    'kl_div_int': lambda T: T.nn.functional.kl_div(2, T.ones(3), 2, True),
    'kl_div_keyword': lambda T: T.nn.functional.kl_div(input=[1.], target=T.ones(3)),
    'kl_div_bad_reduction_first': lambda T: T.nn.functional.kl_div(None, T.ones(3),
                                                                   reduction='bad'),
    'multilabel_soft_margin_float': lambda T: T.nn.functional.multilabel_soft_margin_loss(
        1.5, T.ones(3)),
    'multilabel_soft_margin_list': lambda T: T.nn.functional.multilabel_soft_margin_loss(
        [1.5], T.ones(3)),
    'gaussian_nll_bool_var': lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(3), T.ones(3), var=True),
    'gaussian_nll_int_var': lambda T: T.nn.functional.gaussian_nll_loss(
        T.ones(3), T.ones(3), 1),
    'gaussian_nll_float_input': lambda T: T.nn.functional.gaussian_nll_loss(
        1.5, T.ones(3), 1.0),
    'gaussian_nll_float_input_tensor_var': lambda T: T.nn.functional.gaussian_nll_loss(
        1.5, T.ones(3), T.ones(3)),
}


@pytest.mark.parametrize('name', sorted(_F_WRONG_TYPES))
def test_functional_wrong_types_as_torch(name):
    """A value of another type where an nn.functional function wants a tensor: torch's
    Python function hands it to a parsed op (kl_div's ``torch.kl_div``, the loss's
    ``logsigmoid``, embedding's ``torch.embedding`` -- weight first --, gaussian_nll_loss's
    ``torch.any``/``ones_like``), whose TypeError names it; ember leaked AttributeErrors
    ("'NoneType' object has no attribute '_data'") or checked embedding's indices before
    padding_idx. (The generator had dropped kl_div's input and the loss's input from INNER
    because torch's function reads their attributes -- but only after the op's call.)"""
    check(_F_WRONG_TYPES[name], grad=False, match_message=True)


_EXACT_FIRST = {
    'index_copy_index_dims': lambda T: T.index_copy(
        T.ones(3, 2, dtype=T.float64), 0, T.zeros(2, 2, dtype=T.int64),
        T.ones(2, 2, dtype=T.float64), out=T.empty(0, dtype=T.uint8)),
    'index_copy_index_dtype': lambda T: T.index_copy(
        T.ones(3, 2, dtype=T.float64), 0, T.zeros(2, dtype=T.float32),
        T.ones(2, 2, dtype=T.float64), out=T.empty(0, dtype=T.uint8)),
    'index_copy_dim_first': lambda T: T.index_copy(
        T.ones(3, 2, dtype=T.float64), 5, T.zeros(2, dtype=T.int64),
        T.ones(2, 2, dtype=T.float64), out=T.empty(0, dtype=T.uint8)),
    'index_add_range': lambda T: T.index_add(
        T.ones(3, 2, dtype=T.int32), 0, T.tensor([7]), T.ones(1, 2, dtype=T.int32),
        out=T.empty(0, dtype=T.int8)),
    'index_add_shape_first': lambda T: T.index_add(
        T.ones(3, 2, dtype=T.int32), 0, T.tensor([1]), T.ones(1, 3, dtype=T.int32),
        out=T.empty(0, dtype=T.int8)),
    'softmax_long': lambda T: T.softmax(T.ones(3, dtype=T.int64), 0,
                                        out=T.empty(0, dtype=T.float16)),
    'softmax_dim_first': lambda T: T.softmax(T.ones(3, dtype=T.int64), 3,
                                             out=T.empty(0, dtype=T.float16)),
    'log_softmax_long': lambda T: T.log_softmax(T.ones(3, dtype=T.int64), 0,
                                                out=T.empty(0, dtype=T.float16)),
    'mv_bool': lambda T: T.mv(T.ones(3, 2, dtype=T.bool), T.ones(2, dtype=T.bool),
                              out=T.empty(0, dtype=T.float16)),
    'mv_sizes_first': lambda T: T.mv(T.ones(3, 2), T.ones(3), out=T.empty(0, dtype=T.float16)),
    'cholesky_not_positive': lambda T: T.linalg.cholesky(
        -T.ones(1, 1, dtype=T.complex64), out=T.empty(0, dtype=T.bfloat16)),
    'cholesky_square_first': lambda T: T.linalg.cholesky(
        -T.ones(1, 2, dtype=T.complex64), out=T.empty(0, dtype=T.bfloat16)),
    'cholesky_integer_first': lambda T: T.linalg.cholesky(
        -T.ones(1, 1, dtype=T.int64), out=T.empty(0, dtype=T.bfloat16)),
}


@pytest.mark.parametrize('name', sorted(_EXACT_FIRST))
def test_exact_out_dtype_checked_before_kernel(name):
    """Ops whose out= must have the input's dtype: torch refuses another dtype ("Expected out
    tensor to have dtype double, but got unsigned char instead") before its kernel's dtype
    refusal, the index checks, the factorization -- after the dim's range and the shapes;
    ember checked out only once the body had run."""
    check(_EXACT_FIRST[name], grad=False, match_message=True)


_FFT_OUT = [
    ('fft', {'dim': 5}, 'float16'), ('fft', {}, 'int64'), ('ifft', {'dim': 5}, 'float32'),
    ('rfft', {'dim': 5}, 'float32'), ('ihfft', {'norm': 'bad'}, 'float32'),
    ('irfft', {'dim': 5}, 'complex64'), ('irfft', {}, 'int64'), ('hfft', {'dim': 5}, 'int32'),
    ('fft2', {}, 'float32'), ('ifft2', {}, 'float32'), ('ifftn', {}, 'int64'),
    ('irfftn', {}, 'int64'), ('hfft2', {}, 'bool'), ('fft2', {'dim': (0, 7)}, 'float32'),
]


@pytest.mark.parametrize('op,kw,out_dtype', _FFT_OUT,
                         ids=[f'{o}-{i}' for i, (o, *_) in enumerate(_FFT_OUT)])
@pytest.mark.parametrize('shape', [(3, 3), ()])
@pytest.mark.parametrize('grad', [False, True])
def test_fft_out_kind_checked_first(op, kw, out_dtype, shape, grad):
    """torch's 1-d transforms refuse an out tensor of the wrong kind ("rfft expects a complex
    output tensor, but got Float"; a real result: "floating point", so not an integer out)
    before the dim and the input; every transform before autograd's refusal of out=, in
    the n-d transform's name ("fftn" for ifft2 too). ember checked the dim first, said
    "real", and took an integer out."""
    check(lambda T: getattr(T.fft, op)(T.ones(shape, requires_grad=grad),
                                       out=T.empty(0, dtype=getattr(T, out_dtype)), **kw),
          grad=False, match_message=True)


_UNARY_OUT = {
    'abs': lambda T, x, o: T.abs(x, out=o), 'neg': lambda T, x, o: T.neg(x, out=o),
    'sgn': lambda T, x, o: T.sgn(x, out=o), 'sign': lambda T, x, o: T.sign(x, out=o),
    'conj_physical': lambda T, x, o: T.conj_physical(x, out=o),
    'floor': lambda T, x, o: T.floor(x, out=o),
    'clamp': lambda T, x, o: T.clamp(x, 0, 1, out=o),
    'clamp_min': lambda T, x, o: T.clamp_min(x, 0, out=o),
    'clip_max_keyword': lambda T, x, o: T.clip(x, max=2, out=o),
    'clamp_tensor_bound': lambda T, x, o: T.clamp(x, T.zeros(3, dtype=T.float64), out=o),
    'signbit': lambda T, x, o: T.signbit(x, out=o),
    'isposinf': lambda T, x, o: T.isposinf(x, out=o),
    'nonzero': lambda T, x, o: T.nonzero(x, out=o),
    'relu': lambda T, x, o: T.relu(x, out=o), 'isinf': lambda T, x, o: T.isinf(x, out=o),
    'isnan': lambda T, x, o: T.isnan(x, out=o),
}


# (left out, still different: a complex input requiring grad -- torch refuses autograd
# with out= before floor's and sign's complex refusal --, clamp's tensor bounds with a
# complex input, conj_physical of a real tensor requiring grad with out= of its dtype)
_UNARY_CASES = [
    (n, d, o, g) for n in sorted(_UNARY_OUT) for d in ('float32', 'int32', 'bool', 'complex64')
    for o in ('float32', 'float64', 'int64', 'bool') for g in (False, True)
    if not (g and d == 'complex64' and n in ('floor', 'sign', 'clamp_tensor_bound')) and
    not (n == 'clamp_tensor_bound' and d == 'complex64') and
    not (n == 'conj_physical' and g and d == o == 'float32')]


@pytest.mark.parametrize('name,dtype,out_dtype,grad', _UNARY_CASES)
def test_unary_out_dtype_rules(name, dtype, out_dtype, grad):
    """torch's unary ops check out's dtype before computing, and refuse where ember wrote
    (cast) silently: the same-dtype ops (abs, neg, sgn, sign, conj_physical, the rounding
    ops, clamp with number bounds, promoted by them) "Found dtype Double but expected
    Float"; signbit/isposinf/isneginf a non-bool out; nonzero a non-Long out; relu, isinf,
    isnan take no out at all (TypeError). The input's own refusals (a complex clamp, a bool
    neg) and autograd's refusal of out= come first."""
    def f(T):
        x = T.tensor([1.5, -2.0, 0.0]).to(getattr(T, dtype))
        if grad and dtype in ('float32', 'complex64'):
            x.requires_grad_()
        return _UNARY_OUT[name](T, x, T.empty(0, dtype=getattr(T, out_dtype)))
    check(f, grad=False, match_message=True)


@pytest.mark.parametrize('dtype', ['int64', 'bool', 'float16', 'complex64', 'float32'])
@pytest.mark.parametrize('target_dtype', ['int64', 'int32', 'float32'])
@pytest.mark.parametrize('value', [5, -2, 1])
def test_multilabel_margin_loss_checks_target_range_first(dtype, target_dtype, value):
    """torch's multilabel_margin_loss checks the target's range ("argument #2 'target' is
    out of range") before the input's dtype and the target's; ember refused an integer
    input's dtype first (NotImplementedError)."""
    check(lambda T: T.nn.functional.multilabel_margin_loss(
        T.ones(2, 3, dtype=getattr(T, dtype)),
        T.full((2, 3), value, dtype=getattr(T, target_dtype))), grad=False, match_message=True)


@pytest.mark.parametrize('name', ['leaky_relu', 'hardswish', 'elu', 'selu', 'celu', 'silu',
                                  'mish', 'hardsigmoid', 'rrelu', 'threshold'])
@pytest.mark.parametrize('dtype', ['int64', 'bool', 'complex64', 'float32'])
def test_inplace_activation_overlap_before_kernel_dtype(name, dtype):
    """``F.leaky_relu(expanded, inplace=True)``: torch's in-place op refuses the input whose
    elements share memory before its kernel refuses the dtype (threshold_ the other way
    round); ember raised the dtype's NotImplementedError."""
    def f(T):
        x = T.ones(1, 3, dtype=getattr(T, dtype)).expand(2, 3)
        fn = getattr(T.nn.functional, name)
        return fn(x, 0.5, 0., inplace=True) if name == 'threshold' else fn(x, inplace=True)
    check(f, grad=False, match_message=True)


@pytest.mark.parametrize('name', ['alpha_dropout', 'feature_alpha_dropout'])
@pytest.mark.parametrize('value', [2, 1.5, 'x', None, [1.0]])
@pytest.mark.parametrize('kw', [{}, {'training': True}], ids=['eval', 'train'])
def test_alpha_dropout_refuses_a_non_tensor_input_in_eval_mode(name, value, kw):
    """torch's alpha dropouts hand the input to their op, whose parser refuses a value that
    is no tensor even when not training; ember returned it."""
    def f(T):
        getattr(T.nn.functional, name)(value, **kw)
    check(f, grad=False)


@pytest.mark.parametrize('name', ['alpha_dropout', 'feature_alpha_dropout'])
@pytest.mark.parametrize('training', [1.5, 'x', None])
def test_alpha_dropout_refuses_a_non_bool_training(name, training):
    """A ``training`` that is no bool: the op's parser's TypeError, in eval mode too."""
    check(lambda T: getattr(T.nn.functional, name)(T.ones(2, 3), training=training),
          grad=False, match_message=True)


@pytest.mark.parametrize('shape', [(3,), (2, 3)])
@pytest.mark.parametrize('op', ['linalg.eigvalsh', 'linalg.eigvalsh_float_out'])
def test_kernel_dtype_last_with_out(op, shape):
    """A call with out= whose kernel refuses the input's dtype: torch's checks of the shapes
    come first, as without out= (ember skipped its re-run of the body under a stand-in dtype
    for out= calls, and raised the dtype's NotImplementedError)."""
    out_dtype = 'float32' if op.endswith('float_out') else 'float64'
    check(lambda T: T.linalg.eigvalsh(T.ones(shape, dtype=T.int64),
                                      out=T.empty(0, dtype=getattr(T, out_dtype))),
          grad=False, match_message=True)
