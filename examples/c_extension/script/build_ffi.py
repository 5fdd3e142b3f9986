"""Builds the C extension into ``_ext/my_lib`` beside this file (``python build_ffi.py``), so
that ``from _ext import my_lib`` works here. Rebuilding an unchanged extension is a cache hit."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..'))

from ember.utils.ffi import create_extension  # noqa: E402

ffi = create_extension(
    '_ext.my_lib',
    headers=['src/my_lib.h'],
    sources=['src/my_lib.c'],
    define_macros=[],
    relative_to=__file__,
    with_cuda=False,
    extra_compile_args=['-std=c99'],
)

if __name__ == '__main__':
    ffi.build()
