"""Shared set-up of the C extension (ember.utils.ffi) tests: a private build root for the
session (the user's cache is never touched) and one skip, with its reason, where a build
cannot run."""
import os
import shutil

import pytest


@pytest.fixture(scope='session', autouse=True)
def extensions_root(tmp_path_factory):
    """EMBER_EXTENSIONS_DIR for this session (each xdist worker gets its own), inherited by
    the subprocesses the tests start."""
    root = tmp_path_factory.mktemp('ember_ffi_extensions')
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv('EMBER_EXTENSIONS_DIR', str(root))
        yield root


@pytest.fixture(scope='session')
def toolchain():
    """Skips a test that builds when no C compiler or no cffi is installed."""
    cc = os.environ.get('CC', '').split() or ['cc']
    if shutil.which(cc[0]) is None and shutil.which('gcc') is None:
        pytest.skip('no C compiler on PATH (set CC or install gcc)')
    pytest.importorskip('cffi', reason="cffi (which builds the modules) is not installed: "
                        "pip install -e '.[test]' brings it")
