"""ember.backends.native: ember's optional compiled kernels (no torch counterpart).

With the ``native`` extra (cffi and a C compiler), ember can compile a small C module the
first time it is needed (cached like any C extension, see ``ember.utils.ffi``) and run the
float32 work that NumPy does in many passes over memory in one or two: GELU, SiLU, softmax,
log_softmax, layer_norm and batch_norm with batch statistics (forward and backward), the
embedding backward's scatter-add, and conv2d's 3x3 Winograd path (transforms and
small-channel matrix products, a few samples at a time so that they stay in cache). Results agree with the NumPy path to
float32 rounding.

It is off by default -- the NumPy path is ember's reference. Turn it on with the environment
variable ``EMBER_NATIVE=1`` or ``ember.backends.native.enabled = True``; when the build is not
possible, ember warns once and keeps computing with NumPy.
"""
import os

__all__ = ['is_available', 'enabled']

enabled = os.environ.get('EMBER_NATIVE', '0') not in ('', '0')


def is_available():
    """Whether the compiled kernels can be used here (builds them if needed)."""
    from .. import _native
    return _native.build() is not None
