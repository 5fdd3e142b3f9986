"""ember.save / ember.load: tensors, state_dicts, subclasses, and the weights_only guard."""
import collections
import io
import pickle

import numpy as np
import pytest

import ember
from ember.serialization import add_safe_globals


class SubTensor(ember.Tensor):
    pass


def _roundtrip(obj, **kwargs):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **kwargs)


def test_tensors_and_state_dicts_roundtrip(tmp_path):
    model = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.Linear(2, 1))
    sd = model.state_dict()
    path = tmp_path / 'model.pt'
    ember.save(sd, path)
    back = ember.load(path)
    assert type(back) is collections.OrderedDict and list(back) == list(sd)
    for k in sd:
        assert back[k].dtype is sd[k].dtype and np.array_equal(back[k]._data, sd[k]._data)
    fresh = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.Linear(2, 1))
    fresh.load_state_dict(back)
    assert ember.equal(fresh[0].weight, model[0].weight)
    t = _roundtrip({'x': ember.arange(5), 'y': [ember.tensor([True]), 3.5, 'text'],
                    'z': ember.ones(2, requires_grad=True)})
    assert t['x'].dtype is ember.int64 and t['y'][1:] == [3.5, 'text']
    assert t['z'].requires_grad and t['z'].is_leaf


def test_parameters_and_subclasses_keep_type_and_attributes():
    p = ember.nn.Parameter(ember.ones(2))
    assert type(_roundtrip(p)) is ember.nn.Parameter and _roundtrip(p).requires_grad
    s = SubTensor([1., 2.])
    s.note = 'kept'
    with pytest.raises(Exception, match="Unsupported global.*SubTensor.*add_safe_globals"):
        _roundtrip(s)
    back = _roundtrip(s, weights_only=False)
    assert type(back) is SubTensor and back.note == 'kept' and back.tolist() == [1., 2.]
    add_safe_globals([SubTensor])
    assert type(_roundtrip(s)) is SubTensor


def test_weights_only_refuses_arbitrary_objects_and_bad_files():
    class Evil:
        def __reduce__(self):
            return (print, ('pwned',))
    # the messages torch 2.13 gives for the same files
    with pytest.raises(pickle.UnpicklingError,
                       match="Unsupported global: GLOBAL print was not an allowed global"):
        _roundtrip({'x': Evil()})
    with pytest.raises(RuntimeError, match="PytorchStreamReader failed reading zip archive: "
                       "failed finding central directory"):
        ember.load(io.BytesIO(b'PK\x03\x04 zip from torch'))
    with pytest.raises(RuntimeError, match="ember runs on the CPU only"):
        buf = io.BytesIO()
        ember.save(ember.ones(1), buf)
        buf.seek(0)
        ember.load(buf, map_location='cuda')
