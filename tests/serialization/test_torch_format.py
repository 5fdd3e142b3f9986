"""ember.save / ember.load in torch's checkpoint format, against torch 2.13: torch -> ember ->
torch for every dtype and shape, views and shared storages, Parameters, state_dicts with
their _metadata, a model with its optimizer, the legacy format, map_location, mmap."""
import collections
import io
import mmap as mmap_module
import pickle

import numpy as np
import pytest

import ember
from ember.serialization._pickler import _root
from ..oracle.oracle import torch
from .helpers import DTYPES, SHAPES, saved, loaded, same_tensor, rezip, outcome


def _torch_tensor(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape) * 10
    if dtype.startswith('complex'):
        a = a + 1j * rng.standard_normal(shape)
    t = torch.from_numpy(np.asarray(a))
    return t.to(getattr(torch, dtype)) if dtype != 'bool' else t > 0


@pytest.mark.parametrize('zip_format', [True, False], ids=['zip', 'legacy'])
@pytest.mark.parametrize('dtype', DTYPES)
def test_every_dtype_and_shape_goes_torch_ember_torch(dtype, zip_format):
    original = {str(s): _torch_tensor(dtype, s, k) for k, s in enumerate(SHAPES)}
    flag = {'_use_new_zipfile_serialization': zip_format}
    in_ember = loaded(ember, saved(torch, original, **flag))
    assert list(in_ember) == list(original)
    for k in original:
        same_tensor(in_ember[k], original[k])
    back = loaded(torch, saved(ember, in_ember, **flag), weights_only=True)
    for k in original:
        assert back[k].dtype == original[k].dtype and torch.equal(back[k], original[k])


def test_a_dtype_ember_lacks_is_named():
    data = saved(torch, {'u': torch.ones(2, dtype=torch.float8_e4m3fn)})
    with pytest.raises(RuntimeError, match='dtype torch.float8_e4m3fn, which ember does not '
                       'have'):
        loaded(ember, data)


def _views(lib):
    base = lib.arange(24, dtype=lib.float32).reshape(4, 6)
    return {'base': base, 'row': base[1], 'col': base[:, 2], 'block': base[1:3, 2:5],
            'transposed': base.t(), 'strided': base[::2, ::3], 'alone': lib.ones(3)}


def _storage_ptr(t):
    return t.untyped_storage().data_ptr()


def test_views_keep_their_layout_and_share_memory_both_ways():
    original = _views(torch)
    in_ember = loaded(ember, saved(torch, original))
    for k, t in original.items():
        same_tensor(in_ember[k], t)
    roots = {k: id(_root(t._data)) for k, t in in_ember.items()}
    assert len({roots[k] for k in roots if k != 'alone'}) == 1 != len(set(roots.values()))
    in_ember['base'][1, 2] = -1.0   # one memory: the views see the write
    assert in_ember['row'][2].item() == in_ember['col'][1].item() == -1.0
    back = loaded(torch, saved(ember, in_ember), weights_only=True)
    for k, t in original.items():
        assert back[k].stride() == t.stride() and back[k].storage_offset() == t.storage_offset()
    assert len({_storage_ptr(back[k]) for k in back if k != 'alone'}) == 1
    assert _storage_ptr(back['alone']) != _storage_ptr(back['base'])
    assert back['col'][1].item() == -1.0


def test_views_made_in_ember_share_a_storage_in_torch():
    views = _views(ember)
    back = loaded(torch, saved(ember, views), weights_only=True)
    reference = _views(torch)
    for k in views:
        same_tensor(views[k], back[k])
        assert back[k].storage_offset() == reference[k].storage_offset()
    assert len({_storage_ptr(back[k]) for k in back if k != 'alone'}) == 1
    # a view alone still writes the whole storage, as torch does
    alone = loaded(torch, saved(ember, views['block']), weights_only=True)
    assert alone.untyped_storage().nbytes() == 24 * 4 and alone.storage_offset() == 8


def test_a_reversed_view_is_written_as_a_copy():
    x = ember.arange(5.)
    flipped = ember.from_numpy(x.numpy()[::-1])  # negative strides: torch has none
    back = loaded(torch, saved(ember, {'x': x, 'f': flipped}), weights_only=True)
    assert back['f'].tolist() == [4., 3., 2., 1., 0.] and back['f'].stride() == (1,)


def test_views_of_one_memory_as_two_dtypes_are_refused_as_by_torch():
    for lib in (torch, ember):
        x = lib.ones(4)
        with pytest.raises(RuntimeError, match="Cannot save multiple tensors or storages "
                           "that view the same data as different types"):
            saved(lib, [x, x.view(lib.int32)])


def test_parameters_keep_requires_grad_and_attributes():
    for requires_grad in (True, False):
        p = torch.nn.Parameter(torch.randn(3), requires_grad=requires_grad)
        e = loaded(ember, saved(torch, p))
        same_tensor(e, p)
        back = loaded(torch, saved(ember, e), weights_only=True)
        assert type(back) is torch.nn.Parameter and back.requires_grad == requires_grad
    p = torch.nn.Parameter(torch.ones(2))
    p.note = 'kept'
    e = loaded(ember, saved(torch, p), weights_only=False)
    assert type(e) is ember.nn.Parameter and e.note == 'kept'
    back = loaded(torch, saved(ember, e), weights_only=False)
    assert back.note == 'kept' and type(back) is torch.nn.Parameter


def test_plain_tensor_requires_grad_and_attributes():
    t = torch.ones(2, requires_grad=True)
    e = loaded(ember, saved(torch, t))
    assert e.requires_grad and e.is_leaf and e.grad is None
    t.note = {'epoch': 3}
    for lib in (torch, ember):
        assert loaded(lib, saved(torch, t), weights_only=False).note == {'epoch': 3}
    e = loaded(ember, saved(torch, t), weights_only=False)
    assert loaded(torch, saved(ember, e), weights_only=False).note == {'epoch': 3}


def _net(lib):
    return lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.Flatten(),
                             lib.nn.Linear(8, 4), lib.nn.Tanh(), lib.nn.BatchNorm1d(4),
                             lib.nn.Linear(4, 3))


def _train(lib, model, opt, x, y):
    for _ in range(3):
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()


def test_a_trained_model_and_its_optimizer_cross_both_ways():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((5, 1, 4, 4)).astype(np.float32), rng.integers(0, 3, 5)
    tmodel = _net(torch)
    topt = torch.optim.Adam(tmodel.parameters(), lr=0.01)
    _train(torch, tmodel, topt, torch.tensor(x), torch.tensor(y))
    ckpt = loaded(ember, saved(torch, {'model': tmodel.state_dict(),
                                       'opt': topt.state_dict(), 'epoch': 3}))
    sd = ckpt['model']
    assert type(sd) is collections.OrderedDict and sd._metadata == tmodel.state_dict()._metadata
    emodel = _net(ember)
    emodel.load_state_dict(sd)
    eopt = ember.optim.Adam(emodel.parameters(), lr=0.01)
    eopt.load_state_dict(ckpt['opt'])
    tmodel.eval()
    emodel.eval()
    np.testing.assert_allclose(emodel(ember.tensor(x)).detach().numpy(),
                               tmodel(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    tmodel.train()
    emodel.train()
    _train(torch, tmodel, topt, torch.tensor(x), torch.tensor(y))
    _train(ember, emodel, eopt, ember.tensor(x), ember.tensor(y))
    for (name, a), b in zip(emodel.state_dict().items(), tmodel.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)
    # and back: torch continues from ember's checkpoint
    back = loaded(torch, saved(ember, {'model': emodel.state_dict(), 'opt': eopt.state_dict()}),
                  weights_only=True)
    # (ember's own state_dict has no _metadata yet; a loaded one keeps torch's)
    assert loaded(torch, saved(ember, sd))._metadata == sd._metadata
    tmodel2 = _net(torch)
    tmodel2.load_state_dict(back['model'])
    topt2 = torch.optim.Adam(tmodel2.parameters(), lr=0.01)
    topt2.load_state_dict(back['opt'])
    assert topt2.state_dict()['state'][0]['step'].item() == 6
    tmodel2.eval()
    emodel.eval()
    np.testing.assert_allclose(tmodel2(torch.tensor(x)).detach().numpy(),
                               emodel(ember.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_python_values_and_containers_cross_unchanged():
    obj = {'int': 3, 'big': 2 ** 70, 'neg': -5, 'float': 0.5, 'complex': 1 + 2j, 'str': 'ünï',
           'bytes': b'\x00\xff', 'none': None, 'bool': [True, False], 'tuple': (1, (2, 3)),
           'set': {1, 2}, 'list': [[], {}], 'counter': collections.Counter(a=2),
           'od': collections.OrderedDict(b=1, a=2), 'bytearray': bytearray(b'ab')}
    for lib in (torch, ember):
        assert loaded(lib, saved(torch, obj)) == obj
        assert loaded(lib, saved(ember, obj)) == obj
    for lib in (torch, ember):
        dt = loaded(lib, saved(ember, {'d': ember.float64, 's': ember.Size([2, 3]),
                                       'dev': ember.device('cpu')}))
        assert (str(dt['d']), repr(dt['s']), str(dt['dev'])) == ('torch.float64',
                                                                 'torch.Size([2, 3])', 'cpu')
        assert type(dt['s']).__name__ == 'Size'


def _at(data, location):
    """torch's zip ``data`` with its storages' location tag changed to ``location``."""
    return rezip(data, lambda n, d: d.replace(
        b'X\x03\x00\x00\x00cpu', b'X' + len(location).to_bytes(4, 'little') +
        location.encode()) if n.endswith('data.pkl') else d)


@pytest.mark.parametrize('map_location', [None, 'cpu', 'cuda', {'cuda:0': 'cpu'},
                                          'callable', 'callable_none'])
def test_map_location_as_torch_on_a_cpu_only_machine(map_location):
    data = _at(saved(torch, {'w': torch.ones(2)}), 'cuda:0')
    results = []
    for lib in (torch, ember):
        where = {'callable': lambda storage, loc: storage,
                 'callable_none': lambda storage, loc: None}.get(map_location, map_location) \
            if isinstance(map_location, str) and map_location.startswith('callable') \
            else map_location
        results.append(outcome(lambda: loaded(lib, data, map_location=where)['w'].tolist()))
    (t_kind, t_value), (e_kind, e_value) = results
    assert t_kind == e_kind, results
    if t_kind == 'ok':
        assert t_value == e_value
    elif map_location is None:
        assert e_value.startswith("Attempting to deserialize object on a CUDA device but")


def test_map_location_devices_and_names():
    data = saved(torch, torch.ones(2))
    for where in ('cpu', torch.device('cpu'), ember.device('cpu'), b'cpu'):
        where_e = ember.device('cpu') if isinstance(where, torch.device) else where
        assert loaded(ember, data, map_location=where_e).tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="ember runs on the CPU only"):
        loaded(ember, data, map_location='cuda:0')


def test_mmap_maps_storages_copy_on_write(tmp_path):
    path = tmp_path / 'w.pt'
    original = {'w': torch.randn(64, 32), 'b': torch.arange(10), 'v': None}
    original['v'] = original['w'][3]
    torch.save(original, path)
    before = path.read_bytes()
    e = ember.load(path, mmap=True)
    t = torch.load(path, mmap=True)
    for k in original:
        same_tensor(e[k], t[k])
        base = _root(e[k]._data).base
        assert isinstance(getattr(base, 'obj', base), mmap_module.mmap)   # (a memoryview of it)
    e['w'][0, 0] = 123.0          # private mapping: the file does not change
    assert path.read_bytes() == before
    # also on ember's own checkpoints: records aligned at 64 bytes, as torch writes them;
    # the storages saved are those of the file, not the whole mapped file
    ember.save(e, tmp_path / 'e.pt')
    assert (tmp_path / 'e.pt').stat().st_size < len(before) + 4096
    again = ember.load(tmp_path / 'e.pt', mmap=True)
    assert all(a._data.ctypes.data % 64 == 0 for a in (again['w'], again['b']))
    assert again['w'][0, 0].item() == 123.0
    in_torch = torch.load(tmp_path / 'e.pt', mmap=True)   # torch maps ember's file too
    assert in_torch['w'][0, 0].item() == 123.0 and in_torch['v'].storage_offset() == 3 * 32


def test_mmap_needs_a_zip_file_path_as_in_torch(tmp_path):
    data = saved(torch, torch.ones(2))
    kinds = [outcome(lambda: loaded(lib, data, mmap=True)) for lib in (torch, ember)]
    assert kinds[0] == kinds[1] and kinds[0][0] is ValueError
    legacy = tmp_path / 'legacy.pt'
    torch.save(torch.ones(2), legacy, _use_new_zipfile_serialization=False)
    kinds = [outcome(lambda: lib.load(legacy, mmap=True)) for lib in (torch, ember)]
    assert kinds[0][0] is kinds[1][0] is RuntimeError
    assert kinds[1][1].startswith("mmap can only be used with files saved with")


def test_weights_only_defaults_and_pickle_module_as_torch():
    data = saved(torch, {'w': torch.ones(1)})
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Can not safely load weights when explicit "
                           "pickle_module is specified"):
            loaded(lib, data, pickle_module=pickle, weights_only=True)
        # a pickle_module makes weights_only default to False: a global loads
        assert loaded(lib, saved(torch, {'f': np.add}), pickle_module=pickle)['f'] is np.add


class Point:
    """A user class, allowed by add_safe_globals / safe_globals."""
    def __init__(self, x):
        self.x = x

    def __eq__(self, other):
        return type(other) is Point and other.x == self.x


def test_safe_globals_allow_a_class_as_in_torch():
    data = saved(torch, {'p': Point(3)})
    for lib in (torch, ember):
        ser = lib.serialization
        ser.clear_safe_globals()
        with pytest.raises(pickle.UnpicklingError, match=r"Weights only load failed(.|\n)*"
                           r"GLOBAL tests.serialization.test_torch_format.Point was not an "
                           "allowed global by default"):
            loaded(lib, data)
        with ser.safe_globals([Point]):
            assert loaded(lib, data)['p'] == Point(3)
            assert ser.get_safe_globals() == [Point]
        assert ser.get_safe_globals() == []
        ser.add_safe_globals([Point])
        assert loaded(lib, data)['p'] == Point(3)
        ser.clear_safe_globals()
        ser.add_safe_globals([(Point, 'tests.serialization.test_torch_format.Point')])
        assert loaded(lib, data)['p'] == Point(3)
        ser.clear_safe_globals()
        assert ser.get_safe_globals() == []


def test_file_objects_paths_and_archive_names(tmp_path):
    ember.save({'w': ember.ones(2)}, tmp_path / 'model.pt')
    import zipfile
    names = zipfile.ZipFile(tmp_path / 'model.pt').namelist()
    torch.save({'w': torch.ones(2)}, tmp_path / 'model_t.pt')
    torch_names = zipfile.ZipFile(tmp_path / 'model_t.pt').namelist()
    assert names == [n.replace('model_t/', 'model/') for n in torch_names]
    for path in (str(tmp_path / 'model.pt'), tmp_path / 'model.pt'):
        assert torch.load(path)['w'].tolist() == ember.load(path)['w'].tolist() == [1.0, 1.0]

    class Unseekable(io.RawIOBase):   # a pipe: save and load buffer it
        def __init__(self, data=b''):
            self.buf = io.BytesIO(data)

        def writable(self):
            return True

        def readable(self):
            return True

        def write(self, b):
            return self.buf.write(b)

        def readinto(self, b):
            return self.buf.readinto(b)
    pipe = Unseekable()
    ember.save(ember.arange(3), pipe)
    data = pipe.buf.getvalue()
    assert torch.load(io.BytesIO(data)).tolist() == [0, 1, 2]
    assert ember.load(Unseekable(data)).tolist() == [0, 1, 2]


def test_embers_older_files_still_load(tmp_path):
    from ember.serialization._legacy import EMBER_MAGIC
    model = ember.nn.Linear(2, 3)
    path = tmp_path / 'old.pt'
    with open(path, 'wb') as f:   # what ember.save wrote before it wrote torch's format
        f.write(EMBER_MAGIC)
        pickle.dump({'sd': model.state_dict(), 'p': model.weight, 'n': 1}, f, protocol=4)
    back = ember.load(path)
    assert back['n'] == 1 and type(back['p']) is ember.nn.Parameter
    assert ember.equal(back['sd']['weight'], model.weight)
    with open(path, 'wb') as f:
        f.write(EMBER_MAGIC)
        pickle.dump({'x': np.array([1, None], dtype=object)}, f, protocol=4)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ember.load(path)
    assert ember.load(path, weights_only=False)['x'][1] is None


def test_unsafe_globals_are_listed_without_loading_as_in_torch():
    data = saved(torch, {'p': Point(1), 'f': np.add, 'w': torch.ones(2)})
    for lib in (torch, ember):
        lib.serialization.clear_safe_globals()
    found = [lib.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(data))
             for lib in (torch, ember)]
    assert sorted(found[0]) == found[1]
    # (NumPy 2.0 pickles np.add as numpy._core._multiarray_umath.add, newer ones numpy.add)
    assert found[1][-1] == 'tests.serialization.test_torch_format.Point'
    assert found[1][0].startswith('numpy.') and found[1][0].endswith('.add')
    kinds = [outcome(lambda: lib.serialization.get_unsafe_globals_in_checkpoint(
        io.BytesIO(saved(torch, 1, _use_new_zipfile_serialization=False))))
        for lib in (torch, ember)]
    assert kinds[0] == kinds[1] and kinds[0][0] is ValueError


def test_a_whole_torch_module_loads_as_embers_when_trusted():
    tnet = _net(torch).eval()
    enet = loaded(ember, saved(torch, tnet), weights_only=False)
    assert type(enet) is ember.nn.Sequential and not enet.training
    x = np.random.default_rng(1).standard_normal((2, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(enet(ember.tensor(x)).detach().numpy(),
                               tnet(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    for lib in (torch, ember):   # and it is refused by default, naming the module's class
        with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.nn.modules.container."
                           "Sequential was not an allowed global"):
            loaded(lib, saved(torch, tnet))


@pytest.mark.parametrize('zip_format', [True, False], ids=['zip', 'legacy'])
def test_a_trusted_load_reads_the_same_from_a_path(zip_format, tmp_path):
    original = {'a': torch.arange(5), 'row': torch.ones(2, 3)[1], 'n': 7}
    torch.save(original, tmp_path / 'c.pt', _use_new_zipfile_serialization=zip_format)
    for kwargs in ({}, {'weights_only': False}, {'pickle_module': pickle}):
        e = ember.load(tmp_path / 'c.pt', **kwargs)
        t = torch.load(tmp_path / 'c.pt', **kwargs)
        assert e['n'] == t['n']
        for k in ('a', 'row'):
            same_tensor(e[k], t[k])
