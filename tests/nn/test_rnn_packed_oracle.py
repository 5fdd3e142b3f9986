"""nn.utils.rnn (padding, packing, PackedSequence) and RNN/LSTM/GRU on packed batches,
against torch 2.13: values, dtypes, grad_fn names, gradients, errors; the recurrent layers
with the same float64 weights (copied by state_dict), outputs, final states and the
gradients of the inputs, initial states and every parameter."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check
from ..optim.helpers import same_error

LENGTHS = [3, 5, 1, 5, 2]  # unsorted, with a tie: the sort must be torch's (stable)
SORTED = [5, 5, 3, 2, 1]


def _seqs(lengths, feat=(2,), seed=0):
    return [arr(n, *feat, seed=seed + i) for i, n in enumerate(lengths)]


def _R(lib):
    return lib.nn.utils.rnn


# -- pad_sequence / unpad_sequence ---------------------------------------------------------
@pytest.mark.parametrize('padding_side', ['right', 'left'])
@pytest.mark.parametrize('batch_first', [False, True])
def test_pad_sequence(batch_first, padding_side):
    check(lambda lib, *s: _R(lib).pad_sequence(list(s), batch_first=batch_first,
                                               padding_value=-1.5, padding_side=padding_side),
          *_seqs(LENGTHS, (2, 3)))


def test_pad_sequence_of_a_tensor_and_mixed_dtypes():
    check(lambda lib, x: _R(lib).pad_sequence(x), arr(3, 4, 2))
    check(lambda lib, a, b: _R(lib).pad_sequence([a, b.double()]),
          arr(2, 3).astype(np.float32), arr(4, 3).astype(np.float32))


@pytest.mark.parametrize('batch_first', [False, True])
def test_unpad_sequence(batch_first):
    def fn(lib, *s):
        R = _R(lib)
        padded = R.pad_sequence(list(s), batch_first=batch_first)
        return R.unpad_sequence(padded, lib.tensor(LENGTHS), batch_first=batch_first)
    check(fn, *_seqs(LENGTHS))


def test_pad_sequence_errors():
    same_error(lambda lib: _R(lib).pad_sequence([]))
    same_error(lambda lib: _R(lib).pad_sequence(3))
    same_error(lambda lib: _R(lib).pad_sequence([lib.ones(2)], padding_side='up'))
    same_error(lambda lib: _R(lib).pad_sequence([lib.ones(2, 3), lib.ones(1, 2)]))


# -- packing -------------------------------------------------------------------------------
def _packed_fields(p):
    return [p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices]


@pytest.mark.parametrize('lengths_as', ['list', 'tensor', 'int32'])
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('enforce_sorted', [True, False])
def test_pack_padded_sequence(enforce_sorted, batch_first, lengths_as):
    lengths = SORTED if enforce_sorted else LENGTHS

    def fn(lib, x):
        n = {'list': lengths, 'tensor': lib.tensor(lengths),
             'int32': lib.tensor(lengths, dtype=lib.int32)}[lengths_as]
        p = _R(lib).pack_padded_sequence(x, n, batch_first=batch_first,
                                         enforce_sorted=enforce_sorted)
        assert type(p).__name__ == 'PackedSequence' and isinstance(p, tuple)
        return _packed_fields(p)
    shape = (5, 5, 3) if batch_first else (5, 5, 3)
    check(fn, arr(*shape, seed=3), double=True)


@pytest.mark.parametrize('total_length', [None, 7])
@pytest.mark.parametrize('batch_first', [False, True])
@pytest.mark.parametrize('enforce_sorted', [True, False])
def test_pad_packed_sequence(enforce_sorted, batch_first, total_length):
    lengths = SORTED if enforce_sorted else LENGTHS

    def fn(lib, *s):
        R = _R(lib)
        p = R.pack_sequence(list(s), enforce_sorted=enforce_sorted)
        return R.pad_packed_sequence(p, batch_first=batch_first, padding_value=0.25,
                                     total_length=total_length)
    check(fn, *_seqs(lengths, (2,)))


@pytest.mark.parametrize('enforce_sorted', [True, False])
def test_pack_and_unpack_sequence(enforce_sorted):
    lengths = SORTED if enforce_sorted else LENGTHS

    def fn(lib, *s):
        R = _R(lib)
        p = R.pack_sequence(list(s), enforce_sorted=enforce_sorted)
        return _packed_fields(p) + R.unpack_sequence(p)
    check(fn, *_seqs(lengths, (3,)))


def test_packed_sequence_tuple_and_conversions():
    def fn(lib, *s):
        R = _R(lib)
        p = R.pack_sequence(list(s), enforce_sorted=False)
        rebuilt = R.PackedSequence(p.data, p.batch_sizes, p.sorted_indices)
        from_pair = R.PackedSequence((p.data, p.batch_sizes))
        d = p.double()
        assert p.to('cpu') is p and p.cpu() is p and p.to(p.data.dtype) is p
        assert not p.is_cuda and not p.is_pinned()
        assert p._fields == ('data', 'batch_sizes', 'sorted_indices', 'unsorted_indices')
        data, sizes, si, ui = p
        return (_packed_fields(rebuilt) + _packed_fields(from_pair) + _packed_fields(d)
                + [p.float().data, p.half().data, p.long().data, p.int().data,
                   R.invert_permutation(si), R.invert_permutation(None)])
    check(fn, *_seqs(LENGTHS, (2,)), grad=False)


def test_packing_errors():
    def pack(lengths, **kw):
        return lambda lib: _R(lib).pack_padded_sequence(lib.ones(5, 3, 2), lengths, **kw)
    same_error(pack([3, 1, 2]))
    same_error(pack([3, 1, 0], enforce_sorted=False))
    same_error(pack([3, 1]))
    same_error(lambda lib: _R(lib).pack_padded_sequence(lib.ones(5, 3, 2),
                                                        lib.tensor([[3, 2, 1]])))
    same_error(lambda lib: _R(lib).pack_padded_sequence(lib.ones(0, 3), []))

    def total_length(lib):
        p = _R(lib).pack_sequence([lib.ones(3), lib.ones(2)])
        _R(lib).pad_packed_sequence(p, total_length=2)
    same_error(total_length)


def test_a_length_beyond_the_padding_is_refused():
    """torch reads past the end of the padded tensor here; ember raises instead."""
    with pytest.raises(RuntimeError, match='pack_padded_sequence: a length'):
        ember.nn.utils.rnn.pack_padded_sequence(ember.ones(3, 2), [4, 1])


# -- recurrent layers on packed batches ----------------------------------------------------
def _run_packed(lib, module, xs, lengths, hx, batch_first, enforce_sorted):
    R = _R(lib)
    leaves = [lib.tensor(x, requires_grad=True) for x in xs]
    padded = R.pad_sequence(leaves, batch_first=batch_first)
    n = lengths if isinstance(lengths, list) else lib.tensor(lengths)
    packed = R.pack_padded_sequence(padded, n, batch_first=batch_first,
                                    enforce_sorted=enforce_sorted)
    h = None
    if hx is not None:
        h = (tuple(lib.tensor(a, requires_grad=True) for a in hx) if isinstance(hx, tuple)
             else lib.tensor(hx, requires_grad=True))
        leaves += list(h) if isinstance(h, tuple) else [h]
    out, state = module(packed) if h is None else module(packed, h)
    assert type(out).__name__ == 'PackedSequence'
    unpacked, out_lengths = R.pad_packed_sequence(out, batch_first=batch_first)
    outs = [out.data, unpacked] + (list(state) if isinstance(state, tuple) else [state])
    rng = np.random.default_rng(1)
    loss = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
    grads = lib.autograd.grad(loss, leaves + list(module.parameters()))
    return outs + [out.batch_sizes, out_lengths], grads


CASES = [
    # (mode, layer options, with hx, batch_first, enforce_sorted)
    ('RNN', dict(), False, False, True),
    ('RNN', dict(nonlinearity='relu', num_layers=2), True, True, False),
    ('RNN', dict(bidirectional=True), True, False, False),
    ('GRU', dict(), False, True, False),
    ('GRU', dict(num_layers=2, bidirectional=True), True, False, False),
    ('GRU', dict(bias=False), True, False, True),
    ('LSTM', dict(), False, False, False),
    ('LSTM', dict(num_layers=2, bidirectional=True), True, True, False),
    ('LSTM', dict(proj_size=2, num_layers=2, bidirectional=True), True, False, False),
    ('LSTM', dict(proj_size=3, batch_first=True), False, True, True),
]


@pytest.mark.parametrize('mode,options,with_hx,batch_first,enforce_sorted', CASES)
def test_recurrent_layers_on_packed_batches(mode, options, with_hx, batch_first,
                                            enforce_sorted):
    hidden, feat = 4, 3
    lengths = SORTED if enforce_sorted else LENGTHS
    xs = _seqs(lengths, (feat,), seed=20)
    options = dict(options, batch_first=batch_first)
    torch.manual_seed(0)
    t = getattr(torch.nn, mode)(feat, hidden, **options).double()
    e = getattr(ember.nn, mode)(feat, hidden, **options).double()
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    hx = None
    if with_hx:
        layers = options.get('num_layers', 1) * (2 if options.get('bidirectional') else 1)
        out_size = options.get('proj_size') or hidden
        hx = arr(layers, len(lengths), out_size, seed=30)
        if mode == 'LSTM':
            hx = (hx, arr(layers, len(lengths), hidden, seed=31))
    (e_out, e_grads), (t_out, t_grads) = [
        _run_packed(lib, m, xs, lengths, hx, batch_first, enforce_sorted)
        for lib, m in ((ember, e), (torch, t))]
    for i, (a, b) in enumerate(zip(e_out, t_out)):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype), i
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=f'output {i}')
    assert len(e_grads) == len(t_grads)
    for i, (a, b) in enumerate(zip(e_grads, t_grads)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11,
                                   err_msg=f'grad {i}')


def test_packed_input_errors():
    def wrong_hidden(lib):
        p = _R(lib).pack_sequence([lib.ones(3, 2), lib.ones(2, 2)])
        lib.nn.GRU(2, 3)(p, lib.zeros(1, 3, 3))
    same_error(wrong_hidden)

    def wrong_features(lib):
        p = _R(lib).pack_sequence([lib.ones(3, 2), lib.ones(2, 2)])
        lib.nn.LSTM(3, 3)(p)
    same_error(wrong_features)


def test_docstring_examples_and_docstrings():
    import doctest
    module = ember.nn.utils.rnn
    result = doctest.testmod(module, extraglobs={'ember': ember}, verbose=False)
    assert result.attempted > 0 and result.failed == 0, result
    for name in module.__all__:
        assert getattr(module, name).__doc__, name


@pytest.mark.parametrize('mode', ['RNN', 'LSTM', 'GRU'])
def test_flatten_parameters_and_flat_weights(mode):
    """Code that packs sequences often calls flatten_parameters() first (a no-op on the
    CPU, in torch too)."""
    out = []
    for lib in (ember, torch):
        m = getattr(lib.nn, mode)(2, 3, num_layers=2, bidirectional=True)
        before = [p.detach().clone() for p in m.parameters()]
        assert m.flatten_parameters() is None
        assert all(a is b for a, b in zip(m._flat_weights, m.parameters()))
        assert all((a == b.detach()).all() for a, b in zip(before, m.parameters()))
        out.append(m._flat_weights_names)
    assert out[0] == out[1]


def _tagger(lib):
    return lib.nn.ModuleList([lib.nn.Embedding(10, 4),
                              lib.nn.LSTM(4, 5, bidirectional=True, batch_first=True),
                              lib.nn.Linear(10, 3)]).double()


def test_training_a_packed_bilstm_tagger():
    """The usual pattern end to end: embed, pad, pack (unsorted), BiLSTM, unpack, a linear
    tagger, masked cross entropy, Adam; the same losses and weights as torch."""
    lengths = [4, 2, 5, 3]
    tokens = [np.arange(n) % 7 + i for i, n in enumerate(lengths)]
    tags = [np.arange(n) % 3 for n in lengths]
    torch.manual_seed(0)
    t_model = _tagger(torch)
    e_model = _tagger(ember)
    e_model.load_state_dict({k: ember.tensor(v.detach().numpy())
                             for k, v in t_model.state_dict().items()})
    out = []
    for lib, model in ((ember, e_model), (torch, t_model)):
        emb, lstm, lin = model
        opt = lib.optim.Adam(model.parameters(), lr=0.05)
        R = lib.nn.utils.rnn
        losses = []
        for _ in range(3):
            opt.zero_grad()
            x = R.pad_sequence([emb(lib.tensor(t)) for t in tokens], batch_first=True)
            packed = R.pack_padded_sequence(x, lib.tensor(lengths), batch_first=True,
                                            enforce_sorted=False)
            h, _ = lstm(packed)
            h, _ = R.pad_packed_sequence(h, batch_first=True)
            y = R.pad_sequence([lib.tensor(t) for t in tags], batch_first=True,
                               padding_value=-100)
            loss = lib.nn.functional.cross_entropy(lin(h).reshape(-1, 3), y.reshape(-1),
                                                   ignore_index=-100)
            loss.backward()
            opt.step()
            losses.append(float(loss))
        out.append((losses, [p.detach().numpy() for p in model.parameters()]))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10)
    for a, b in zip(out[0][1], out[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
