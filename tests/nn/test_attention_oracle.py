"""scaled_dot_product_attention, MultiheadAttention and TransformerEncoderLayer against torch,
with torch's weights copied into ember: outputs, attention weights, gradients of inputs and
parameters, masks, layouts, reprs, errors."""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check


def _pair(make, dtype='float64'):
    """The same module in ember and torch, ember holding torch's (random) weights."""
    t = make(torch.nn).to(getattr(torch, dtype))
    e = make(ember.nn).to(getattr(ember, dtype))
    e.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    return e, t


def _close(e, t, what, tol=1e-9):
    assert (e is None) == (t is None), what
    if e is not None:
        assert str(e.dtype) == str(t.dtype), what
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol,
                                   atol=tol / 100 if tol < 1e-6 else 1e-6, err_msg=what)


def _compare(make, inputs, call, seed=0, dtype='float64'):
    """Runs ``call(module, *inputs)`` in both libraries (module and float inputs in
    ``dtype``); compares outputs and the gradients of every input and parameter after a
    backward seeded with fixed weights."""
    e_mod, t_mod = _pair(make, dtype)
    tol = 1e-9 if dtype == 'float64' else 2e-5
    results = []
    for lib, mod in ((ember, e_mod), (torch, t_mod)):
        ins = [lib.tensor(a.astype(dtype), requires_grad=True)
               if isinstance(a, np.ndarray) and a.dtype.kind == 'f' else
               lib.tensor(a) if isinstance(a, np.ndarray) else a for a in inputs]
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
    assert len(eo) == len(to) and len(eg) == len(tg)
    for k, (a, b) in enumerate(zip(eo, to)):
        _close(a, b, f'output {k}', tol)
    for k, (a, b) in enumerate(zip(eg, tg)):
        _close(a, b, f'input grad {k}', tol)
    for (name, _), a, b in zip(t_mod.named_parameters(), ep, tp):
        _close(a, b, f'grad of {name}', tol)


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


# -- kdim/vdim, add_bias_kv, add_zero_attn -------------------------------------------------
def _masks(lib, kind, L, S, N, heads, dtype):
    """attn_mask/key_padding_mask keyword arguments of the given kind."""
    kw = {}
    if kind in ('bool', 'both'):
        kw['attn_mask'] = lib.tensor(np.triu(np.ones((L, S), bool), 1))
    if kind == 'float':
        kw['attn_mask'] = lib.tensor(arr(L, S, seed=6, dtype=dtype))
    if kind == '3d':
        kw['attn_mask'] = lib.tensor(arr(N * heads, L, S, seed=7, dtype=dtype))
    if kind in ('padding', 'both'):
        pad = np.zeros((N, S) if N else (S,), bool)
        pad[..., -1] = True
        kw['key_padding_mask'] = lib.tensor(pad)
    return kw


@pytest.mark.parametrize('kw,masks,need_weights,average,dtype', [
    ({'kdim': 5, 'vdim': 3}, 'bool', True, True, 'float64'),
    ({'kdim': 5, 'vdim': 3}, 'padding', True, False, 'float32'),
    ({'kdim': 5, 'vdim': 3, 'batch_first': True, 'bias': False}, 'float', False, True,
     'float32'),
    ({'vdim': 3}, '3d', True, True, 'float64'),
    ({'add_bias_kv': True}, 'both', True, False, 'float64'),
    ({'add_bias_kv': True, 'bias': False}, '3d', False, True, 'float32'),
    ({'add_zero_attn': True}, 'float', True, True, 'float32'),
    ({'add_zero_attn': True, 'batch_first': True}, 'both', False, True, 'float64'),
    ({'add_bias_kv': True, 'add_zero_attn': True, 'kdim': 5, 'vdim': 3,
      'batch_first': True}, 'both', True, True, 'float64'),
    ({'add_bias_kv': True, 'add_zero_attn': True, 'kdim': 5, 'vdim': 3}, '3d', False, True,
     'float64'),
])
def test_kdim_vdim_bias_kv_zero_attn(kw, masks, need_weights, average, dtype):
    """Cross-attention (query of 8 features, keys of kdim, values of vdim), outputs,
    weights and every gradient (q/k/v_proj_weight, bias_k, bias_v included)."""
    L, S, N = 4, 6, 2
    shape = (lambda n, f: (N, n, f)) if kw.get('batch_first') else (lambda n, f: (n, N, f))
    inputs = [arr(*shape(L, 8), seed=1), arr(*shape(S, kw.get('kdim', 8)), seed=2),
              arr(*shape(S, kw.get('vdim', 8)), seed=3)]

    def call(lib, m, q, k, v):
        return m(q, k, v, need_weights=need_weights, average_attn_weights=average,
                 **_masks(lib, masks, L, S, N, 2, dtype))
    _compare(_mha(**kw), inputs, call, dtype=dtype)


@pytest.mark.parametrize('masks', [None, 'padding', 'both'])
def test_bias_kv_zero_attn_self_attention_unbatched(masks):
    def call(lib, m, x):
        return m(x, x, x, **_masks(lib, masks, 5, 5, 0, 2, 'float64'))
    _compare(_mha(add_bias_kv=True, add_zero_attn=True), [arr(5, 8, seed=4)], call)


@pytest.mark.parametrize('need_weights', [True, False])
def test_causal_hint(need_weights):
    """Without weights or padding mask torch trusts is_causal alone and ignores attn_mask
    (here not causal); otherwise attn_mask is what counts."""
    def call(lib, m, x):
        return m(x, x, x, attn_mask=lib.tensor(arr(4, 4, seed=6)), is_causal=True,
                 need_weights=need_weights)
    _compare(_mha(add_zero_attn=True), [arr(4, 2, 8, seed=5)], call)


@pytest.mark.parametrize('need_weights', [True, False])
def test_every_key_masked(need_weights):
    """A sequence whose keys are all padded: NaN with weights, zeros without (torch then
    goes through scaled_dot_product_attention), in values and gradients."""
    def call(lib, m, x):
        pad = np.zeros((2, 4), bool)
        pad[0] = True
        return m(x, x, x, key_padding_mask=lib.tensor(pad), need_weights=need_weights)
    _compare(_mha(), [arr(4, 2, 8, seed=5)], call)


def test_sdpa_row_with_every_key_masked():
    mask = np.ones((3, 4), bool)
    mask[1] = False
    check(lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=lib.tensor(mask)) * 1,
        arr(2, 3, 5, seed=1), arr(2, 4, 5, seed=2), arr(2, 4, 5, seed=3))


def test_functional_with_torch_signature():
    """multi_head_attention_forward called positionally as torch's, with separate
    projection weights, bias_k/bias_v, zero attention and static keys/values."""
    E, heads, L, S, N = 6, 3, 4, 5, 2
    w = [arr(*s, seed=i) for i, s in enumerate(
        [(E, E), (E, 4), (E, 7), (3 * E,), (1, 1, E), (1, 1, E), (E, E), (E,)])]

    def f(lib, q, k, v, wq, wk, wv, b_in, bias_k, bias_v, wo, bo, sk, sv):
        F = lib.nn.functional
        a = F.multi_head_attention_forward(
            q, k, v, E, heads, None, b_in, bias_k, bias_v, True, 0.0, wo, bo, True,
            lib.tensor(np.eye(N, S, dtype=bool)), True, None, True, wq, wk, wv,
            average_attn_weights=False)
        b = F.multi_head_attention_forward(
            q, k, k[:, :, :E], E, heads, lib.cat([wq, wq, wq]), b_in, None, None, False,
            0.0, wo, bo, static_k=sk, static_v=sv, need_weights=False)
        return a, b
    # grad_fn names: torch's last ops here are its own fused kernels
    check(lambda lib, *a: [t * 1 for t in _flat_tensors(f(lib, *a))],
          arr(L, N, E, seed=10), arr(S, N, 4, seed=11), arr(S, N, 7, seed=12), *w,
          arr(N * heads, 3, E // heads, seed=13), arr(N * heads, 3, E // heads, seed=14))


def _flat_tensors(x):
    return [t for item in x for t in (_flat_tensors(item) if isinstance(item, tuple)
                                      else [item]) if t is not None]


@pytest.mark.parametrize('kw', [{'kdim': 5, 'vdim': 3}, {'add_bias_kv': True},
                                {'kdim': 5, 'add_bias_kv': True, 'add_zero_attn': True,
                                 'bias': False}])
def test_layout_and_init(kw):
    """Parameter names/shapes/order, state_dict keys, attributes, repr, initialisation."""
    def describe(lib):
        m = lib.nn.MultiheadAttention(256, 4, **kw)
        for name in ('q_proj_weight', 'k_proj_weight', 'v_proj_weight', 'in_proj_weight'):
            p = getattr(m, name)
            if p is not None:
                bound = np.sqrt(6 / sum(p.shape))
                assert 0.9 * bound < np.abs(p.detach().numpy()).max() <= bound, name
        if m.bias_k is not None:
            for p in (m.bias_k, m.bias_v):  # xavier-normal of (1, 1, E): std 1/sqrt(E)
                assert abs(p.detach().numpy().std() * 16 - 1) < 0.2
        if m.in_proj_bias is not None:
            assert not m.in_proj_bias.detach().numpy().any()
        return (repr(m), [(n, tuple(p.shape)) for n, p in m.named_parameters()],
                list(m.state_dict()), m.in_proj_weight is None, m._qkv_same_embed_dim,
                m.kdim, m.vdim, m.add_zero_attn, m.bias_k is None)
    assert describe(ember) == describe(torch)


def _mha_call(kw=None, q=(3, 2, 8), k=(4, 2, 8), v=None, **call_kw):
    def make(lib):
        m = lib.nn.MultiheadAttention(8, 2, **(kw or {}))
        args = [lib.ones(*s) for s in (q, k, v or k)]
        call = {n: (lib.tensor(np.zeros(a, bool)) if isinstance(a, tuple) else
                    lib.zeros(*a[0], dtype=a[1]))
                for n, a in call_kw.items()}
        return m(*args, **call)
    return make


def _mhaf_call(**kw):
    def make(lib):
        x, w, b = lib.ones(3, 2, 6), lib.ones(6, 6), lib.ones(6)
        args = dict(in_proj_weight=lib.ones(18, 6), bias_k=None, bias_v=None,
                    add_zero_attn=False, dropout_p=0.0, out_proj_weight=w,
                    out_proj_bias=b, in_proj_bias=lib.ones(18), embed_dim_to_check=6,
                    num_heads=2)
        args.update({n: (v(lib) if callable(v) else v) for n, v in kw.items()})
        return lib.nn.functional.multi_head_attention_forward(x, x, x, **args)
    return make


@pytest.mark.parametrize('make', [
    lambda lib: lib.nn.MultiheadAttention(8, 3),
    lambda lib: lib.nn.MultiheadAttention(0, 2),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, activation='tanh'),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(*[lib.ones(3, 1, 8)] * 3,
                                                attn_mask=lib.ones(2, 3)),
    lambda lib: lib.nn.MultiheadAttention(8, 2)(*[lib.ones(3, 1, 8)] * 3, is_causal=True),
    _mha_call({'kdim': 5}, k=(4, 2, 6)),
    _mha_call({'kdim': 5, 'vdim': 3}, k=(4, 2, 5), v=(5, 2, 3)),
    _mha_call(k=(4, 2, 8), v=(5, 2, 8)),
    _mha_call(k=(4, 8)),
    _mha_call(q=(3, 2, 2, 8)),
    _mha_call(q=(3, 8), k=(4, 8), attn_mask=(2, 3, 3)),
    _mha_call(q=(3, 8), k=(4, 8), key_padding_mask=(2, 4)),
    _mha_call(key_padding_mask=(2, 5)),
    _mha_call(key_padding_mask=(3, 4)),
    _mha_call({'add_bias_kv': True}, key_padding_mask=(2, 3)),
    _mha_call({'add_zero_attn': True}, attn_mask=(4, 3, 5)),
    _mha_call({'add_bias_kv': True}, attn_mask=(3, 5)),
    _mha_call(attn_mask=(1, 1, 3, 4)),
    _mha_call(attn_mask=((3, 4), 'int64')),
    _mha_call(key_padding_mask=((2, 4), 'int32')),
    _mhaf_call(bias_k=lambda lib: lib.ones(1, 1, 6)),
    _mhaf_call(bias_v=lambda lib: lib.ones(1, 1, 6)),
    _mhaf_call(embed_dim_to_check=4),
    _mhaf_call(num_heads=4),
    _mhaf_call(in_proj_weight=None),
    _mhaf_call(use_separate_proj_weight=True),
    _mhaf_call(use_separate_proj_weight=True, q_proj_weight=lambda lib: lib.ones(6, 5),
               k_proj_weight=lambda lib: lib.ones(6, 6), v_proj_weight=lambda lib: lib.ones(6, 6)),
    _mhaf_call(use_separate_proj_weight=True, q_proj_weight=lambda lib: lib.ones(6, 6),
               k_proj_weight=lambda lib: lib.ones(6, 6), v_proj_weight=lambda lib: lib.ones(6, 6),
               in_proj_bias=lambda lib: lib.ones(15)),
    _mhaf_call(static_k=lambda lib: lib.ones(3, 4, 3)),
    _mhaf_call(static_v=lambda lib: lib.ones(4, 4, 2)),
    _mhaf_call(static_k=lambda lib: lib.ones(4, 4, 3), bias_k=lambda lib: lib.ones(1, 1, 6),
               bias_v=lambda lib: lib.ones(1, 1, 6)),
])
def test_errors(make):
    raised = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            make(lib)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]
