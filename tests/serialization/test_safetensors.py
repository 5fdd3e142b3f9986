"""ember.utils.safetensors against safetensors.torch (torch 2.13): files written by one load
in the other with dtypes, shapes and values kept; a model loads straight from a file."""
import numpy as np
import pytest

import ember
from ember.utils import safetensors as est
from ..oracle.oracle import torch
from .helpers import DTYPES, SHAPES, values, same_tensor

st = pytest.importorskip('safetensors.torch', reason="the optional extra ember[safetensors] "
                         "(pip install safetensors) is not installed")

# safetensors has no complex128
SAFE_DTYPES = [d for d in DTYPES if d != 'complex128']


def _tensors(dtype):
    out = {}
    for k, shape in enumerate(SHAPES):
        a = np.asarray(np.random.default_rng(k).standard_normal(shape) * 5)
        out[f't{k}'] = torch.from_numpy(a).to(getattr(torch, dtype)) if dtype != 'bool' \
            else torch.from_numpy(np.asarray(a > 0))
    return out


@pytest.mark.parametrize('dtype', SAFE_DTYPES)
def test_files_cross_both_ways(dtype, tmp_path):
    original = _tensors(dtype)
    st.save_file(original, tmp_path / 't.safetensors', metadata={'who': 'torch'})
    in_ember = est.load_file(tmp_path / 't.safetensors')
    assert sorted(in_ember) == sorted(original)
    for k in original:
        same_tensor(in_ember[k], original[k])
    est.save_file(in_ember, tmp_path / 'e.safetensors')
    back = st.load_file(tmp_path / 'e.safetensors')
    for k in original:
        assert back[k].dtype == original[k].dtype and torch.equal(back[k], original[k])
    assert est.load(est.save(in_ember)).keys() == in_ember.keys()
    assert st.load(est.save(in_ember))['t3'].tolist() == original['t3'].tolist()


def test_bfloat16_is_named_when_ember_lacks_it(tmp_path):
    st.save_file({'b': torch.ones(2, dtype=torch.bfloat16)}, tmp_path / 'b.safetensors')
    if getattr(ember, 'bfloat16', None) is not None:
        assert est.load_file(tmp_path / 'b.safetensors')['b'].dtype is ember.bfloat16
    else:
        with pytest.raises(TypeError, match='bfloat16'):
            est.load_file(tmp_path / 'b.safetensors')


def test_loaded_tensors_are_writable_and_non_contiguous_ones_save():
    t = ember.arange(12.).reshape(3, 4).t()
    back = est.load(est.save({'t': t}))
    back['t'].add_(1)
    assert back['t'].tolist() == (t + 1).tolist()


def test_shared_memory_and_bad_input_are_refused_as_in_safetensors_torch():
    for lib, mod in ((torch, st), (ember, est)):
        x = lib.ones(4)
        with pytest.raises(RuntimeError, match="Some tensors share memory"):
            mod.save({'a': x, 'b': x[:2]})
        with pytest.raises(ValueError, match="Key `a` is invalid, expected torch.Tensor"):
            mod.save({'a': [1.0]})


def _net(lib):
    net = lib.nn.Sequential(lib.nn.Embedding(5, 3), lib.nn.Linear(3, 5))
    net[1].weight = net[0].weight   # tied weights
    return net


def test_a_model_loads_straight_from_a_file_with_tied_weights(tmp_path):
    tnet = _net(torch)
    st.save_model(tnet, tmp_path / 'net.safetensors')
    enet = _net(ember)
    assert est.load_model(enet, tmp_path / 'net.safetensors') == \
        tuple(st.load_model(_net(torch), tmp_path / 'net.safetensors'))
    idx = [0, 3, 4]
    np.testing.assert_allclose(enet(ember.tensor(idx)).detach().numpy(),
                               tnet(torch.tensor(idx)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert enet[1].weight is enet[0].weight
    est.save_model(enet, tmp_path / 'enet.safetensors')
    tnet2 = _net(torch)
    st.load_model(tnet2, tmp_path / 'enet.safetensors')
    np.testing.assert_array_equal(values(tnet2[0].weight), values(tnet[0].weight))
