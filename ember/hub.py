"""``torch.hub``: pretrained weights by URL and models from a repository's ``hubconf.py``.

The cache is torch's own (``$TORCH_HOME/hub``, by default ``~/.cache/torch/hub``), so weights
torch downloaded are found here too, and ember reads torch's checkpoint files.

>>> sd = ember.hub.load_state_dict_from_url('https://.../resnet18-f37072fd.pth')  # doctest: +SKIP
>>> model = ember.hub.load('path/to/repo', 'resnet18', source='local')  # doctest: +SKIP
"""
import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import urllib.parse
import urllib.request
import zipfile

__all__ = ['get_dir', 'set_dir', 'download_url_to_file', 'load_state_dict_from_url', 'load',
           'list', 'help', 'HASH_REGEX']

HASH_REGEX = re.compile(r'-([a-f0-9]*)\.')  # (a file name's hash part: resnet18-f37072fd.pth)
_HUB_DIR = [None]
_CHUNK = 1 << 16


def get_dir():
    """The hub's cache directory: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``TORCH_HOME``
    defaulting to ``$XDG_CACHE_HOME/torch``, ``~/.cache/torch``)."""
    if _HUB_DIR[0] is not None:
        return _HUB_DIR[0]
    cache = os.getenv('XDG_CACHE_HOME', os.path.join('~', '.cache'))
    home = os.path.expanduser(os.getenv('TORCH_HOME', os.path.join(cache, 'torch')))
    return os.path.join(home, 'hub')


def set_dir(d):
    """Makes ``d`` the hub's cache directory."""
    _HUB_DIR[0] = os.path.expanduser(os.fspath(d))


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Downloads ``url`` to the file ``dst`` (through a temporary file beside it, so a broken
    download leaves nothing); with ``hash_prefix``, the SHA-256 of the content must start
    with it."""
    dst = os.path.expanduser(dst)
    folder = os.path.dirname(os.path.abspath(dst))
    digest = hashlib.sha256()
    fd, tmp = tempfile.mkstemp(dir=folder, suffix='.partial')
    try:
        with os.fdopen(fd, 'wb') as out, urllib.request.urlopen(url) as response:
            while True:
                chunk = response.read(_CHUNK)
                if not chunk:
                    break
                out.write(chunk)
                digest.update(chunk)
        if hash_prefix is not None:
            got = digest.hexdigest()
            if not got.startswith(hash_prefix):
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{got}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True,
                             check_hash=False, file_name=None, weights_only=False):
    """The object saved at ``url`` (a state dict, usually), downloaded once into
    ``model_dir`` (default ``<hub dir>/checkpoints``) and loaded with ``ember.load``.
    ``check_hash`` checks the download against the hash in its file name
    (``name-<sha256 prefix>.ext``)."""
    from .serialization import load as _load
    model_dir = os.path.join(get_dir(), 'checkpoints') if model_dir is None else model_dir
    os.makedirs(model_dir, exist_ok=True)
    name = file_name or os.path.basename(urllib.parse.urlparse(url).path)
    cached = os.path.join(model_dir, name)
    if not os.path.exists(cached):
        sys.stderr.write(f'Downloading: "{url}" to {cached}\n')
        match = HASH_REGEX.search(name) if check_hash else None
        download_url_to_file(url, cached, match.group(1) if match else None, progress)
    return _load(cached, map_location=map_location, weights_only=weights_only)


# -- models from a repository's hubconf.py -------------------------------------------------------
def _hubconf(repo_dir):
    path = os.path.join(repo_dir, 'hubconf.py')
    if not os.path.exists(path):
        raise FileNotFoundError(f"No such file or directory: '{path}'")
    spec = importlib.util.spec_from_file_location('hubconf', path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)  # (a hubconf imports its repository's own modules)
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [d for d in getattr(module, 'dependencies', []) if
               importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(module, model):
    if not isinstance(model, str):
        raise ValueError('Invalid input: model should be a string of function name')
    fn = getattr(module, model, None)
    if fn is None or not callable(fn):
        raise RuntimeError(f'Cannot find callable {model} in hubconf')
    return fn


def _github_dir(github, force_reload):
    """The local copy of ``owner/repo[:ref]`` (default ref 'main'), downloaded once."""
    repo, _, ref = github.partition(':')
    owner, _, name = repo.partition('/')
    if not owner or not name:
        raise ValueError(f'Invalid input: github should be in the form of owner/repo[:ref], '
                         f'got {github}')
    ref = ref or 'main'
    folder = os.path.join(get_dir(), f"{owner}_{name}_{ref.replace('/', '_')}")
    if os.path.exists(folder) and not force_reload:
        return folder
    os.makedirs(get_dir(), exist_ok=True)
    archive = folder + '.zip'
    download_url_to_file(f'https://github.com/{owner}/{name}/zipball/{ref}', archive)
    with zipfile.ZipFile(archive) as z:
        top = z.namelist()[0].split('/')[0]
        z.extractall(get_dir())
    os.remove(archive)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.move(os.path.join(get_dir(), top), folder)
    return folder


def _repo_dir(repo_or_dir, source, force_reload):
    if source not in ('github', 'local'):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    return repo_or_dir if source == 'local' else _github_dir(repo_or_dir, force_reload)


def load(repo_or_dir, model, *args, source='github', trust_repo=None, force_reload=False,
         verbose=True, skip_validation=False, **kwargs):
    """``model(*args, **kwargs)`` from the ``hubconf.py`` of a local directory
    (``source='local'``) or of a GitHub repository ``owner/repo[:ref]`` (downloaded once
    into the hub directory)."""
    module = _hubconf(_repo_dir(repo_or_dir, source, force_reload))
    return _entry(module, model)(*args, **kwargs)


def list(github, force_reload=False, skip_validation=False, trust_repo=None, verbose=True):
    """The names of the entry points a repository's ``hubconf.py`` offers."""
    module = _hubconf(_repo_dir(github, 'local' if os.path.isdir(github) else 'github',
                                force_reload))
    return [name for name in dir(module)
            if callable(getattr(module, name)) and not name.startswith('_')]


def help(github, model, force_reload=False, skip_validation=False, trust_repo=None):
    """The docstring of one entry point of a repository's ``hubconf.py``."""
    module = _hubconf(_repo_dir(github, 'local' if os.path.isdir(github) else 'github',
                                force_reload))
    return _entry(module, model).__doc__
