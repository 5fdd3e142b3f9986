"""my_package: an ember C extension as a pip-installable package.

    pip install --no-build-isolation .

(the build imports ember and cffi: install both first, or list them in build-system.requires)
"""
import os
import sys

from setuptools import find_packages, setup

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_ffi  # noqa: E402,F401  (writes my_package/_ext/my_lib/__init__.py for find_packages)

setup(
    name='my_package',
    version='0.1',
    description='An example project using ember.utils.ffi',
    install_requires=['cffi>=1.0.0'],
    setup_requires=['cffi>=1.0.0'],
    packages=find_packages(),
    ext_package='',
    cffi_modules=['build_ffi.py:ffi'],
)
