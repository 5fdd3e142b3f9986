"""torch.hub on ember and torch: the cache directory, downloads (file:// URLs: no network
here) with the hash check, load_state_dict_from_url reading a torch checkpoint into ember,
and models from a local hubconf.py."""
import os
import pathlib

import pytest

from tests.dropin.compare import same, plain, torch, ember


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    monkeypatch.setenv('TORCH_HOME', str(tmp_path / 'home'))
    return tmp_path


def test_get_dir_follows_torch_home(hub_dir):
    same(lambda lib: lib.hub.get_dir())


def test_set_dir(hub_dir):
    def run(lib):
        old = lib.hub.get_dir()
        lib.hub.set_dir(str(hub_dir / 'elsewhere'))
        try:
            return lib.hub.get_dir()
        finally:
            lib.hub.set_dir(old)
    same(run)


def _checkpoint(tmp_path, name):
    """A torch checkpoint named ``name`` (with its real hash when ``name`` asks for it)."""
    import hashlib
    raw = tmp_path / 'raw.pt'
    torch.save({'w': torch.arange(6.).reshape(2, 3), 'b': torch.ones(2)}, raw)
    digest = hashlib.sha256(raw.read_bytes()).hexdigest()
    path = tmp_path / 'src' / name.replace('HASH', digest[:8])
    path.parent.mkdir(exist_ok=True)
    raw.rename(path)
    return path, digest


def test_load_state_dict_from_url_reads_torchs_checkpoint(hub_dir):
    path, _ = _checkpoint(hub_dir, 'weights-HASH.pth')

    def run(lib):
        sd = lib.hub.load_state_dict_from_url(path.as_uri(), model_dir=str(hub_dir / lib.__name__),
                                              check_hash=True)
        again = lib.hub.load_state_dict_from_url(path.as_uri(),
                                                 model_dir=str(hub_dir / lib.__name__))
        return {k: plain(v) for k, v in sd.items()}, sorted(again), sorted(
            os.listdir(hub_dir / lib.__name__))
    same(run)


def test_model_zoo_load_url_is_the_old_name(hub_dir):
    """Code from before torch.hub calls ``torch.utils.model_zoo.load_url``."""
    path, _ = _checkpoint(hub_dir, 'old-HASH.pth')

    def run(lib):
        import importlib
        zoo = importlib.import_module(f'{lib.__name__}.utils.model_zoo')
        sd = zoo.load_url(path.as_uri(), model_dir=str(hub_dir / ('zoo_' + lib.__name__)))
        return {k: plain(v) for k, v in sd.items()}, zoo.load_url is lib.hub.load_state_dict_from_url
    same(run)


def test_config_describes_the_build():
    """``torch.__config__.show()``/``parallel_info()`` are text (ember names NumPy and its BLAS
    where torch names its compiler and MKL) and report the thread count in use."""
    for lib in (ember, torch):
        text, par = lib.__config__.show(), lib.__config__.parallel_info()
        assert isinstance(text, str) and text.endswith('\n') and 'built with' in text
        assert f"get_num_threads() : {lib.get_num_threads()}" in par
    assert 'NumPy' in ember.__config__.show()


def test_a_wrong_hash_is_refused_and_leaves_nothing(hub_dir):
    path, digest = _checkpoint(hub_dir, 'weights-0000beef.pth')

    def run(lib):
        target = hub_dir / ('bad_' + lib.__name__)
        try:
            lib.hub.load_state_dict_from_url(path.as_uri(), model_dir=str(target),
                                             check_hash=True)
        finally:
            assert os.listdir(target) == []
    same(run)


def test_download_url_to_file(hub_dir):
    src = hub_dir / 'data.bin'
    src.write_bytes(b'ember' * 1000)

    def run(lib):
        dst = hub_dir / f'copy_{lib.__name__}.bin'
        lib.hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix='', progress=False)
        return dst.read_bytes() == src.read_bytes()
    same(run)


HUBCONF = '''
dependencies = ['math']
import helper


def tiny(scale=1.0):
    """A tiny model."""
    return helper.describe(scale)


def _private():
    pass
'''


@pytest.fixture
def repo(tmp_path):
    d = tmp_path / 'repo'
    d.mkdir()
    (d / 'hubconf.py').write_text(HUBCONF)
    (d / 'helper.py').write_text('def describe(s):\n    return ("tiny", s)\n')
    return d


def test_local_hubconf(repo):
    same(lambda lib: lib.hub.load(str(repo), 'tiny', 2.0, source='local'))
    same(lambda lib: lib.hub.load(str(repo), 'missing', source='local'))
    same(lambda lib: lib.hub.load(str(repo), 'tiny', source='nowhere'))


def test_missing_dependencies(repo):
    (repo / 'hubconf.py').write_text("dependencies = ['no_such_module_xyz']\n")
    same(lambda lib: lib.hub.load(str(repo), 'tiny', source='local'))


def test_list_and_help_of_a_local_repository(repo):
    assert ember.hub.list(str(repo)) == ['tiny']
    assert ember.hub.help(str(repo), 'tiny') == 'A tiny model.'


def test_github_repositories_download_once(repo, hub_dir, monkeypatch):
    # (a GitHub archive served from a file: the layout GitHub's zipball has)
    import shutil
    import zipfile
    archive = hub_dir / 'zipball.zip'
    with zipfile.ZipFile(archive, 'w') as z:
        for f in repo.iterdir():
            z.write(f, f'owner-repo-abc123/{f.name}')
    seen = []
    real = ember.hub.urllib.request.urlopen

    def fake(url, *a, **k):
        seen.append(url)
        return real(archive.as_uri())
    monkeypatch.setattr(ember.hub.urllib.request, 'urlopen', fake)
    assert ember.hub.load('owner/repo:v1', 'tiny', 3) == ('tiny', 3)
    assert ember.hub.load('owner/repo:v1', 'tiny') == ('tiny', 1.0)
    assert seen == ['https://github.com/owner/repo/zipball/v1']
    assert os.path.isdir(os.path.join(ember.hub.get_dir(), 'owner_repo_v1'))
    shutil.rmtree(ember.hub.get_dir())
