"""The C extension of my_package: setup.py compiles it through cffi's ``cffi_modules``
(``ffi`` below); ``python build_ffi.py`` compiles it in place for development."""
from ember.utils.ffi import create_extension

ffi = create_extension(
    'my_package._ext.my_lib',
    package=True,
    headers=['my_package/src/my_lib.h'],
    sources=['my_package/src/my_lib.c'],
    define_macros=[],
    relative_to=__file__,
    with_cuda=False,
)

if __name__ == '__main__':
    ffi.build()
