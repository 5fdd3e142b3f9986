"""Findings of the fuzzer's wrong-type mode (``EMBER_FUZZ_WRONG_TYPES=1``, seeds 8000-8039)
on torch's Python functions beyond ``nn.functional`` -- torch.functional's (``unique``,
``stft``, ``norm``), torch._lowrank's and torch._lobpcg's, and the methods ``torch.Tensor``
writes in Python (``istft``, ``unflatten``, ``lu``) -- and on the ones ``tools/
gen_signatures.py`` could not read before (a parameter handed on through another Python
function, ``_list_with_default``, a guard such as ``batch_norm``'s ``training``, an op with
several overloads): the ``INNER``, ``TOUCHED`` and ``READS`` tables, each class of fix
pinned against torch."""
import numpy as np
import pytest

from tests.oracle.oracle import check

X = np.arange(12, dtype=np.float32).reshape(1, 3, 4) / 7
S = np.linspace(-1.0, 1.0, 16).astype(np.float32)
C = (np.arange(12, dtype=np.float32).reshape(3, 4) / 7 + 0.5j).astype(np.complex64)


@pytest.mark.parametrize('call', [
    lambda T, x: T.svd_lowrank(1.5),
    lambda T, x: T.svd_lowrank([1, 2], q=2),
    lambda T, x: T.pca_lowrank((1, 2)),
    lambda T, x: T.pca_lowrank('x', q=-1),
    lambda T, x: T.lobpcg('x'),
    lambda T, x: T.lobpcg(None, k=2),
    lambda T, x: T.norm(None),
    lambda T, x: T.norm([1.0, 2.0], p='x'),
    lambda T, x: T.nn.functional.adaptive_max_pool2d_with_indices(3, 2),
    lambda T, x: T.nn.functional.adaptive_max_pool3d_with_indices('x', 1.5),
    lambda T, x: T.nn.functional.softmax((1, 2), 0),
    lambda T, x: T.nn.functional.log_softmax(1.5, 0),
    lambda T, x: T.nn.functional.max_pool3d_with_indices([1.0], 2),
], ids=['svd_lowrank_float', 'svd_lowrank_list', 'pca_lowrank_tuple', 'pca_lowrank_str',
        'lobpcg_str', 'lobpcg_none', 'norm_none', 'norm_list', 'adaptive2d_int',
        'adaptive3d_str', 'softmax_tuple', 'log_softmax_float', 'max_pool3d_list'])
def test_the_attribute_torchs_function_reads_first(call):
    """torch's function reads an attribute of the value before anything else that may
    raise (``A.shape``, ``A.requires_grad``, ``input.layout``, ``input.size()``,
    ``input.softmax``): Python's AttributeError naming it, whatever else is wrong (the
    ``READS`` table; ember said TypeError)."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, s, x, c: s.istft(4, window=object()),
    lambda T, s, x, c: s.istft(4.5),
    lambda T, s, x, c: s.istft(4, center='x'),
    lambda T, s, x, c: s.istft(4, length='x'),
    lambda T, s, x, c: x.unflatten(-1, ['x']),
    lambda T, s, x, c: x.unflatten(-1, [0.5, 1.5]),
    lambda T, s, x, c: x.unflatten(0, [1, 'a']),
    lambda T, s, x, c: x[0].long().lu(pivot=[1]),
    lambda T, s, x, c: x[0, :, :3].bool().lu(pivot='x'),
], ids=['istft_window_object', 'istft_n_fft_float', 'istft_center_str', 'istft_length_str',
        'unflatten_str', 'unflatten_floats', 'unflatten_second_str', 'lu_long_pivot_list',
        'lu_bool_pivot_str'])
def test_tensor_methods_written_in_python_parse_first(call):
    """``Tensor.istft``, ``Tensor.unflatten`` and ``Tensor.lu`` are Python methods of
    torch's that hand ``self`` and their parameters to one C op (``torch.istft``,
    ``TensorBase.unflatten`` through ``super()``, ``torch._lu_with_info``): its parser
    refuses a bad type before ember's body checks the input ("istft requires a
    complex-valued input", the sizes' product, "lu_cpu not implemented for 'Long'")."""
    check(call, S, X, C, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x, c: T.unique([1, 2]),
    lambda T, x, c: T.unique(1.5, dim=0),
    lambda T, x, c: T.unique(c, sorted=[1]),
    lambda T, x, c: T.unique(x, dim=1.5),
    lambda T, x, c: c.unique(return_inverse=[1]),
    lambda T, x, c: T.unique_consecutive(None),
    lambda T, x, c: T.unique_consecutive(c, return_inverse=1.5),
    lambda T, x, c: c.unique_consecutive(return_counts=[1]),
], ids=['unique_list', 'unique_dim_float_input', 'unique_sorted_list', 'unique_dim_float',
        'method_unique_inverse_list', 'unique_consecutive_none',
        'unique_consecutive_inverse_float', 'method_unique_consecutive_counts_list'])
def test_unique_parses_as_the_op_it_calls(call):
    """torch's ``unique`` hands its parameters through two Python functions to
    ``unique_dim`` when ``dim`` is given, else to ``_unique2`` (an ``INNER`` entry that
    depends on whether ``dim`` is None); ``unique_consecutive`` is a dispatch of dispatches
    (ember leaked an AttributeError, or said the kernel refused complex)."""
    check(call, X, C, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.adaptive_avg_pool3d(x[None], 'x'),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, ['x', 2]),
    lambda T, x: T.nn.functional.adaptive_max_pool2d(x, 'x'),
    lambda T, x: T.nn.functional.adaptive_max_pool2d(x, 1.5),
    lambda T, x: T.nn.functional.adaptive_max_pool3d(x[None], (1, 1, 'x')),
    lambda T, x: T.nn.functional.adaptive_max_pool1d(x[0], (2.5,)),
    lambda T, x: T.nn.functional.adaptive_max_pool1d(x[0, 0], 2),
], ids=['avg3d_str', 'avg2d_str_first', 'max2d_str', 'max2d_float', 'max3d_str_last',
        'max1d_float', 'max1d_1d_input'])
def test_adaptive_pools_read_output_size_as_torch(call):
    """torch's ``_list_with_default`` keeps an int and makes anything else a list (Python's
    TypeError for a value without a length), which the op's parser then judges;
    ``adaptive_max_pool1d`` reaches its op through ``adaptive_max_pool1d_with_indices``
    (ember said "output_size must be 3" or "Expected 2 to 3 dimensions")."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.batch_norm(None, None, None),
    lambda T, x: T.nn.functional.batch_norm(x, x[0, :, 0], x[0, :1, 0], momentum=[1]),
    lambda T, x: T.nn.functional.batch_norm(x, None, None, weight=True),
    lambda T, x: T.nn.functional.instance_norm(x, use_input_stats=False, eps=1j),
    lambda T, x: T.nn.functional.instance_norm(x, x[0, :, 0], use_input_stats=False,
                                               momentum=(1,)),
    lambda T, x: T.nn.functional.dropout(x.long(), training=1.5),
    lambda T, x: T.nn.functional.alpha_dropout(x.cdouble(), training=1.5),
    lambda T, x: T.nn.functional.feature_alpha_dropout(x[0, 0], training='x'),
    lambda T, x: T.nn.functional.dropout2d(x[None].long(), training=1.5),
    lambda T, x: T.nn.functional.triplet_margin_loss(x, x, x[0], eps='x'),
    lambda T, x: T.nn.functional.multi_margin_loss(x[0], x[0], margin=[1]),
    lambda T, x: T.nn.functional.layer_norm(x.bool(), (4,), eps='x'),
    lambda T, x: T.nn.functional.ctc_loss(x, True, x, x),
    lambda T, x: T.nn.functional.embedding(T.tensor([[0, 1]]), x[0], max_norm=(1,)),
], ids=['batch_norm_none', 'batch_norm_momentum_list', 'batch_norm_weight_bool',
        'instance_norm_stats_float',
        'instance_norm_momentum_tuple', 'dropout_train_float', 'alpha_dropout_train_float',
        'feature_alpha_dropout_train_str', 'dropout2d_train_float', 'triplet_eps_str',
        'multi_margin_margin_list', 'layer_norm_bool_eps_str',
        'ctc_loss_targets_bool', 'embedding_max_norm_tuple'])
def test_the_inner_parser_comes_before_the_bodys_checks(call):
    """The Python functions whose C op the generator could not find before: behind a
    ``raise`` of their own (the dropouts, the margin losses), a guard (``batch_norm``'s
    ``training``: ``_verify_batch_size`` runs first only then, and its errors stand), or an
    op with several overloads (``ctc_loss``: torch's listing). ``embedding`` renorms
    through the public ``embedding_renorm_`` (its parser). ember said RuntimeError
    (statistics' sizes, "Feature dropout requires at least 2 dimensions") or a kernel's
    NotImplementedError, or leaked an AttributeError."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.stft(x[0, 0], 2, hop_length=[1, 'a'], center=False, return_complex=True),
    lambda T, x: x[0, 0].stft(2, window='x'),
    lambda T, x: T.stft(x[0, 0], 2.5, center=False),
    lambda T, x: T.stft('x', 4, window=x[0, 0], center=False),
    lambda T, x: T.stft(x[0, 0], 2, hop_length=0, window=1.5, return_complex=True),
], ids=['stft_hop_list', 'method_stft_window_str', 'stft_n_fft_float', 'stft_input_str',
        'stft_window_float_after_pad'])
def test_stft_lists_its_overloads(call):
    """``stft`` hands its parameters to ``_VF.stft``, which has two overloads: torch lists
    them, with the types of the call it made (ember said "stft requires the return_complex
    parameter be given" or leaked an AttributeError). Only the first line is compared:
    ember's listing shows the types it can know."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True),
    lambda T, x: T.nn.functional.instance_norm(x),
    lambda T, x: T.unique(x, dim=1),
    lambda T, x: T.unique(x, return_counts=True),
    lambda T, x: x[0].unique_consecutive(dim=0),
    lambda T, x: T.nn.functional.adaptive_max_pool1d(x, 2),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (None, 2)),
    lambda T, x: x.unflatten(-1, (2, 2)),
    lambda T, x: T.svd_lowrank(x[0], q=2)[1],
    lambda T, x: T.norm(x),
], ids=['batch_norm_training', 'instance_norm', 'unique_dim', 'unique_counts',
        'unique_consecutive_dim', 'adaptive_max_pool1d', 'adaptive_avg_pool2d_none',
        'unflatten', 'svd_lowrank', 'norm'])
def test_well_formed_calls_still_run(call):
    """None of it runs on a call the body takes."""
    check(call, X, grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.batch_norm(x[0, :, :1], None, None, training=True),
    lambda T, x: T.nn.functional.batch_norm(3, None, None, training=True),
    lambda T, x: T.stft(x[0, :0, 0], 2, return_complex=True),
    lambda T, x: T.nn.functional.adaptive_avg_pool2d(x[0, 0], (None, 2, 2)),
    lambda T, x: T.nn.functional.binary_cross_entropy(x, [1.0], reduction=2),
    lambda T, x: T.nn.functional.group_norm(x, 0, weight=1.5),
    lambda T, x: T.stft(None, 4, window=x[0, 0]),
], ids=['batch_norm_one_value_per_channel', 'batch_norm_training_int_input',
        'stft_pad_of_empty', 'defaulted_too_long', 'bce_reduction', 'group_norm_no_groups',
        'stft_centred_none'])
def test_what_torchs_function_raises_first_stands(call):
    """The function's own checks come before the parser: ``_verify_batch_size`` behind
    ``training`` (ValueError, or the AttributeError of reading a number's size), stft's
    padding of the input behind ``center`` (reading a None's ``dim``), ``_list_with_default``'s
    ValueError, a reduction's ValueError, ``group_norm``'s division by ``num_groups``."""
    check(call, X, grad=False)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.lp_pool2d(x[None], 2, 'x'),
    lambda T, x: T.nn.functional.lp_pool2d(x[None], 2, (1, 2, 3)),
    lambda T, x: T.nn.functional.lp_pool3d(x[None, None], 2, [1.5]),
    lambda T, x: T.nn.functional.lp_pool2d(x[None], 2, 1.5),
], ids=['lp_pool2d_str', 'lp_pool2d_three', 'lp_pool3d_one_float', 'lp_pool2d_float'])
def test_lp_pool_unpacks_its_kernel_size_first(call):
    """torch's ``lp_pool2d`` starts with ``kw, kh = _pair(kernel_size)``: Python's ValueError
    for a kernel size of another length, before ``avg_pool2d``'s parser (``INNER``'s
    unpacks; ember said the parser's TypeError)."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.group_norm(x, 2, 'x'),
    lambda T, x: T.nn.functional.group_norm(x, 3, bias=1.5),
    lambda T, x: T.nn.functional.group_norm(x, 2, eps=1j),
    lambda T, x: T.tensordot(3, x, dims='x'),
    lambda T, x: T.tensordot(1.5, x, dims=None),
    lambda T, x: T.tensordot(3, x, dims=[[0]]),
    lambda T, x: T.tensordot(x, x, dims=([0], [0], [1])),
    lambda T, x: T.meshgrid(x[0, 0], indexing=1),
    lambda T, x: T.meshgrid(x[0, 0], x[0, 1], indexing=0.5),
], ids=['group_norm_weight_str', 'group_norm_bias_float', 'group_norm_eps_complex',
        'tensordot_dims_str', 'tensordot_dims_none', 'tensordot_one_list',
        'tensordot_three_lists', 'meshgrid_indexing_int',
        'meshgrid_indexing_float'])
def test_type_checks_before_the_bodys_value_checks(call):
    """``group_norm`` hands its parameters to ``torch.group_norm`` after checks that raise
    ValueError only (``_verify_batch_size``); ``tensordot`` refuses a ``dims`` of another
    type, and unpacks a pair of lists, before it looks at the tensors; ``meshgrid``'s parser refuses an ``indexing`` that
    is no str before its value is read (ember said RuntimeError, or TypeError for the
    tensors)."""
    check(call, X, grad=False, match_message=True)


@pytest.mark.parametrize('call', [
    lambda T, x: T.nn.functional.softmin(3, 1),
    lambda T, x: T.nn.functional.embedding(T.tensor([[0]]), 1.5, max_norm=1.0),
    lambda T, x: T.nn.functional.grid_sample(x[None], x[None], mode=['x'],
                                             align_corners=False),
    lambda T, x: T.nn.functional.grid_sample(x[None], x[None], padding_mode=['x'],
                                             align_corners=False),
    lambda T, x: T.nn.functional.dropout3d(x[None].byte(), training='x'),
    lambda T, x: T.nn.functional.embedding(T.tensor([[0, 1]]), x, sparse='x'),
    lambda T, x: T.nn.functional.embedding(T.tensor([[0.5]]), x[0], scale_grad_by_freq='x'),
], ids=['softmin_int', 'embedding_renorm_weight_float', 'grid_sample_mode_list',
        'grid_sample_padding_list', 'dropout3d_train_str', 'embedding_sparse_str',
        'embedding_float_indices_scale_str'])
def test_torchs_python_code_decides_the_class(call):
    """``softmin`` reads ``(-input).softmax`` (TOUCHED counts a negated parameter: its
    AttributeError); ``embedding`` renorms ``weight.detach()``; ``grid_sample`` compares its
    modes (a list is its ValueError, not a hashing TypeError); ``dropout3d`` unsqueezes its
    input before ``feature_dropout``'s parser refuses ``train``; ``embedding`` hands
    ``sparse`` to its op, whose parser comes before the op's checks when ``max_norm`` is
    None (the guard ``max_norm is not None``)."""
    check(call, X, grad=False)
