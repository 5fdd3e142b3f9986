"""TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and Transformer; RMSNorm,
InstanceNorm1d/2d/3d and LocalResponseNorm (and their functionals) against torch: values and
gradients with torch's weights copied in, masks, layouts, state_dict keys, reprs, init,
warnings and errors."""
import warnings

import numpy as np
import pytest

import ember
from ..oracle.oracle import torch, arr, check, assert_same_tensor
from .test_attention_oracle import _compare

# both libraries warn when an encoder cannot use nested tensors and when mask dtypes differ;
# torch also calls its nested tensors a prototype; the tests about ember's warnings record
# them themselves
pytestmark = [pytest.mark.filterwarnings('ignore:enable_nested_tensor is True'),
              pytest.mark.filterwarnings('ignore:Support for mismatched'),
              pytest.mark.filterwarnings('ignore:The PyTorch API of nested tensors')]


def _both(make):
    """``make(lib)`` in ember and torch: (type, message) of what each raised, or None."""
    raised = []
    for lib in (ember, torch):
        try:
            make(lib)
            raised.append(None)
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            raised.append((type(e), str(e)))
    return raised


def _warnings(make):
    """The warning messages ``make(lib)`` gives in ember and in torch."""
    seen = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            make(lib)
        seen.append([str(x.message) for x in w])
    return seen


def _causal(n):
    return np.triu(np.ones((n, n), bool), 1)


# -- TransformerEncoder --------------------------------------------------------------------
def _encoder(layers=2, norm=True, **kw):
    def make(nn):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kw)
        return nn.TransformerEncoder(layer, layers, nn.LayerNorm(8) if norm else None,
                                     enable_nested_tensor=False)
    return make


@pytest.mark.parametrize('kw,masks', [
    ({}, {}),
    ({'norm_first': True, 'activation': 'gelu'}, {'mask': 'causal'}),
    ({'batch_first': True}, {'mask': 'causal', 'is_causal': True, 'padding': True}),
    ({'bias': False}, {'mask': 'float', 'padding': True}),
    ({}, {'mask': 'causal_float'}),
])
def test_transformer_encoder(kw, masks):
    pad = np.zeros((3, 4), bool)
    pad[0, 2:] = pad[2, 3] = True

    def call(lib, m, x):
        kind, args = masks.get('mask'), {}
        if kind == 'causal':
            args['mask'] = lib.tensor(_causal(4))
        elif kind == 'causal_float':
            args['mask'] = lib.nn.Transformer.generate_square_subsequent_mask(4,
                                                                               dtype=x.dtype)
        elif kind == 'float':
            args['mask'] = lib.tensor(arr(4, 4, seed=3))
        if masks.get('padding'):
            args['src_key_padding_mask'] = lib.tensor(pad)
        if 'is_causal' in masks:
            args['is_causal'] = masks['is_causal']
        return m(x, **args)
    shape = (3, 4, 8) if kw.get('batch_first') else (4, 3, 8)
    _compare(_encoder(**kw), [arr(*shape, seed=1)], call)


def test_transformer_encoder_unbatched_float32_single_layer():
    _compare(_encoder(layers=1, norm=False), [arr(5, 8, seed=2)],
             lambda lib, m, x: m(x, mask=lib.tensor(_causal(5))), dtype='float32')


@pytest.mark.parametrize('pad_rows,mask_check', [
    ([[0, 0, 1, 1], [0, 0, 0, 0], [0, 1, 1, 1]], True),   # left-aligned: nested path
    ([[0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 1]], True),   # not left-aligned: no nested
    ([[0, 1, 0, 1], [0, 0, 0, 0], [0, 0, 0, 1]], False),  # unchecked: leading kept
])
def test_transformer_encoder_inference_padding_as_nested_tensors(pad_rows, mask_check):
    """In eval without gradients, torch runs a padded batch as nested tensors: the padded
    positions come out zero; ember gives the same."""
    pad = np.array(pad_rows, bool)
    x = arr(3, 4, 8, seed=4)
    outs = []
    for lib in (ember, torch):
        torch.manual_seed(0)
        t = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16,
                                                                         batch_first=True),
                                        2, mask_check=mask_check)
        m = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                                      2, mask_check=mask_check)
        m.load_state_dict({k: lib.tensor(v.numpy()) for k, v in t.state_dict().items()})
        m.eval()
        with lib.no_grad():
            outs.append(m(lib.tensor(x, dtype=lib.float32), src_key_padding_mask=lib.tensor(pad)))
        with_grad = m(lib.tensor(x, dtype=lib.float32), src_key_padding_mask=lib.tensor(pad))
        outs.append(with_grad.detach())  # (the parameters need grad: no nested path)
    assert_same_tensor(outs[0], outs[2], 'no_grad')
    assert_same_tensor(outs[1], outs[3], 'with grad')


def test_transformer_encoder_nested_tensor_warnings():
    def make(lib):
        nn = lib.nn
        for layer in (nn.TransformerEncoderLayer(8, 2, 16), nn.Linear(2, 2),
                      nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
                      nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False),
                      nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                 activation=nn.functional.silu),
                      nn.TransformerEncoderLayer(8, 1, 16, batch_first=True),
                      nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                 activation=nn.GELU())):
            nn.TransformerEncoder(layer, 1)
        nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 1,
                              enable_nested_tensor=False)
    e, t = _warnings(make)
    assert e == t and len(t) == 6


# -- TransformerDecoderLayer / TransformerDecoder ------------------------------------------
def _decoder_layer(**kw):
    return lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw)


def _decoder_call(masks, T=4, S=5, N=3):
    tpad, mpad = np.zeros((N, T), bool), np.zeros((N, S), bool)
    tpad[1, 3], mpad[0, 3:] = True, True

    def call(lib, m, tgt, memory):
        args = {}
        if 'tgt_mask' in masks:
            args['tgt_mask'] = lib.tensor(_causal(T) if masks['tgt_mask'] == 'causal'
                                          else arr(T, T, seed=5))
        if 'memory_mask' in masks:
            args['memory_mask'] = lib.tensor(arr(T, S, seed=6) if masks['memory_mask'] == 'float'
                                             else np.triu(np.ones((T, S), bool), 2))
        if masks.get('padding'):
            args['tgt_key_padding_mask'] = lib.tensor(tpad)
            args['memory_key_padding_mask'] = lib.tensor(mpad)
        for name in ('tgt_is_causal', 'memory_is_causal'):
            if name in masks:
                args[name] = masks[name]
        return m(tgt, memory, **args)
    return call


@pytest.mark.parametrize('kw,masks', [
    ({}, {}),
    ({'norm_first': True}, {'tgt_mask': 'causal', 'tgt_is_causal': True}),
    ({'activation': 'gelu', 'batch_first': True}, {'tgt_mask': 'causal', 'padding': True}),
    ({'bias': False, 'layer_norm_eps': 1e-3}, {'tgt_mask': 'float', 'memory_mask': 'float'}),
    ({}, {'memory_mask': 'bool', 'memory_is_causal': True, 'padding': True}),
])
def test_transformer_decoder_layer(kw, masks):
    bf = kw.get('batch_first')
    tgt, mem = ((3, 4, 8), (3, 5, 8)) if bf else ((4, 3, 8), (5, 3, 8))
    _compare(_decoder_layer(**kw), [arr(*tgt, seed=1), arr(*mem, seed=2)], _decoder_call(masks))


def test_transformer_decoder_layer_callable_activation_unbatched_float32():
    _compare(lambda nn: nn.TransformerDecoderLayer(8, 2, 12, 0.0, nn.functional.silu),
             [arr(4, 8, seed=3), arr(5, 8, seed=4)], _decoder_call({'tgt_mask': 'causal'}),
             dtype='float32')


@pytest.mark.parametrize('norm,masks', [(True, {'tgt_mask': 'causal', 'padding': True}),
                                        (False, {'tgt_mask': 'float'})])
def test_transformer_decoder(norm, masks):
    def make(nn):
        return nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2,
                                     nn.LayerNorm(8) if norm else None)
    _compare(make, [arr(4, 3, 8, seed=1), arr(5, 3, 8, seed=2)], _decoder_call(masks))


def test_decoder_layer_eval_mode_with_dropout():
    def call(lib, m, tgt, memory):
        m.eval()
        return m(tgt, memory)
    _compare(lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.5),
             [arr(4, 3, 8, seed=1), arr(5, 3, 8, seed=2)], call)


# -- Transformer ---------------------------------------------------------------------------
def _transformer(**kw):
    return lambda nn: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, **kw)


@pytest.mark.parametrize('kw,masks', [
    ({}, {}),
    ({'batch_first': True, 'norm_first': True}, {'src_mask': True, 'tgt_mask': True,
                                                 'padding': True}),
    ({'activation': 'gelu', 'bias': False}, {'tgt_mask': True, 'memory_mask': True}),
])
def test_transformer(kw, masks):
    bf = kw.get('batch_first')
    pad = np.zeros((2, 5), bool)
    pad[1, 4] = True

    def call(lib, m, src, tgt):
        args = {}
        if masks.get('src_mask'):
            args['src_mask'] = lib.tensor(arr(5, 5, seed=7))
        if masks.get('tgt_mask'):
            args['tgt_mask'] = m.generate_square_subsequent_mask(4, dtype=src.dtype)
        if masks.get('memory_mask'):
            args['memory_mask'] = lib.tensor(arr(4, 5, seed=8))
        if masks.get('padding'):
            args['src_key_padding_mask'] = args['memory_key_padding_mask'] = lib.tensor(pad)
        return m(src, tgt, **args)
    src, tgt = ((2, 5, 8), (2, 4, 8)) if bf else ((5, 2, 8), (4, 2, 8))
    _compare(_transformer(**kw), [arr(*src, seed=1), arr(*tgt, seed=2)], call)


def test_transformer_custom_encoder_decoder_unbatched():
    def make(nn):
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 1)
        dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, 0.0), 1)
        return nn.Transformer(8, 2, custom_encoder=enc, custom_decoder=dec)
    _compare(make, [arr(5, 8, seed=1), arr(4, 8, seed=2)], lambda lib, m, s, t: m(s, t))


@pytest.mark.parametrize('dtype', [None, 'float64'])
def test_generate_square_subsequent_mask(dtype):
    check(lambda lib: lib.nn.Transformer.generate_square_subsequent_mask(
        4, dtype=dtype and getattr(lib, dtype)), grad=False)


def test_transformer_init():
    """Every parameter of more than one dim xavier-uniform (its bound reached), the rest as
    the layers made them; the layout as torch's."""
    def describe(lib):
        m = lib.nn.Transformer(16, 2, 1, 2, 32)
        for name, p in m.named_parameters():
            a = p.detach().numpy()
            if p.dim() > 1:
                bound = np.sqrt(6 / sum(p.shape))
                assert 0.8 * bound < np.abs(a).max() <= bound, name
            elif 'norm' in name:
                assert (a == (1 if name.endswith('weight') else 0)).all(), name
        return ([(n, tuple(p.shape)) for n, p in m.named_parameters()], list(m.state_dict()),
                m.d_model, m.nhead, m.batch_first, m.encoder.num_layers, m.decoder.num_layers)
    assert describe(ember) == describe(torch)


def test_transformer_reprs_and_keys():
    def describe(nn):
        mods = [nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm(8),
                                      enable_nested_tensor=False),
                nn.TransformerDecoderLayer(8, 2, 16, norm_first=True, bias=False),
                nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2),
                nn.Transformer(8, 2, 1, 2, 16, batch_first=True)]
        return [(repr(m), list(m.state_dict()),
                 [getattr(m, a, None) for a in ('num_layers', 'enable_nested_tensor',
                                                'use_nested_tensor', 'mask_check',
                                                'norm_first')]) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


def test_clones_are_independent():
    layer = ember.nn.TransformerEncoderLayer(8, 2, 16)
    enc = ember.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    a, b = enc.layers[0].linear1.weight, enc.layers[1].linear1.weight
    assert a is not b and a is not layer.linear1.weight
    with ember.no_grad():
        a.zero_()
    assert b.abs().sum().item() > 0 and layer.linear1.weight.abs().sum().item() > 0


@pytest.mark.parametrize('make', [
    lambda lib: lib.nn.TransformerDecoderLayer(8, 2, activation='tanh'),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 8), lib.ones(4, 3, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(lib.ones(2, 5, 8),
                                                                     lib.ones(3, 4, 8)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 8), lib.ones(4, 2, 6)),
    lambda lib: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(5, 2, 6), lib.ones(4, 2, 8)),
    lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 1)(
        lib.ones(5, 2, 8), is_causal=True),
    lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 1)(
        lib.ones(5, 2, 8), src_key_padding_mask=lib.zeros(2, 5, dtype=lib.int64)),
    lambda lib: lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 1)(
        lib.ones(5, 2, 8), mask=lib.zeros(5, 5, dtype=lib.int64)),
    lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16)(
        lib.ones(5, 2, 8), src_mask=lib.zeros(5, 5, dtype=lib.int64)),
    lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16)(lib.ones(4, 2, 8), lib.ones(5, 2, 8),
                                                         memory_is_causal=True),
    lambda lib: lib.nn.TransformerDecoder(lib.nn.TransformerDecoderLayer(8, 2, 16), 1)(
        lib.ones(4, 2, 8), lib.ones(5, 3, 8)),
])
def test_transformer_errors(make):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        e, t = _both(make)
    assert t is not None and e == t


def test_mask_dtype_mismatch_warnings():
    def make(lib):
        m = lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 1,
                                      enable_nested_tensor=False)
        m(lib.ones(5, 2, 8), mask=lib.zeros(5, 5), src_key_padding_mask=lib.zeros(2, 5,
                                                                                   dtype=lib.bool))
        m.layers[0](lib.ones(5, 2, 8), src_mask=lib.zeros(5, 5),
                    src_key_padding_mask=lib.zeros(2, 5, dtype=lib.bool))
    e, t = _warnings(make)
    assert e == t and len(t) == 2


# -- rms_norm / RMSNorm --------------------------------------------------------------------
@pytest.mark.parametrize('shape,norm,weight,eps', [
    ((3, 5), (5,), True, None), ((2, 3, 4), (3, 4), True, 1e-3), ((2, 3, 4), [4], False, None),
    ((4,), (4,), True, 0.5)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_rms_norm(shape, norm, weight, eps, dtype):
    w = (arr(*norm, seed=2, dtype=dtype),) if weight else ()
    check(lambda lib, x, *w: lib.nn.functional.rms_norm(x, norm, *w, eps=eps),
          arr(*shape, seed=1, dtype=dtype), *w, double=dtype == np.float64)


@pytest.mark.parametrize('call', [
    lambda F, x: F.rms_norm(x, 4), lambda F, x: F.rms_norm(x, (4.0,)),
    lambda F, x: F.rms_norm(x, ()), lambda F, x: F.rms_norm(x, (3,)),
    lambda F, x: F.rms_norm(x, (2, 4)), lambda F, x: F.rms_norm(x, (4,), x[0, 0, :3]),
    lambda F, x: F.rms_norm(x, (2, 3, 4, 5), x[0, 0]),
    lambda F, x: F.rms_norm(x, (2, 3, 4, 5)), lambda F, x: F.rms_norm(x.int(), (4,)),
])
def test_rms_norm_errors(call):
    check(lambda lib, x: call(lib.nn.functional, x), arr(2, 3, 4), match_message=True)


def test_rms_norm_module():
    def f(lib, x):
        m = lib.nn.RMSNorm([3, 4], eps=1e-4, dtype=lib.float64)
        with lib.no_grad():
            m.weight.copy_(lib.tensor(arr(3, 4, seed=3)))
        plain = lib.nn.RMSNorm(4, elementwise_affine=False)
        return m(x), plain(x), list(m.state_dict()), list(plain.state_dict())
    check(f, arr(2, 3, 4, seed=1))
    check(lambda lib, x: lib.nn.RMSNorm(4)(x), arr(3, 4, dtype=np.float32, seed=2))


# -- instance_norm / InstanceNorm ----------------------------------------------------------
@pytest.mark.parametrize('shape', [(2, 3, 5), (3, 3, 2, 3), (2, 3, 2, 2, 2)])
@pytest.mark.parametrize('stats,affine', [(False, True), (True, False), ('eval', True)])
def test_instance_norm(shape, stats, affine):
    rm, rv = arr(3, seed=7), np.abs(arr(3, seed=8)) + 0.5

    def f(lib, x, *wb):
        mean, var = (lib.tensor(rm), lib.tensor(rv)) if stats else (None, None)
        out = lib.nn.functional.instance_norm(x, mean, var, *wb, use_input_stats=stats != 'eval',
                                              momentum=0.3, eps=1e-3)
        return (out, mean, var) if stats else out
    wb = (arr(3, seed=2), arr(3, seed=3)) if affine else ()
    check(f, arr(*shape, seed=1), *wb, double=True)


def test_instance_norm_float32():
    check(lambda lib, x, w: lib.nn.functional.instance_norm(x, weight=w),
          arr(2, 4, 6, dtype=np.float32, seed=1), arr(4, dtype=np.float32, seed=2))


@pytest.mark.parametrize('call', [
    lambda F, x, lib: F.instance_norm(x[:, :, :1]), lambda F, x, lib: F.instance_norm(x[0]),
    lambda F, x, lib: F.instance_norm(x, lib.zeros(3), None, use_input_stats=False),
    lambda F, x, lib: F.instance_norm(x, None, None, use_input_stats=False),
    lambda F, x, lib: F.instance_norm(x, lib.zeros(3), None),
    lambda F, x, lib: F.instance_norm(x, lib.zeros(2), lib.ones(2)),
    lambda F, x, lib: F.instance_norm(x, weight=lib.ones(2)),
    lambda F, x, lib: F.instance_norm(x, bias=lib.ones(6)),
])
def test_instance_norm_errors(call):
    check(lambda lib, x: call(lib.nn.functional, x, lib), arr(2, 3, 4, dtype=np.float32),
          match_message=True)


@pytest.mark.parametrize('cls,shape', [('InstanceNorm1d', (2, 3, 5)), ('InstanceNorm1d', (3, 5)),
                                       ('InstanceNorm2d', (2, 3, 2, 3)),
                                       ('InstanceNorm2d', (3, 4, 2)),
                                       ('InstanceNorm3d', (2, 3, 2, 2, 3))])
@pytest.mark.parametrize('kw', [{}, {'affine': True, 'track_running_stats': True},
                                {'track_running_stats': True, 'momentum': None},
                                {'affine': True, 'bias': False}])
def test_instance_norm_modules_train_then_eval(cls, shape, kw):
    """Training steps (running statistics moving as torch's), then eval: outputs,
    gradients, the state_dict."""
    def f(lib, x):
        m = getattr(lib.nn, cls)(3, dtype=lib.float64, **kw)
        if m.weight is not None:
            with lib.no_grad():
                m.weight.copy_(lib.tensor(arr(3, seed=4)))
        outs = [m(x), m(x * 2 + 1)]
        m.eval()
        outs.append(m(x))
        return outs, list(m.state_dict().items())
    check(f, arr(*shape, seed=1))


def test_instance_norm_module_reprs_and_keys():
    def describe(nn):
        mods = [nn.InstanceNorm1d(3), nn.InstanceNorm2d(4, affine=True),
                nn.InstanceNorm3d(2, eps=1e-3, momentum=None, track_running_stats=True),
                nn.InstanceNorm2d(3, affine=True, bias=False), nn.RMSNorm([2, 3]),
                nn.RMSNorm(4, 1e-6, False), nn.LocalResponseNorm(3),
                nn.LocalResponseNorm(2, 1e-3, 0.5, 2.0)]
        return [(repr(m), [n for n, _ in m.named_parameters()], list(m.state_dict()),
                 isinstance(m, nn.modules.batchnorm._BatchNorm)) for m in mods]
    assert describe(ember.nn) == describe(torch.nn)


@pytest.mark.parametrize('make,shape', [
    (lambda nn: nn.InstanceNorm1d(3), (2, 3, 4, 5)), (lambda nn: nn.InstanceNorm1d(3), (3,)),
    (lambda nn: nn.InstanceNorm2d(3), (2, 3)), (lambda nn: nn.InstanceNorm3d(3), (3, 4, 4)),
    (lambda nn: nn.InstanceNorm1d(3, affine=True), (2, 4, 5)),
    (lambda nn: nn.InstanceNorm2d(3, affine=True), (4, 5, 5)),
    (lambda nn: nn.InstanceNorm1d(3), (2, 3, 1)),
])
def test_instance_norm_module_errors(make, shape):
    check(lambda lib, x: make(lib.nn)(x), arr(*shape), match_message=True)


def test_instance_norm_size_mismatch_warning_without_affine():
    e, t = _warnings(lambda lib: lib.nn.InstanceNorm2d(3)(lib.ones(2, 4, 3, 3)))
    assert e == t and len(t) == 1


# -- local_response_norm / LocalResponseNorm -----------------------------------------------
@pytest.mark.parametrize('shape,size', [((2, 5, 4), 3), ((2, 6, 3, 2), 2), ((1, 4, 2, 2, 3), 5),
                                        ((2, 3, 4), 1)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_local_response_norm(shape, size, dtype):
    check(lambda lib, x: lib.nn.functional.local_response_norm(x, size, 0.1, 0.6, 1.5),
          arr(*shape, seed=1, dtype=dtype), double=dtype == np.float64)


def test_local_response_norm_module_and_edges():
    check(lambda lib, x: lib.nn.LocalResponseNorm(3)(x), arr(2, 4, 5, seed=2))
    check(lambda lib, x: lib.nn.LocalResponseNorm(2)(x[:0]), arr(2, 4, 5, seed=2))
    check(lambda lib, x: lib.nn.functional.local_response_norm(x, 2), arr(4, 5),
          match_message=True)
