"""C++ extension workloads (ember.utils.cpp_extension), registered into workloads.WORKLOADS.

- cpp_cold_build: one small inline kernel built from nothing, ember vs
  torch.utils.cpp_extension.load_inline. Runs once per benchmark run (torch's build takes
  tens of seconds), not in a timing loop.
- cpp_warm_load: loading that kernel again in a fresh interpreter (a cache hit), against a
  budget of 50 ms.
- cpp_call: calling the kernel on a 16-element tensor, ember vs torch (both built once, in
  a build directory under the temp directory that later runs reuse).
- lltm_cpp: examples/lltm's C++ LLTM cell, forward + backward, against the same cell in
  plain ember ops.

Builds go under ``<tempdir>/ember-bench-extensions``, never the user's extension caches.
"""
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from workloads import Measured, _import_env, custom, workload

BENCH_DIR = os.path.join(tempfile.gettempdir(), 'ember-bench-extensions')

# One kernel, written once: `ns` is `ember` or `torch`, the only difference between the two.
KERNEL = '''
{ns}::Tensor scale_add({ns}::Tensor x) {{
  auto out = {ns}::empty_like(x);
  const float* a = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = a[i] * 2.0f + 1.0f;
  return out;
}}
'''


def _kernel(ns):
    return KERNEL.format(ns=ns)


@contextlib.contextmanager
def _extensions_root(path):
    """ember's build root (and nanobind's cached library with it) at ``path`` for a while."""
    old = os.environ.get('EMBER_EXTENSIONS_DIR')
    os.environ['EMBER_EXTENSIONS_DIR'] = path
    try:
        yield path
    finally:
        if old is None:
            del os.environ['EMBER_EXTENSIONS_DIR']
        else:
            os.environ['EMBER_EXTENSIONS_DIR'] = old


def _load_inline(lib, name, build_directory):
    """The kernel built by ``lib``'s load_inline (quietly: torch prints its progress)."""
    if lib.__name__ == 'ember':
        from ember.utils.cpp_extension import load_inline
    else:
        from torch.utils.cpp_extension import load_inline
    os.makedirs(build_directory, exist_ok=True)
    with open(os.devnull, 'w') as devnull, contextlib.redirect_stdout(devnull):
        return load_inline(name, _kernel(lib.__name__), functions=['scale_add'],
                           build_directory=build_directory)


def _seconds(fn):
    t = time.perf_counter()  # wall clock always: the compilers run in child processes
    fn()
    return time.perf_counter() - t


@custom(target=0.3)
def _cpp_cold_build(opts):
    """A small inline kernel built from nothing: ember load_inline vs torch's (runs once: torch
    takes tens of seconds)."""
    scratch = tempfile.mkdtemp(prefix='ember-cold-build-')
    try:
        with _extensions_root(os.path.join(scratch, 'ember')):
            import ember
            # Everything cold, nanobind's library included; then a second extension, which
            # finds that library built.
            first = _seconds(lambda: _load_inline(ember, 'cold_a', os.path.join(scratch, 'a')))
            second = _seconds(lambda: _load_inline(ember, 'cold_b', os.path.join(scratch, 'b')))
        if not opts.torch_available:
            return Measured(first, None, 'torch', f'extension alone {second:.2f} s')
        import torch
        theirs = _seconds(lambda: _load_inline(torch, 'cold_t', os.path.join(scratch, 't')))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return Measured(first, theirs, 'torch',
                    f"once; ember's extension alone (nanobind's library cached) {second:.2f} s, "
                    f'ratio {second / theirs:.2f}')


_WARM_SNIPPET = '''
import time, {lib}
t = time.perf_counter()
from {module} import load_inline
m = load_inline('warm_probe', {source!r}, functions=['scale_add'], build_directory={path!r})
print(time.perf_counter() - t)
'''


def _warm_seconds(lib_name, path, env):
    """Seconds a fresh interpreter takes to import ``lib_name``'s cpp_extension module and
    load the (cached) kernel."""
    code = _WARM_SNIPPET.format(lib=lib_name, module=f'{lib_name}.utils.cpp_extension',
                                path=path, source=_kernel(lib_name))
    out = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                         check=True, cwd=os.path.join(os.path.dirname(__file__), '..'))
    return float(out.stdout.strip().splitlines()[-1])


@custom(target=1.0)
def _cpp_warm_load(opts):
    """Loading the built kernel in a fresh interpreter (cache hit, module import included)
    against a 50 ms budget; torch's warm load_inline for information."""
    env = _import_env()
    root = os.path.join(BENCH_DIR, 'root')
    env['EMBER_EXTENSIONS_DIR'] = root
    n = 3 if opts.quick else max(5, opts.repeat)
    ember_dir = os.path.join(BENCH_DIR, 'warm_ember')
    with _extensions_root(root):
        import ember
        _load_inline(ember, 'warm_probe', ember_dir)  # build once (not timed)
    best = min(_warm_seconds('ember', ember_dir, env)
               for _ in range(n))
    note = f'baseline: a 50 ms budget; best of {n}'
    if opts.torch_available:
        import torch
        torch_dir = os.path.join(BENCH_DIR, 'warm_torch')
        _load_inline(torch, 'warm_probe', torch_dir)
        theirs = min(_warm_seconds('torch', torch_dir, env)
                     for _ in range(3))
        note += f"; torch's warm load_inline {theirs * 1e3:.0f} ms"
    return Measured(best, 0.050, '50 ms budget', note)


@workload(target=1.0)
def cpp_call(lib):
    """The inline kernel (x * 2 + 1 into a new tensor) called on 16 float32 elements; each
    library's extension is built once into a build directory later runs reuse."""
    with _extensions_root(os.path.join(BENCH_DIR, 'root')):
        ext = _load_inline(lib, 'call_probe', os.path.join(BENCH_DIR, f'call_{lib.__name__}'))
    x = lib.tensor(np.linspace(-1, 1, 16, dtype=np.float32))
    return lambda: ext.scale_add(x)


@custom(target=1.0)
def _lltm_cpp(opts):
    """examples/lltm: the C++ LLTM cell vs the same cell in plain ember ops, batch 64, 128
    input features, state 128, float32, forward + backward."""
    import ember
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    from examples.lltm import lltm
    with _extensions_root(os.path.join(BENCH_DIR, 'root')):
        lltm.extension()
    ember.manual_seed(0)
    layer = lltm.LLTM(128, 128)
    x, h, c = ember.randn(64, 128), ember.randn(64, 128), ember.randn(64, 128)

    def step(cell):
        layer.zero_grad()
        new_h, new_c = cell()
        (new_h.sum() + new_c.sum()).backward()

    cells = {'cpp': lambda: layer(x, (h, c)),
             'plain': lambda: lltm.lltm_cell(ember, x, layer.weights, layer.bias, h, c)}
    n = 10 if opts.quick else 100
    times = {k: [] for k in cells}
    for _ in range(5 if opts.quick else opts.repeat):
        for k, cell in cells.items():  # interleaved, so load on the machine hits both
            t = opts.timer()
            for _ in range(n):
                step(cell)
            times[k].append((opts.timer() - t) / n)
    note = ''
    if opts.torch_available:
        import torch
        args = [torch.tensor(a.detach().numpy()) for a in (x, layer.weights, layer.bias, h, c)]
        for a in args[1:3]:
            a.requires_grad_()

        def torch_step():
            new_h, new_c = lltm.lltm_cell(torch, *args)
            (new_h.sum() + new_c.sum()).backward()
        t = opts.timer()
        for _ in range(n):
            torch_step()
        note = f"torch's plain cell {(opts.timer() - t) / n * 1e3:.2f} ms"
    return Measured(statistics.median(times['cpp']), statistics.median(times['plain']),
                    'plain ember ops', note)
