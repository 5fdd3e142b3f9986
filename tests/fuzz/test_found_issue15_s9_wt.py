"""Findings of the fuzzer's wrong-type mode (``EMBER_FUZZ_WRONG_TYPES=1``, seeds 0-29) on
torch's Python functions in ``nn.functional`` that hand their parameters to one C op (the
``INNER`` table): that op's parser refuses a value of the wrong type before any check of
the op (and before ember's body's checks of shapes or values), each pinned against torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check

X = np.arange(12, dtype=np.float32).reshape(1, 3, 4) / 7
V = np.array([0.5, -1.0, 2.0], np.float32)


@pytest.mark.parametrize('call', [
    # (``if stride is None: stride = []``: the parser still sees the other parameters)
    lambda T, x, v: T.nn.functional.max_pool1d(x, (2, 2)),
    lambda T, x, v: T.nn.functional.max_pool1d(x, 2, padding='x'),
    lambda T, x, v: T.nn.functional.max_pool1d_with_indices(x, 2, dilation=1.5),
    lambda T, x, v: T.nn.functional.max_pool2d(x, 'x'),
    lambda T, x, v: T.nn.functional.max_pool2d_with_indices(None, 2),
    lambda T, x, v: T.nn.functional.max_pool3d(x, 2, stride=[1.5]),
    # (the input itself, where torch's function reads none of its attributes first)
    lambda T, x, v: T.nn.functional.max_pool1d([1, 2], 2),
    lambda T, x, v: T.nn.functional.rrelu('x', 0.5, 0.1),
    lambda T, x, v: T.nn.functional.rrelu(x, 'x'),
    lambda T, x, v: T.nn.functional.threshold(x, 'x', 1.0),
    lambda T, x, v: T.nn.functional.threshold(x, 0.5, 'x'),
    lambda T, x, v: T.nn.functional.leaky_relu(x, 'x'),
    lambda T, x, v: T.nn.functional.elu(None),
    lambda T, x, v: T.nn.functional.relu6(1.5),
    lambda T, x, v: T.nn.functional.cosine_embedding_loss(True, v[None], v[:1]),
    lambda T, x, v: T.nn.functional.cosine_embedding_loss(v[None], 'x', v[:1]),
    lambda T, x, v: T.nn.functional.cosine_embedding_loss(v[None], v[None], v[:1], 'x'),
    lambda T, x, v: T.nn.functional.hinge_embedding_loss(v, v, margin=(1, 2)),
    lambda T, x, v: T.nn.functional.soft_margin_loss('x', v),
    lambda T, x, v: T.nn.functional.nll_loss([1.0], v),
], ids=['pool1d_kernel_pair', 'pool1d_padding_str', 'pool1d_indices_dilation_float',
        'pool2d_kernel_str', 'pool2d_indices_input_none',
        'pool3d_stride_floats', 'pool1d_input_list', 'rrelu_input_str', 'rrelu_lower_str',
        'threshold_str', 'threshold_value_str', 'leaky_relu_slope_str', 'elu_none',
        'relu6_float', 'cosine_embedding_input1_bool', 'cosine_embedding_input2_str',
        'cosine_embedding_margin_str', 'hinge_margin_tuple', 'soft_margin_input_str',
        'nll_loss_input_list'])
def test_the_inner_ops_parser_refuses_first(call):
    """ember's body raised a RuntimeError (a kernel size of the wrong length, rrelu's
    bounds, a target's dims), an AttributeError or NumPy's ValueError first."""
    check(call, X, V, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, v: T.nn.functional.cosine_embedding_loss([1, 2], v[None], v[:1], reduction=2),
    lambda T, v: T.nn.functional.soft_margin_loss('x', v, reduction='x'),
    lambda T, v: T.nn.functional.multilabel_margin_loss(v, True, reduction=3),
], ids=['cosine_embedding', 'soft_margin', 'multilabel_margin'])
def test_an_unknown_reduction_comes_before_the_parser(call):
    """torch's function reads its reduction (``_Reduction.get_enum``) before it calls the
    op, so that ValueError stands."""
    check(call, V, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.max_pool1d(x, 2),
    lambda T, x: T.nn.functional.max_pool2d(x, 2, stride=None),
    lambda T, x: T.nn.functional.rrelu(x, 0.1, 0.3, training=False),
    lambda T, x: T.nn.functional.threshold(x, 0.5, -1.0),
], ids=['pool1d', 'pool2d_stride_none', 'rrelu', 'threshold'])
def test_well_formed_calls_still_run(call):
    """A None stride the function replaces is no value for the parser to refuse."""
    check(call, X, grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.adaptive_max_pool2d('x', 2),
    lambda T, x: T.nn.functional.adaptive_max_pool3d(3, 2),
    lambda T, x: T.nn.functional.adaptive_max_pool2d(None, 2, return_indices=True),
    lambda T, x: T.nn.functional.fractional_max_pool2d(1.5, 2, output_size=1),
    lambda T, x: T.nn.functional.max_unpool2d(True, x.long(), 2),
], ids=['adaptive_max_pool2d_str', 'adaptive_max_pool3d_int', 'adaptive_with_indices_none',
        'fractional_float', 'max_unpool2d_bool'])
def test_a_function_handed_the_value_reads_its_attribute(call):
    """torch's ``adaptive_max_pool2d`` hands its input unchanged to the Python function
    ``adaptive_max_pool2d_with_indices``, which reads ``input.size()``: AttributeError
    (TOUCHED follows such calls; ember said TypeError)."""
    check(call, X, grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x: T._softmax(x, 0, 'x'),
    lambda T, x: T._softmax(True, 0, False),
    lambda T, x: T._log_softmax(x.half(), 0, 1.5),
    lambda T, x: T._log_softmax((1.0,), 0, False),
    lambda T, x: T._masked_softmax(x, x, 'x'),
    lambda T, x: T._masked_softmax(x, x > 0, 1.5),
    lambda T, x: T._softmax(x, 0, False),
    lambda T, x: T._log_softmax(x, -1, False),
], ids=['softmax_half_to_float_str', 'softmax_bool_input', 'log_softmax_half_float',
        'log_softmax_tuple', 'masked_softmax_dim_str', 'masked_softmax_dim_float',
        'softmax', 'log_softmax'])
def test_private_softmax_ops_parse_as_torchs(call):
    """The private ops ember exports get torch's signatures: its parser refuses first (ember
    said "softmax with half to float conversion is not supported", "Mask should be a
    boolean tensor" or leaked an AttributeError)."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('fn', ['atleast_1d', 'atleast_2d', 'atleast_3d'])
@pytest.mark.parametrize('args', [
    (1.5,), (None,), ('x',), (True,), (3,), ([1.5],), ('tensor', 1.5), (('tensor', None),),
    ('tensor',), (('tensor', 'tensor'),),
], ids=['float', 'none', 'str', 'bool', 'int', 'list_of_float', 'second_float',
        'tuple_with_none', 'tensor', 'tuple'])
def test_atleast_parses_a_tensor_or_a_tuple_of_them(fn, args):
    """torch hands one argument to its parser as a tensor or a tuple of tensors, several as
    one list of tensors (ember read ``.dim()`` of whatever it was given: AttributeError)."""
    def call(T, x):
        def put(a):
            return x if a == 'tensor' else tuple(put(b) for b in a) if isinstance(a, tuple) \
                else a
        return getattr(T, fn)(*[put(a) for a in args])
    check(call, V, grad=False, match_message=True)
