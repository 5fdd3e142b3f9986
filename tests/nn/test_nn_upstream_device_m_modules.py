"""PyTorch's test/test_nn.py, class TestNNDeviceType (its CPU instantiation), the module tests
among those named test_m* .. test_z*: 3-d replication padding of many channels, transformer
encoders and decoders on empty inputs, the deterministic TransformerEncoderLayer test
(with the fast path's NaN for a fully padded sequence), RNNs keeping their graph
(``retain_graph``), packed LSTM sequences against one-by-one runs, modules to complex
dtypes, meta modules materialised with ``to_empty``, ``skip_init``, and uint8 resizing
against torch's.

Upstream draws its inputs from torch's generator; here they come from NumPy's. Sizes are
cut where the behaviour tested is the same: test_ReplicationPad3d_large (upstream 65736
channels, a 6 GB test) runs on 100; the empty-input transformers on d_model 64 (upstream
512, and nn.Transformer's default feed-forward width 2048 -> 128). The uint8 consistency
tests (test_upsamplingBiMode2d_consistency, ..._interp_size_bug) are adapted with the
antialias ones in test_nn_upstream_rest_device_resample_aa.py.
Not adapted: the NestedTensor part of test_transformerencoderlayer (ember has no
``torch.nested``) and the CUDA-only tests of the range (test_rnn_fused,
test_overwrite_module_params_on_conversion_cpu_device, test_upsamplingNearest*_launch_*,
test_upsampling_64bit_indexing_channels_last, test_replicatepad_64bit_indexing,
test_upsamplingnearest2d_backward_64bit_indexing, test_ReflectionPad2d_large(_deterministic),
test_ReflectionPad3d_large).
"""
import contextlib
import warnings
from copy import deepcopy

import numpy as np
import pytest

from ._nn_rest import check_module_empty_input, cos_params, eq, lib_fixture, rand, randn, torch

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_ReplicationPad3d_large(lib):
    """(upstream: 65736 channels; here 100)"""
    pl, pr, pt, pbt, pf, pbk = 3, 4, 5, 6, 7, 8
    for shape in ([1, 100, 2, 2, 2], [100, 1, 2, 2, 2]):
        x = randn(lib, *shape, requires_grad=True)
        out = lib.nn.ReplicationPad3d((pl, pr, pt, pbt, pf, pbk))(x)
        eq(out[:, :, pf:-pbk, pt:-pbt, pl:-pr], x)
        g = randn(lib, *out.shape, seed=1)
        out.backward(g)
        eq(x.grad[:, :, 1:-1, 1:-1, 1:-1], g[:, :, pf + 1:-pbk - 1, pt + 1:-pbt - 1,
                                             pl + 1:-pr - 1])


def _module_empty_inputs(lib, module, inputs):
    """upstream's ``_test_module_empty_inputs``: empty inputs run through ``module`` and back,
    giving zero gradients to the parameters and the inputs."""
    for inp in inputs:
        inp.requires_grad_(True)
    out = module(*inputs)
    out.backward(lib.rand_like(out))
    for p in module.parameters():
        if p.requires_grad:
            assert lib.equal(p.grad, lib.zeros_like(p.grad))
    for inp in inputs:
        assert lib.equal(inp.grad, lib.zeros_like(inp))
    return out


_EMPTY_CASES = [(True, (0, 10, 64), (0, 20, 64)), (False, (10, 0, 64), (20, 0, 64))]


def _encoder_layer(lib, batch_first):
    return lib.nn.TransformerEncoderLayer(d_model=64, nhead=8, batch_first=batch_first,
                                          dtype=lib.double)


def _decoder_layer(lib, batch_first):
    return lib.nn.TransformerDecoderLayer(d_model=64, nhead=8, batch_first=batch_first,
                                          dtype=lib.double)


@pytest.mark.parametrize('batch_first,input_shape,_', _EMPTY_CASES)
def test_TransformerEncoder_empty(lib, batch_first, input_shape, _):
    input = rand(lib, *input_shape, dtype='double')
    encoder = lib.nn.TransformerEncoder(_encoder_layer(lib, batch_first), num_layers=6)
    check_module_empty_input(lib, encoder, input, check_size=False)


@pytest.mark.parametrize('batch_first,memory_shape,tgt_shape', _EMPTY_CASES)
def test_TransformerDecoderLayer_empty(lib, batch_first, memory_shape, tgt_shape):
    memory = rand(lib, *memory_shape, dtype='double')
    tgt = rand(lib, *tgt_shape, dtype='double', requires_grad=True)
    out = _module_empty_inputs(lib, _decoder_layer(lib, batch_first), [tgt, memory])
    assert out.shape == tgt.shape


@pytest.mark.parametrize('batch_first,memory_shape,tgt_shape', _EMPTY_CASES)
def test_TransformerDecoder_empty(lib, batch_first, memory_shape, tgt_shape):
    memory = rand(lib, *memory_shape, dtype='double')
    tgt = rand(lib, *tgt_shape, dtype='double', requires_grad=True)
    decoder = lib.nn.TransformerDecoder(_decoder_layer(lib, batch_first), num_layers=6)
    out = _module_empty_inputs(lib, decoder, [tgt, memory])
    assert out.shape == tgt.shape


def test_Transformer_empty(lib):
    """(upstream: d_model 512 and feed-forward 2048; here 64 and 128)"""
    model = lib.nn.Transformer(d_model=64, nhead=16, num_encoder_layers=12,
                               dim_feedforward=128, dtype=lib.double)
    src = rand(lib, 10, 0, 64, dtype='double', requires_grad=True)
    tgt = rand(lib, 20, 0, 64, dtype='double', requires_grad=True)
    out = _module_empty_inputs(lib, model, [src, tgt])
    assert out.shape == (20, 0, 64)


# -- TransformerEncoderLayer on known numbers ------------------------------------------------
_INPUT_5x2 = [[[0.7462, 0.6653, 0.5679, 0.4891], [0.5387, 0.1655, 0.3565, 0.0471]],
              [[0.8335, 0.2799, 0.5031, 0.2947], [0.1402, 0.0318, 0.7636, 0.1346]],
              [[0.6333, 0.9344, 0.1376, 0.9938], [0.8924, 0.2872, 0.6692, 0.2944]],
              [[0.9897, 0.6915, 0.3154, 0.1733], [0.8645, 0.3513, 0.3064, 0.0767]],
              [[0.8117, 0.2366, 0.4838, 0.7881], [0.3718, 0.4945, 0.9511, 0.0864]]]
_REF_5x2 = [[[2.428589, 0.020835, -0.602055, -0.085249], [2.427987, 0.021213, -0.602496, -0.084103]],
            [[2.424689, 0.019155, -0.604793, -0.085672], [2.413863, 0.022211, -0.612486, -0.072490]],
            [[2.433774, 0.021598, -0.598343, -0.087548], [2.425104, 0.019748, -0.604515, -0.084839]],
            [[2.436185, 0.022682, -0.596625, -0.087261], [2.433556, 0.021891, -0.598509, -0.086832]],
            [[2.416246, 0.017512, -0.610712, -0.082961], [2.422901, 0.024187, -0.606178, -0.074929]]]
_REF_5x2_MASKED = [
    [[2.429026, 0.020793, -0.601741, -0.085642], [2.428811, 0.021445, -0.601912, -0.084252]],
    [[2.425009, 0.019155, -0.604566, -0.085899], [2.415408, 0.02249, -0.611415, -0.073]],
    [[2.434199, 0.021682, -0.598039, -0.087699], [2.42598, 0.019941, -0.603896, -0.085091]],
    [[2.436457, 0.022736, -0.59643, -0.08736], [2.434021, 0.022093, -0.598179, -0.08679]],
    [[2.416531, 0.017498, -0.610513, -0.083181], [2.4242, 0.024653, -0.605266, -0.074959]]]


@pytest.mark.parametrize('batch_first', [True, False])
@pytest.mark.parametrize('training', [True, False])
def test_transformerencoderlayer(lib, batch_first, training):
    """(upstream also runs a NestedTensor through the fast path: ember has no torch.nested)"""
    atol, rtol = 1e-5, 1e-7

    def perm_fn(x):
        return x.transpose(1, 0) if batch_first else x

    def close(result, ref):
        assert result.shape == ref.shape
        eq(result, ref, atol=atol, rtol=rtol)

    with contextlib.nullcontext() if training else lib.no_grad():  # (the fast path's mode)
        model = cos_params(lib, lib.nn.TransformerEncoderLayer(4, 2, 16, 0.0,
                                                               batch_first=batch_first))
        if not training:
            model = model.eval()
        encoder_input = lib.tensor([[[20., 30., 40., 50.]]])
        ref_output = lib.tensor([[[2.258703, 0.127985, -0.697881, 0.170862]]])
        close(model(encoder_input), ref_output)
        # 0 values are NOT masked: this masks nothing
        close(model(encoder_input, src_key_padding_mask=lib.tensor([[0]]) == 1), ref_output)
        result = model(encoder_input, src_key_padding_mask=lib.tensor([[1]]) == 1)
        if training or not batch_first:
            # off the fast path a fully masked row attends to nothing: no NaN, and the skip
            # connections keep the output nonzero
            assert not lib.isnan(result).any()
        else:
            assert lib.isnan(result).all()   # the fast path's NaN

        encoder_input = perm_fn(lib.tensor([[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]]))
        ref_output = perm_fn(lib.tensor([[[2.272644, 0.119035, -0.691669, 0.153486]],
                                         [[2.272644, 0.119035, -0.691669, 0.153486]]]))
        close(model(encoder_input), ref_output)
        close(model(encoder_input, src_key_padding_mask=lib.tensor([[0, 0]]) == 1), ref_output)
        result = model(encoder_input, src_key_padding_mask=lib.tensor([[1, 0]]) == 1)
        close(result, perm_fn(lib.tensor([[[2.301516, 0.092249, -0.679101, 0.103088]],
                                          [[2.301516, 0.092249, -0.679101, 0.103088]]])))

        encoder_input = perm_fn(lib.tensor(_INPUT_5x2))
        ref_output = perm_fn(lib.tensor(_REF_5x2))
        close(model(encoder_input), ref_output)
        mask = lib.zeros([2, 5]) == 1
        close(model(encoder_input, src_key_padding_mask=mask), ref_output)
        mask[0, 1] = 1
        mask[1, 3] = 1
        mask[1, 4] = 1
        close(model(encoder_input, src_key_padding_mask=mask), perm_fn(lib.tensor(_REF_5x2_MASKED)))


# -- RNNs ----------------------------------------------------------------------------------
def test_rnn_retain_variables(lib):
    """(double: upstream's CPU dtype)"""
    dt = lib.double
    for i, rnn in enumerate([lib.nn.LSTM(10, 20, num_layers=2).to(dt),
                             lib.nn.GRU(10, 20, num_layers=2).to(dt),
                             lib.nn.RNN(10, 20, num_layers=2).to(dt)]):
        input = randn(lib, 5, 6, 10, seed=i, dtype='double', requires_grad=True)
        output = rnn(input)
        output[0].sum().backward(retain_graph=True)
        grads = [input.grad.data.clone()] + [p.grad.data.clone() for p in rnn.parameters()]
        for _ in range(4):
            rnn.zero_grad()
            input.grad.data.zero_()
            output[0].sum().backward(retain_graph=True)
            grads2 = [input.grad.data] + [p.grad.data for p in rnn.parameters()]
            eq(grads, grads2)


def _pad(lib, var, length):
    if var.size(0) == length:
        return var
    return lib.cat([var, var.new_zeros(length - var.size(0), *var.size()[1:])])


def _maybe_index_tuple(maybe_tuple_of_tensors, index):
    if maybe_tuple_of_tensors is None:
        return None
    return tuple(maybe_tuple_of_tensors[j][:, index:index + 1, :].contiguous()
                 for j in range(2))


@pytest.mark.parametrize('enforce_sorted,lengths', [
    (True, [5]), (False, [5]), (True, [10, 10, 6, 2, 2, 1, 1]),
    (False, [10, 10, 6, 2, 2, 1, 1]), (False, [2, 1, 3, 2, 10, 5, 3])])
@pytest.mark.parametrize('use_default_hiddens', [True, False])
@pytest.mark.parametrize('proj_size', [0, 2])
def test_variable_sequence(lib, enforce_sorted, lengths, use_default_hiddens, proj_size):
    rnn_utils = lib.nn.utils.rnn
    input_size, hidden_size, num_layers, num_directions = 3, 4, 2, 2
    max_length = max(lengths)
    x_leaf = randn(lib, max_length, len(lengths), input_size, requires_grad=True)
    lstm = lib.nn.LSTM(input_size, hidden_size, bidirectional=True, num_layers=num_layers,
                       proj_size=proj_size)
    lstm2 = deepcopy(lstm)
    x = x_leaf
    hidden0 = None
    if not use_default_hiddens:
        real_hidden_size = hidden_size if proj_size == 0 else proj_size
        hidden0 = (randn(lib, num_directions * num_layers, len(lengths), real_hidden_size,
                         seed=1),
                   randn(lib, num_directions * num_layers, len(lengths), hidden_size, seed=2))
    # the sequences one by one
    seq_outs, seq_hiddens = [], []
    for i, n in enumerate(lengths):
        out, hid = lstm2(x[:n, i:i + 1], _maybe_index_tuple(hidden0, i))
        seq_outs.append(_pad(lib, out, max_length))
        seq_hiddens.append(hid)
    seq_out = lib.cat(seq_outs, 1)
    seq_hidden = tuple(lib.cat(hids, 1) for hids in zip(*seq_hiddens))
    # packed
    packed = rnn_utils.pack_padded_sequence(x, lengths, enforce_sorted=enforce_sorted)
    packed_out, packed_hidden = lstm(packed, hidden0)
    unpacked, unpacked_len = rnn_utils.pad_packed_sequence(packed_out)
    prec = 1e-5   # (dtype2prec for float)
    eq(packed_hidden, seq_hidden, atol=prec, rtol=0)
    eq(unpacked, seq_out, atol=prec, rtol=0)
    eq(unpacked_len, lengths, atol=prec, rtol=0)
    seq_out.sum().backward()
    grad_x = x_leaf.grad.data.clone()
    x_leaf.grad.data.zero_()
    unpacked.sum().backward()
    eq(x_leaf.grad, grad_x, atol=prec, rtol=0)
    for p1, p2 in zip(lstm.parameters(), lstm2.parameters()):
        eq(p1.grad, p2.grad, atol=2e-4, rtol=0)


# -- module conversions ---------------------------------------------------------------------
@pytest.mark.parametrize('dtype', ['cfloat', 'cdouble', 'float'])
def test_to_complex(lib, dtype):
    dt = getattr(lib, dtype)
    m = lib.nn.Linear(3, 5)
    assert m is m.to('cpu')
    m.to(dt)
    assert m.weight.dtype is dt
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        m.to(lib.cfloat)
    assert len(w) == 1
    assert "Complex modules are a new feature" in str(w[-1].message)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_module_to_empty(lib, dtype):
    dt = getattr(lib, dtype)

    class MyModule(lib.nn.Module):
        def __init__(self, in_features, out_features, device=None, dtype=None):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.randn(in_features, out_features, device=device,
                                                     dtype=dtype))

        def forward(self, x):
            return x @ self.weight

    input = randn(lib, 5, 10, dtype=dtype)
    m = MyModule(10, 1, device='meta', dtype=dt)
    m(input)
    with pytest.raises(NotImplementedError) as e:
        m.to('cpu')
    assert str(e.value) == (
        "Cannot copy out of meta tensor; no data! Please use torch.nn.Module.to_empty() "
        "instead of torch.nn.Module.to() when moving module from meta to a different device.")
    m.to_empty(device='cpu')
    assert m(input).shape == (5, 1) and not m.weight.is_meta
    with lib.no_grad():
        lib.nn.init.kaiming_uniform_(m.weight)
    eq(m(input), input @ m.weight)
    m.to_empty(device='meta')
    assert m.weight.is_meta
    assert m(input).shape == (5, 1)


def test_module_to_empty_non_recursive(lib):
    class Layer(lib.nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.randn(in_features, out_features))
            self.register_buffer('buf', lib.randn(out_features))

        def forward(self, x):
            return x @ self.weight + self.buf

    class MyModule(lib.nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = lib.nn.Parameter(lib.randn(in_features, out_features))
            self.register_buffer('buf1', lib.randn(out_features))
            self.layer = Layer(out_features, out_features)

        def forward(self, x):
            return self.layer(x @ self.weight + self.buf1)

    with lib.device('meta'):
        m = MyModule(3, 5)
    m.to_empty(device='cpu', recurse=False)
    # the parent's parameters and buffers are materialised, its children's are still meta
    assert not m.weight.is_meta and not m.buf1.is_meta
    for p in (*m.layer.parameters(), *m.layer.buffers()):
        assert p.is_meta


def test_skip_init(lib):
    lib.manual_seed(1)
    m_initialized = lib.nn.Linear(5, 1)
    m_initialized.to('cpu')
    lib.manual_seed(1)
    m_uninitialized = lib.nn.utils.skip_init(lib.nn.Linear, 5, 1, device='cpu')
    assert m_initialized.weight.device == m_uninitialized.weight.device
    assert m_uninitialized.weight.shape == (1, 5) and not m_uninitialized.weight.is_meta
    assert not lib.allclose(m_initialized.weight, m_uninitialized.weight)


# -- uint8 resizing --------------------------------------------------------------------------
# (upstream's test_upsamplingBiMode2d_consistency and
# test_upsamplingBiLinear2d_consistency_interp_size_bug are adapted, with antialias, in
# test_nn_upstream_rest_device_resample_aa.py)
@pytest.mark.parametrize('mode', ['bilinear', 'bicubic'])
@pytest.mark.parametrize('align_corners', [True, False])
def test_upsampling_uint8_within_one_of_torch(mode, align_corners):
    """(ember's own) a uint8 image resized by ember is within 1 of torch's (whose kernel
    sums in fixed point) -- also bicubic, whose overshoot both clip between the passes."""
    import ember
    data = np.random.default_rng(0).integers(0, 256, (2, 3, 40, 40)).astype(np.uint8)
    for size in [(6, 9), (60, 63), (47, 50)]:
        kw = dict(size=size, mode=mode, align_corners=align_corners)
        mine = ember.nn.functional.interpolate(ember.tensor(data), **kw)
        theirs = torch.nn.functional.interpolate(torch.tensor(data), **kw)
        assert mine.dtype == ember.uint8
        eq(mine.float(), theirs.float(), atol=1, rtol=0)
