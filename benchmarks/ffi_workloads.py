"""C extension workloads (ember.utils.ffi), registered into workloads.WORKLOADS.

- ffi_call: the cost of one call into C, against the C++ path (ember.utils.cpp_extension):
  the same kernel (x * 2 + 1 on 16 float32 elements) writing into an output of the right
  size, ``scale_add(x, out)`` in C and ``scale_add_out(x, out)`` in C++.
- ffi_call_resize: the extension-ffi way -- ``out = x.new_empty(0)``, then C resizes it --
  against the C++ kernel that allocates its output; both include making the output.
- ffi_warm_load: loading the built extension in a fresh interpreter (a cache hit), against
  a budget of 50 ms.

Builds go under ``<tempdir>/ember-bench-extensions`` (shared with cpp_workloads), never the
user's extension caches.
"""
import os
import statistics
import subprocess
import sys

import numpy as np

from cpp_workloads import BENCH_DIR, _extensions_root, _load_inline
from workloads import Measured, _import_env, custom

HEADER = 'int scale_add(const EmberTensor *x, EmberTensor *out);\n'
SOURCE = '''
#include <ember/ember_c.h>

int scale_add(const EmberTensor *x, EmberTensor *out) {
  if (!ember_check_dtype(x, EMBER_FLOAT32) || !ember_check_dtype(out, EMBER_FLOAT32))
    return 0;
  if (!ember_is_contiguous(x)) return ember_error("scale_add: x must be contiguous");
  if (!ember_resize_as(out, x)) return 0;
  const float *a = (const float *) x->data;
  float *o = (float *) out->data;
  for (int64_t i = 0; i < x->numel; ++i) o[i] = a[i] * 2.0f + 1.0f;
  return 1;
}
'''


def _c_extension():
    """The C kernel, built once into the benchmark directory (later runs reuse it)."""
    from ember.utils.ffi import load
    folder = os.path.join(BENCH_DIR, 'ffi_src')
    os.makedirs(folder, exist_ok=True)
    paths = []
    for name, text in (('scale_add.h', HEADER), ('scale_add.c', SOURCE)):
        paths.append(os.path.join(folder, name))
        if not os.path.exists(paths[-1]) or open(paths[-1]).read() != text:
            with open(paths[-1], 'w') as f:
                f.write(text)
    with _extensions_root(os.path.join(BENCH_DIR, 'root')):
        return load('ffi_probe', *paths, build_directory=os.path.join(BENCH_DIR, 'ffi_call'))


# The C++ twin of the C kernel: writes into a given output of the right size.
CPP_OUT = '''
void scale_add_out(ember::Tensor x, ember::Tensor out) {
  EMBER_CHECK(out.numel() == x.numel(), "scale_add_out: out has the wrong size");
  const float* a = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] * 2.0f + 1.0f;
}
'''


def _cpp_extensions():
    """The C++ kernels: cpp_workloads' ``scale_add(x)`` (allocates its output) and
    ``scale_add_out(x, out)``."""
    import ember
    from ember.utils.cpp_extension import load_inline
    with _extensions_root(os.path.join(BENCH_DIR, 'root')):
        allocating = _load_inline(ember, 'call_probe', os.path.join(BENCH_DIR, 'call_ember'))
        out = load_inline('call_out_probe', CPP_OUT, functions=['scale_add_out'],
                          build_directory=os.path.join(BENCH_DIR, 'call_out_ember'))
    return allocating, out


def _interleaved(opts, calls):
    """Median seconds per call of each of ``calls`` ({name: fn}), timed in turns."""
    n = 2000 if opts.quick else 20000
    times = {k: [] for k in calls}
    for _ in range(5 if opts.quick else opts.repeat):
        for k, call in calls.items():  # interleaved, so load on the machine hits all
            t = opts.timer()
            for _ in range(n):
                call()
            times[k].append((opts.timer() - t) / n)
    return {k: statistics.median(v) for k, v in times.items()}


def _setup():
    import ember
    c = _c_extension()
    allocating, out = _cpp_extensions()
    x = ember.tensor(np.linspace(-1, 1, 16, dtype=np.float32))
    return ember, c, allocating, out, x


@custom(target=1.5)
def _ffi_call(opts):
    """One call into C with two tensors (x and an output of the right size) against the same
    call through the C++ path: the cost of the call itself."""
    ember, c, _, cpp, x = _setup()
    y, z = ember.empty(16), ember.empty(16)
    c.scale_add(x, y)
    cpp.scale_add_out(x, z)
    np.testing.assert_array_equal(y.numpy(), z.numpy())
    med = _interleaved(opts, {'c': lambda: c.scale_add(x, y),
                              'cpp': lambda: cpp.scale_add_out(x, z)})
    return Measured(med['c'], med['cpp'], 'C++ path')


@custom(target=1.5)
def _ffi_call_resize(opts):
    """extension-ffi's pattern: ``out = x.new_empty(0)`` and a C call resizing it, against the
    C++ kernel allocating its output (``ember::empty_like``)."""
    ember, c, cpp, _, x = _setup()

    def c_call():
        out = x.new_empty(0)
        c.scale_add(x, out)
        return out

    np.testing.assert_array_equal(c_call().numpy(), cpp.scale_add(x).numpy())
    med = _interleaved(opts, {'c': c_call, 'new_empty': lambda: x.new_empty(0),
                              'cpp': lambda: cpp.scale_add(x)})
    return Measured(med['c'], med['cpp'], 'C++ path',
                    f"of which x.new_empty(0) {med['new_empty'] * 1e6:.2f} us")


_WARM = '''
import time, ember
t = time.perf_counter()
from ember.utils.ffi import load
m = load('ffi_probe', {h!r}, {c!r}, build_directory={d!r})
print(time.perf_counter() - t)
'''


@custom(target=1.0)
def _ffi_warm_load(opts):
    """Loading the built C kernel in a fresh interpreter (cache hit, module import included)
    against a 50 ms budget."""
    _c_extension()  # built once (not timed)
    folder = os.path.join(BENCH_DIR, 'ffi_src')
    code = _WARM.format(h=os.path.join(folder, 'scale_add.h'),
                        c=os.path.join(folder, 'scale_add.c'),
                        d=os.path.join(BENCH_DIR, 'ffi_call'))
    env = _import_env()
    env['EMBER_EXTENSIONS_DIR'] = os.path.join(BENCH_DIR, 'root')
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    n = 3 if opts.quick else max(5, opts.repeat)
    best = min(float(subprocess.run([sys.executable, '-c', code], env=env, cwd=root,
                                    capture_output=True, text=True, check=True)
                     .stdout.strip().splitlines()[-1]) for _ in range(n))
    return Measured(best, 0.050, '50 ms budget', f'best of {n}')
