"""scaled_dot_product_attention, MultiheadAttention and TransformerEncoderLayer against torch,
with torch's weights copied into ember: outputs, attention weights, gradients of inputs and
parameters, masks, layouts, reprs, errors."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check


def _pair(make):
    """The same module in ember and torch, ember holding torch's (random) weights."""
    t = make(torch.nn).double()
    e = make(ember.nn).double()
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return e, t


def _close(e, t, what):
    assert (e is None) == (t is None), what
    if e is not None:
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-9,
                                   atol=1e-11, err_msg=what)


def _compare(make, inputs, call, seed=0):
    """Runs ``call(module, *inputs)`` in both libraries; compares outputs and the gradients
    of every input and parameter after a backward seeded with fixed weights."""
    e_mod, t_mod = _pair(make)
    results = []
    for lib, mod in ((ember, e_mod), (torch, t_mod)):
        ins = [lib.tensor(a, requires_grad=a.dtype == np.float64) if isinstance(a, np.ndarray)
               else a for a in inputs]
        outs = call(lib, mod, *ins)
        outs = outs if isinstance(outs, tuple) else (outs,)
        rng = np.random.default_rng(seed)
        loss = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum()
                   for o in outs if o is not None)
        loss.backward()
        grads = [i.grad for i in ins if isinstance(i, (ember.Tensor, torch.Tensor))
                 and i.requires_grad]
        results.append((outs, grads, [p.grad for p in mod.parameters()]))
    (eo, eg, ep), (to, tg, tp) = results
    for k, (a, b) in enumerate(zip(eo, to)):
        _close(a, b, f'output {k}')
    for k, (a, b) in enumerate(zip(eg, tg)):
        _close(a, b, f'input grad {k}')
    for (name, _), a, b in zip(t_mod.named_parameters(), ep, tp):
        _close(a, b, f'grad of {name}')


def _mha(**kw):
    return lambda nn: nn.MultiheadAttention(8, 2, **kw)


@pytest.mark.parametrize('need_weights,average', [(True, True), (True, False), (False, True)])
def test_self_attention(need_weights, average):
    x = arr(5, 3, 8, seed=1)
    _compare(_mha(), [x], lambda lib, m, q: m(q, q, q, need_weights=need_weights,
                                              average_attn_weights=average))


def test_cross_attention_batch_first_and_no_bias():
    q, kv = arr(3, 4, 8, seed=2), arr(3, 6, 8, seed=3)
    _compare(_mha(batch_first=True, bias=False), [q, kv], lambda lib, m, a, b: m(a, b, b))


def test_unbatched_input():
    _compare(_mha(), [arr(4, 8, seed=4)], lambda lib, m, q: m(q, q, q))


@pytest.mark.parametrize('mask_kind', ['bool', 'float', '3d', 'padding', 'both'])
def test_masks(mask_kind):
    L, N = 4, 2
    causal = np.triu(np.ones((L, L), bool), 1)
    pad = np.zeros((N, L), bool)
    pad[1, -1] = True

    def call(lib, m, q):
        kw = {}
        if mask_kind in ('bool', 'both'):
            kw['attn_mask'] = lib.tensor(causal)
        if mask_kind == 'float':
            kw['attn_mask'] = lib.tensor(arr(L, L, seed=6))
        if mask_kind == '3d':
            kw['attn_mask'] = lib.tensor(arr(N * 2, L, L, seed=7))
        if mask_kind in ('padding', 'both'):
            kw['key_padding_mask'] = lib.tensor(pad)
        return m(q, q, q, **kw)
    _compare(_mha(), [arr(L, N, 8, seed=5)], call)


@pytest.mark.parametrize('kw', [{}, {'norm_first': True}, {'activation': 'gelu'},
                                {'batch_first': True, 'bias': False}])
def test_transformer_encoder_layer_training(kw):
    _compare(lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw),
             [arr(5, 3, 8, seed=8)], lambda lib, m, x: m(x))


def test_transformer_encoder_layer_eval_with_masks():
    mask = np.triu(np.ones((5, 5), bool), 1)

    def call(lib, m, x):
        m.eval()
        return m(x, src_mask=lib.tensor(mask))
    _compare(lambda nn: nn.TransformerEncoderLayer(8, 2, 16), [arr(5, 3, 8, seed=9)], call)


@pytest.mark.parametrize('kw', [{}, {'is_causal': True}, {'scale': 0.3}, {'mask': 'bool'},
                                {'mask': 'float'}])
def test_scaled_dot_product_attention(kw):
    kw = dict(kw)
    mask = kw.pop('mask', None)

    def f(lib, q, k, v):
        m = None
        if mask == 'bool':
            m = lib.tensor(np.tril(np.ones((4, 6), bool)))
        elif mask == 'float':
            m = lib.tensor(arr(4, 6, seed=13))
        # torch's fused CPU kernel has its own node name (ember composes ops): `* 1` ends
        # both graphs in MulBackward0 so values and derivatives are what is compared
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, **kw) * 1
    # (torch's fused kernel has no second derivative; ember's is checked numerically below)
    check(f, arr(2, 3, 4, 5, seed=10), arr(2, 3, 6, 5, seed=11), arr(2, 3, 6, 5, seed=12))


def test_scaled_dot_product_attention_second_derivatives_numerically():
    q, k, v = (ember.tensor(arr(1, 2, 3, 4, seed=s), requires_grad=True) for s in (1, 2, 3))
    mask = ember.tensor(np.tril(np.ones((3, 3), bool)))
    assert ember.autograd.gradgradcheck(
        lambda a, b, c: ember.nn.functional.scaled_dot_product_attention(a, b, c, mask),
        (q, k, v))


def test_reprs_and_parameter_names():
    def describe(nn):
        mods = [nn.MultiheadAttention(8, 2), nn.MultiheadAttention(8, 4, bias=False),
                nn.TransformerEncoderLayer(8, 2, 16, norm_first=True)]
        return [(repr(m), list(m.state_dict())) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('make', [
    lambda lib: lib.nn.MultiheadAttention(8, 3),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation='tanh'),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(*[lib.ones(3, 1, 8)] * 3,
                                                attn_mask=lib.ones(2, 3)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(*[lib.ones(3, 1, 8)] * 3, is_causal=True),
])
def test_errors(make):
    raised = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            make(lib)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]
