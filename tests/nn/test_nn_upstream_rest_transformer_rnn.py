"""PyTorch's test/test_nn.py, class TestNN, from test_Transformer_cell to test_RNN_input_size_zero
(in upstream's order): Transformer / TransformerDecoder(Layer) numerics and argument checks,
and the RNN / GRU / LSTM (with projections) argument checks and initial hidden states.

Upstream checks the deterministic transformer tests against numbers printed by torch; here
the same model (upstream's cos(0, 1, 2...) weights) runs on ember and on torch and the two
outputs are compared (``oracle``), which checks every entry of the result, not a sample.

Not adapted: test_cudnn_rnn_dropout_states_device, test_cudnn_weight_format,
test_cudnn_weight_tying, test_rnn_check_device, test_projections_lstm_check_device,
test_RNN_cpu_vs_cudnn_*, test_RNN_cudnn_weight_norm, test_partial_flat_weights,
test_RNN_dropout, test_error_RNN_seq_len_zero, test_RNN_dropout_state,
test_RNN_change_dropout (all CUDA or cuDNN only).
"""
import re

import pytest

from ._nn_rest import cos_params, lib_fixture, oracle, rand, randn, raises

XFAIL = {}
lib = lib_fixture(XFAIL)


def test_Transformer_cell(lib):
    d_model, nhead, bsz, seq_length, tgt_length = 64, 16, 8, 35, 15
    for batch_first, src_size, tgt_size in zip(
            (True, False), [(bsz, seq_length, d_model), (seq_length, bsz, d_model)],
            [(bsz, tgt_length, d_model), (tgt_length, bsz, d_model)]):
        transformer = lib.nn.Transformer(d_model, nhead, 4, 3, 256, 0.3,
                                         batch_first=batch_first, dtype=lib.double)
        src = randn(lib, *src_size, dtype='double')
        src_mask = transformer.generate_square_subsequent_mask(seq_length).double()
        tgt = randn(lib, *tgt_size, seed=1, dtype='double')
        tgt_mask = transformer.generate_square_subsequent_mask(tgt_length).double()
        memory_mask = randn(lib, tgt_length, seq_length, seed=2).double()
        output = transformer(src, tgt, src_mask=src_mask, tgt_mask=tgt_mask,
                             memory_mask=memory_mask,
                             src_key_padding_mask=rand(lib, bsz, seq_length, seed=3) >= 0.5,
                             tgt_key_padding_mask=rand(lib, bsz, tgt_length, seed=4) >= 0.5,
                             memory_key_padding_mask=rand(lib, bsz, seq_length, seed=5) >= 0.5)
        assert output.shape == tgt.shape and output.dtype == lib.double
        output.sum().backward()
        assert all(p.grad is not None for p in transformer.parameters())


# Upstream's deterministic decoder inputs: (decoder input, memory), sequence-first.
_DEC = [[[0.4517, 0.6793, 0.5313, 0.0034], [0.2678, 0.3677, 0.4459, 0.7166]],
        [[0.8100, 0.3716, 0.4096, 0.1976], [0.6958, 0.8844, 0.6081, 0.8315]],
        [[0.0494, 0.9343, 0.5955, 0.3830], [0.5404, 0.3464, 0.9378, 0.6200]]]
_MEM = [[[0.7462, 0.6653, 0.5679, 0.4891], [0.5387, 0.1655, 0.3565, 0.0471]],
        [[0.8335, 0.2799, 0.5031, 0.2947], [0.1402, 0.0318, 0.7636, 0.1346]],
        [[0.6333, 0.9344, 0.1376, 0.9938], [0.8924, 0.2872, 0.6692, 0.2944]],
        [[0.9897, 0.6915, 0.3154, 0.1733], [0.8645, 0.3513, 0.3064, 0.0767]],
        [[0.8117, 0.2366, 0.4838, 0.7881], [0.3718, 0.4945, 0.9511, 0.0864]]]
_PAIRS = [([[[20., 30., 40., 50.]]], [[[60., 70., 80., 90.]]]),
          ([[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]], [[[1., 2., 3., 4.]]]),
          ([[[1., 2., 3., 4.]], [[5., 6., 7., 8.]]],
           [[[9., 10., 11., 12.]], [[11., 12., 13., 14.]]]),
          (_DEC, _MEM)]


def _decoder_outputs(lib, model, batch_first):
    """The decoder's outputs on upstream's inputs, with and without padding masks."""
    def perm(x):
        x = lib.tensor(x)
        return x.transpose(1, 0) if batch_first else x
    outs = [model(perm(d), perm(m)) for d, m in _PAIRS]
    dec, mem = perm(_DEC), perm(_MEM)
    tgt_mask = lib.zeros(2, 3) == 1
    outs.append(model(dec, mem, tgt_key_padding_mask=tgt_mask))
    tgt_mask[0, 2] = tgt_mask[1, 1] = tgt_mask[1, 2] = True
    outs.append(model(dec, mem, tgt_key_padding_mask=tgt_mask))
    mem_mask = lib.zeros(2, 5) == 1
    outs.append(model(dec, mem, memory_key_padding_mask=mem_mask))
    mem_mask[0, 4] = mem_mask[1, 3] = mem_mask[1, 4] = True
    outs.append(model(dec, mem, memory_key_padding_mask=mem_mask))
    return outs


def _decoder_layer(lib, activation, batch_first):
    return cos_params(lib, lib.nn.TransformerDecoderLayer(
        4, 2, 16, 0.0, activation, batch_first=batch_first))


@pytest.mark.parametrize('batch_first', [False, True])
def test_transformerdecoderlayer(batch_first):
    oracle(lambda lib: _decoder_outputs(lib, _decoder_layer(lib, 'relu', batch_first),
                                        batch_first), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('activation', ['gelu', 'F.gelu', 'nn.GELU()'])
def test_transformerdecoderlayer_gelu(batch_first, activation):
    def fn(lib):
        act = {'gelu': 'gelu', 'F.gelu': lib.nn.functional.gelu,
               'nn.GELU()': lib.nn.GELU()}[activation]
        return _decoder_outputs(lib, _decoder_layer(lib, act, batch_first), batch_first)
    oracle(fn, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize('batch_first', [False, True])
def test_transformerdecoder(batch_first):
    def fn(lib):
        outs = []
        for activation in ('relu', 'gelu'):
            layer = _decoder_layer(lib, lib.nn.functional.relu if activation == 'relu'
                                   else activation, batch_first)
            outs += _decoder_outputs(lib, lib.nn.TransformerDecoder(layer, 1), batch_first)
            if activation == 'relu':
                for n, norm in [(2, None), (6, None), (2, lib.nn.LayerNorm(4)),
                                (6, lib.nn.LayerNorm(4))]:
                    model = lib.nn.TransformerDecoder(layer, n, norm=norm)
                    outs += _decoder_outputs(lib, model, batch_first)[:4]
        return outs
    oracle(fn, rtol=1e-5, atol=1e-5)


def test_cudnn_forward_exception(lib):
    nn = lib.nn
    z = lib.zeros(1, 2, 19)
    rnns = [(nn.LSTM(10, 20, batch_first=True), (z, z)),
            (nn.LSTM(10, 20, batch_first=True, proj_size=10), (z, z)),
            (nn.GRU(10, 20, batch_first=True), z),
            (nn.RNN(10, 20, batch_first=True), z)]
    x_wrong, x_right = randn(lib, 2, 3, 3), randn(lib, 2, 3, 10)
    for rnn, hidden in rnns:
        with raises(RuntimeError, "Expected hidden.*size.*got"):
            rnn(x_right, hidden)
        with raises(RuntimeError, re.escape("input.size(-1) must be equal to input_size")):
            rnn(x_wrong)


def _update_shape(shape, dim, size):
    shape = list(shape)
    shape[dim] = size
    return tuple(shape)


def test_transformer_args_check(lib):
    nn = lib.nn
    d_model, nhead, n_enc, n_dec, dim_ff, dropout = 16, 4, 2, 3, 65, 0.3
    bsz, seq_len, tgt_len, wrong_bsz, wrong_d_model = 3, 35, 15, 7, 63

    def test(enc_shape, dec_shape, src_mask_len=None, tgt_mask_len=None,
             memory_mask_size=None, src_kpm=None, tgt_kpm=None, mem_kpm=None):
        model = nn.Transformer(d_model, nhead, n_enc, n_dec, dim_ff, dropout)
        mask = model.generate_square_subsequent_mask
        kwargs = dict(
            src_mask=None if src_mask_len is None else mask(src_mask_len),
            tgt_mask=None if tgt_mask_len is None else mask(tgt_mask_len),
            memory_mask=None if memory_mask_size is None else rand(lib, *memory_mask_size),
            src_key_padding_mask=None if src_kpm is None else rand(lib, *src_kpm) >= 0.5,
            tgt_key_padding_mask=None if tgt_kpm is None else rand(lib, *tgt_kpm) >= 0.5,
            memory_key_padding_mask=None if mem_kpm is None else rand(lib, *mem_kpm) >= 0.5)
        with raises(RuntimeError):
            model(randn(lib, *enc_shape), randn(lib, *dec_shape, seed=1), **kwargs)

    enc, dec = (seq_len, bsz, d_model), (tgt_len, bsz, d_model)
    test(_update_shape(enc, 1, wrong_bsz), dec)
    test(enc, _update_shape(dec, 1, wrong_bsz))
    test(_update_shape(enc, 2, wrong_d_model), dec)
    test(enc, _update_shape(dec, 2, wrong_d_model))
    with raises(AssertionError):
        nn.Transformer(d_model, 5, n_enc, n_dec, dim_ff, dropout)
    test(enc, dec, src_mask_len=seq_len + 1)
    test(enc, dec, tgt_mask_len=tgt_len + 1)
    test(enc, dec, memory_mask_size=(tgt_len + 1, seq_len + 1))
    # a wrong padding mask passes the forward: the inner ``raises(RuntimeError)`` fails
    for kw in ({'src_kpm': (wrong_bsz, seq_len + 1)}, {'tgt_kpm': (wrong_bsz, tgt_len + 1)},
               {'mem_kpm': (wrong_bsz, seq_len + 1)}):
        with pytest.raises(AssertionError):
            test(enc, dec, **kw)
    for activation in [lib.nn.functional.relu, lib.nn.functional.gelu]:
        nn.Transformer(d_model, nhead, n_enc, n_dec, dim_ff, dropout, activation)
    with raises(RuntimeError):
        nn.Transformer(d_model, nhead, n_enc, n_dec, dim_ff, dropout, "abc")


def test_transformer_layer_args_check(lib):
    for name in ['TransformerEncoderLayer', 'TransformerDecoderLayer']:
        for activation in [lib.nn.functional.relu, lib.nn.functional.gelu]:
            getattr(lib.nn, name)(128, 4, 65, 0.3, activation)
        with raises(RuntimeError):
            getattr(lib.nn, name)(128, 4, 65, 0.3, "abc")


def test_transformer_activation_error_message():
    """(ember's own) the message of the unknown-activation error is torch's."""
    oracle(lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, 0.0, "abc"))
    oracle(lambda lib: lib.nn.Transformer(8, 3, 1, 1, 16))


def test_rnn_args_check(lib):
    input_size, hidden_size, num_layers, batch_size, seq_len, bad = 3, 5, 2, 4, 6, 7
    good_input = (seq_len, batch_size, input_size)
    good_hidden = (num_layers, batch_size, hidden_size)

    def inputs(input_shape, hidden_shape, mode):
        input, hidden = randn(lib, *input_shape), randn(lib, *hidden_shape, seed=1)
        if mode != 'LSTM':
            return [(input, hidden)]
        if hidden_shape == good_hidden:
            return [(input, (hidden, hidden))]
        good = randn(lib, *good_hidden, seed=2)
        return [(input, (hidden, good)), (input, (good, hidden))]

    for mode in ['RNN', 'GRU', 'LSTM']:
        for input_shape, hidden_shape in [(_update_shape(good_input, 1, bad), good_hidden),
                                          (good_input, _update_shape(good_hidden, 1, bad)),
                                          (_update_shape(good_input, 2, bad), good_hidden),
                                          (good_input, _update_shape(good_hidden, 2, bad)),
                                          (good_input, _update_shape(good_hidden, 0, bad))]:
            for input, hidden in inputs(input_shape, hidden_shape, mode):
                model = getattr(lib.nn, mode)(input_size, hidden_size, num_layers)
                with raises(RuntimeError):
                    model(input, hidden)


def test_projections_lstm_args_check(lib):
    input_size, hidden_size, proj_size, num_layers, batch_size, seq_len, bad = 3, 5, 2, 2, 4, 6, 7
    good_input = (seq_len, batch_size, input_size)
    good_h = (num_layers, batch_size, proj_size)
    good_c = (num_layers, batch_size, hidden_size)
    cases = [(_update_shape(good_input, 1, bad), good_h, good_c),
             (good_input, _update_shape(good_h, 1, bad), _update_shape(good_c, 1, bad)),
             (_update_shape(good_input, 2, bad), good_h, good_c),
             (good_input, _update_shape(good_h, 2, bad), _update_shape(good_c, 2, bad)),
             (good_input, _update_shape(good_h, 0, bad), _update_shape(good_c, 0, bad)),
             (good_input, _update_shape(good_h, 0, hidden_size), good_c),
             (good_input, _update_shape(good_h, 0, bad), good_c),
             (good_input, good_h, _update_shape(good_c, 0, bad))]
    for input_shape, h_shape, c_shape in cases:
        model = lib.nn.LSTM(input_size, hidden_size, num_layers, proj_size=proj_size)
        with raises(RuntimeError):
            model(randn(lib, *input_shape), (randn(lib, *h_shape, seed=1),
                                             randn(lib, *c_shape, seed=2)))


def test_rnn_args_error_messages():
    """(ember's own) the RNN modules' shape errors carry torch's message."""
    def fn(lib, mode, hidden_shape, input_shape=(6, 4, 3)):
        model = getattr(lib.nn, mode)(3, 5, 2)
        h = randn(lib, *hidden_shape)
        return model(randn(lib, *input_shape), (h, h) if mode == 'LSTM' else h)
    for mode in ['RNN', 'GRU', 'LSTM']:
        for hidden_shape in [(2, 7, 5), (2, 4, 7), (7, 4, 5)]:
            oracle(lambda lib: fn(lib, mode, hidden_shape))
        oracle(lambda lib: fn(lib, mode, (2, 4, 5), (6, 7, 3)))
        oracle(lambda lib: fn(lib, mode, (2, 4, 5), (6, 4, 7)))


def test_rnn_initial_hidden_state(lib):
    for mode in ['RNN', 'GRU', 'LSTM']:
        rnn = getattr(lib.nn, mode)(30, 20, 2)
        input = randn(lib, 10, 32, 30)
        hidden = lib.zeros(2, 32, 20)
        if mode == 'LSTM':
            hidden = (hidden, hidden)
        output1, hidden1 = rnn(input, hidden)
        output2, hidden2 = rnn(input)
        assert lib.equal(output1, output2)
        if mode == 'LSTM':
            assert all(lib.equal(a, b) for a, b in zip(hidden1, hidden2))
        else:
            assert lib.equal(hidden1, hidden2)


def test_projections_lstm_initial_hidden_state(lib):
    for bidir in [False, True]:
        rnn = lib.nn.LSTM(30, 20, 2, bidirectional=bidir, proj_size=10)
        num_dirs = 2 if bidir else 1
        input = randn(lib, 10, 32, 30)
        hidden = (lib.zeros(2 * num_dirs, 32, 10), lib.zeros(2 * num_dirs, 32, 20))
        output1, hidden1 = rnn(input, hidden)
        output2, hidden2 = rnn(input)
        assert lib.equal(output1, output2)
        assert all(lib.equal(a, b) for a, b in zip(hidden1, hidden2))


def test_rnn_values():
    """(ember's own) RNN / GRU / LSTM (projections, two layers, both directions) with the
    same weights give torch's outputs and gradients."""
    def fn(lib):
        outs = []
        for mode, kw in [('RNN', {}), ('RNN', {'nonlinearity': 'relu'}), ('GRU', {}),
                         ('LSTM', {}), ('LSTM', {'proj_size': 3})]:
            rnn = cos_params(lib, getattr(lib.nn, mode)(4, 5, 2, bidirectional=True, **kw))
            x = randn(lib, 6, 2, 4, requires_grad=True)
            out, h = rnn(x)
            g, = lib.autograd.grad(out.sum(), x)
            outs += [out, g] + (list(h) if mode == 'LSTM' else [h])
        return outs
    oracle(fn, rtol=1e-4, atol=1e-5)


def test_projections_errors_on_gru_and_rnn(lib):
    for mode in ['RNN', 'GRU']:
        with raises(ValueError, "proj_size argument is only supported for LSTM, not RNN or GRU"):
            getattr(lib.nn, mode)(30, 20, 2, proj_size=10)


def test_RNN_input_size_zero(lib):
    for module in (lib.nn.RNN, lib.nn.LSTM, lib.nn.GRU):
        rnn = module(input_size=3, hidden_size=4)
        outs = rnn(lib.zeros((5, 0, 3)))
        assert outs[0].shape == lib.Size([5, 0, 4])
        outs[0].sum().backward()
