"""The benchmark workloads, each written once against a library module ``lib``.

A timed workload is a function ``setup(lib) -> run`` where ``lib`` is ``ember`` or ``torch``
and ``run`` is the zero-argument callable that gets timed. Setup (building inputs) is not
timed. ``run`` may return a tensor; the runner checks that both libraries returned the same
values, which catches a workload that accidentally differs between them.

Adding one is a function plus its decorator line::

    @workload(target=1.0, ops=1)
    def my_case(lib):
        x = lib.ones(8, requires_grad=True)
        return lambda: (x * 2).sum().backward()

``target`` is the ember/torch time ratio to meet (None: report only); ``ops`` is how many
ops one call runs, used to print a per-op time. A workload that cannot be written as a
callable for both libraries (the import time) uses ``@custom`` and measures itself.
"""
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from examples.note_examples import autograd_examples  # noqa: E402  (the note's code, once)

__all__ = ['Workload', 'Measured', 'WORKLOADS', 'workload', 'custom']


@dataclass
class Workload:
    """A registry entry: ``setup(lib) -> run`` (timed) or ``measure(opts) -> Measured``."""
    name: str
    target: Optional[float]
    doc: str
    setup: Optional[Callable] = None
    measure: Optional[Callable] = None
    ops: int = 1


@dataclass
class Measured:
    """What a custom workload reports: seconds for ember and for its baseline."""
    ember: float
    baseline: float
    baseline_name: str
    note: str = ''
    details: str = ''   # printed under the row with --verbose


WORKLOADS = {}


def workload(target=None, ops=1, name=None):
    """Registers ``setup(lib) -> run`` as a timed ember-vs-torch workload."""
    def deco(fn):
        n = name or fn.__name__
        WORKLOADS[n] = Workload(n, target, _first_line(fn), setup=fn, ops=ops)
        return fn
    return deco


def custom(target=None, name=None):
    """Registers ``measure(opts) -> Measured`` for a workload that times itself."""
    def deco(fn):
        n = name or fn.__name__.lstrip('_')
        WORKLOADS[n] = Workload(n, target, _first_line(fn), measure=fn)
        return fn
    return deco


def _first_line(fn):
    return (fn.__doc__ or '').strip().splitlines()[0] if fn.__doc__ else ''


# -- small-tensor op overhead ------------------------------------------------------------
CHAIN_LEN = 100


def _chain(y):
    """100 elementwise ops, mostly ``* 1.01`` / ``+ 0.5`` with a ``sin`` and an ``exp`` in
    every ten, so both scalar-binary and unary paths are hit. ``exp`` right after ``sin``
    keeps the values (and the gradient) bounded, so float32 rounding differences between the
    libraries do not blow up and the results can be compared."""
    for _ in range(CHAIN_LEN // 10):
        y = y * 1.01
        y = y + 0.5
        y = y * 1.01
        y = y + 0.5
        y = y.sin()
        y = y.exp()
        y = y * 1.01
        y = y + 0.5
        y = y * 1.01
        y = y + 0.5
    return y


def _leaf16(lib):
    return lib.tensor(np.linspace(-1, 1, 16, dtype=np.float32), requires_grad=True)


@workload(target=1.0, ops=CHAIN_LEN)
def chain_fwd_bwd(lib):
    """16-element float32 leaf, 100 chained elementwise ops, .sum().backward()."""
    x = _leaf16(lib)

    def run():
        x.grad = None
        _chain(x).sum().backward()
        return x.grad
    return run


@workload(target=1.3, ops=CHAIN_LEN)
def chain_nograd(lib):
    """The same 100-op chain on a 16-element leaf under no_grad."""
    x = _leaf16(lib)

    def run():
        with lib.no_grad():
            return _chain(x)
    return run


# -- BLAS-bound -----------------------------------------------------------------------------
@workload(target=1.15)
def matmul_fwd_bwd(lib):
    """(128x784) @ (784x512) float32, both requiring grad, forward + .sum().backward()."""
    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((128, 784), dtype=np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal((784, 512), dtype=np.float32), requires_grad=True)

    def run():
        a.grad = None
        b.grad = None
        (a @ b).sum().backward()
        return b.grad
    return run


# -- import time ----------------------------------------------------------------------------
_IMPORT_SNIPPET = ('import time; t = time.perf_counter(); import {mod}; '
                   'print(time.perf_counter() - t)')


def _import_env():
    """The environment for the import subprocesses: one thread, and a warm bytecode cache.
    Without one (PYTHONDONTWRITEBYTECODE=1 and an editable install, as on CI boxes) every
    import of ember compiles its source, which measures the compiler rather than ember;
    site-packages libraries ship compiled. A private cache directory keeps the repository
    clean and treats every library alike."""
    import tempfile
    env = dict(os.environ)
    env.pop('PYTHONDONTWRITEBYTECODE', None)
    env['PYTHONPYCACHEPREFIX'] = os.path.join(tempfile.gettempdir(), 'ember-bench-pycache')
    return env


def _python(args, env):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          check=True)


def _import_seconds(mod, env):
    """Seconds ``import mod`` takes in a fresh interpreter (interpreter start-up excluded)."""
    out = _python(['-c', _IMPORT_SNIPPET.format(mod=mod)], env)
    return float(out.stdout.strip().splitlines()[-1])


def _importtime(code, env):
    """{module: (self us, cumulative us)} from ``python -X importtime -c code``."""
    rows = {}
    for line in _python(['-X', 'importtime', '-c', code], env).stderr.splitlines():
        if line.startswith('import time:') and 'self [us]' not in line:
            self_us, cum_us, name = line[len('import time:'):].split('|')
            rows[name.strip()] = (int(self_us), int(cum_us))
    return rows


def _importtime_breakdown(mod, env, top=12):
    """The slowest modules ``import mod`` loads (those the bare interpreter already loaded at
    start-up, such as site hooks, left out), by self time."""
    startup = _importtime('pass', env)
    rows = {k: v for k, v in _importtime(f'import {mod}', env).items() if k not in startup}
    lines = [f'    python -X importtime -c "import {mod}": slowest modules by self time']
    for name, (self_us, cum_us) in sorted(rows.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f'    {self_us / 1e3:8.2f} ms self {cum_us / 1e3:8.2f} ms cumulative  {name}')
    own = [v[0] for k, v in rows.items() if k.split('.')[0] == mod]
    lines.append(f'    {mod}.* together: {sum(own) / 1e3:.2f} ms self time in {len(own)} modules; '
                 f'everything: {sum(v[0] for v in rows.values()) / 1e3:.2f} ms')
    return '\n'.join(lines)


@custom(target=2.0, name='import')
def _import(opts):
    """`import ember` vs `import numpy`, each in a fresh interpreter (best of N runs)."""
    n = 3 if opts.quick else max(5, opts.repeat)
    env = _import_env()
    mods = ['ember', 'numpy'] + (['torch'] if opts.torch_available else [])
    for mod in mods:
        _import_seconds(mod, env)  # fills the bytecode cache; not timed
    best = dict.fromkeys(mods, float('inf'))
    for i in range(n):
        # Interleaved, so a burst of load on the machine hits all alike. torch (about a
        # second, and only for information) gets three runs.
        for mod in mods if i < 3 else mods[:2]:
            best[mod] = min(best[mod], _import_seconds(mod, env))
    note = f'torch column: import numpy; best of {n}'
    if opts.torch_available:
        note += f'; torch/numpy {best["torch"] / best["numpy"]:.1f}'
    details = _importtime_breakdown('ember', env) if opts.verbose else ''
    return Measured(best['ember'], best['numpy'], 'numpy', note, details)


# -- custom autograd Functions (the note's examples) ---------------------------------------
def _note_functions(lib):
    """The note's MulConstant and LinearFunction (examples/note_examples.py), for ``lib``."""
    note = autograd_examples(lib)
    return note.MulConstant, note.LinearFunction


@workload(target=0.5, ops=CHAIN_LEN)
def mulconstant_chain(lib):
    """The note's MulConstant applied 100 times to a 16-element tensor, forward + backward."""
    MulConstant, _ = _note_functions(lib)
    x = _leaf16(lib)

    def run():
        x.grad = None
        y = x
        for _ in range(CHAIN_LEN):
            y = MulConstant.apply(y, 1.001)
        y.sum().backward()
        return x.grad
    return run


@workload(target=1.15)
def linear_function(lib):
    """The note's LinearFunction, batch 128, 784 -> 512 (with bias), forward + backward."""
    _, LinearFunction = _note_functions(lib)
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((128, 784), dtype=np.float32), requires_grad=True)
    w = lib.tensor(rng.standard_normal((512, 784), dtype=np.float32) * 0.03,
                   requires_grad=True)
    b = lib.tensor(np.zeros(512, np.float32), requires_grad=True)

    def run():
        x.grad = w.grad = b.grad = None
        LinearFunction.apply(x, w, b).sum().backward()
        return w.grad
    return run


@workload(target=1.0)
def gradcheck_linear(lib):
    """gradcheck of the note's LinearFunction on (20x20, 30x20) float64 inputs."""
    _, LinearFunction = _note_functions(lib)
    rng = np.random.default_rng(0)
    inputs = (lib.tensor(rng.standard_normal((20, 20)), requires_grad=True),
              lib.tensor(rng.standard_normal((30, 20)), requires_grad=True))

    def run():
        assert lib.autograd.gradcheck(LinearFunction.apply, inputs, eps=1e-6, atol=1e-4)
    return run


@custom(target=1.5)
def anomaly_overhead(opts):
    """A two-layer step (matmul, relu, matmul, sum, backward) with detect_anomaly vs without:
    ember's own ratio (torch's is 2-3x)."""
    import ember
    import warnings
    rng = np.random.default_rng(0)
    x = ember.tensor(rng.standard_normal((64, 128), dtype=np.float32))
    w1 = ember.tensor(rng.standard_normal((128, 128), dtype=np.float32) * 0.1,
                      requires_grad=True)
    w2 = ember.tensor(rng.standard_normal((128, 10), dtype=np.float32) * 0.1,
                      requires_grad=True)

    def step():
        w1.grad = w2.grad = None
        ((x @ w1).relu() @ w2).sum().backward()

    def timed(n):
        t0 = opts.timer()
        for _ in range(n):
            step()
        return (opts.timer() - t0) / n

    n = 20 if opts.quick else 200
    plain, anomalous = [], []
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        for _ in range(5 if opts.quick else opts.repeat):
            plain.append(timed(n))
            with ember.autograd.detect_anomaly():
                anomalous.append(timed(n))
    return Measured(float(np.median(anomalous)), float(np.median(plain)),
                    'ember without anomaly mode')


# -- __torch_function__ -----------------------------------------------------------------
def _passthrough_subclass(lib):
    """The note's LoggingTensor without the logging: a pass-through __torch_function__."""
    class Passthrough(lib.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return super().__torch_function__(func, types, args, kwargs or {})
    return Passthrough


def _adds(x):
    for _ in range(CHAIN_LEN):
        x = x + 0.5
    return x


@workload(target=1.0, ops=CHAIN_LEN)
def subclass_chain(lib):
    """100 chained adds on a 16-element Tensor subclass with a pass-through __torch_function__."""
    x = _passthrough_subclass(lib)(np.linspace(-1, 1, 16, dtype=np.float32).tolist())

    def run():
        return _adds(x)
    return run


@custom(target=1.5)
def subclass_vs_plain(opts):
    """The same subclass chain against ember's own chain on a plain tensor."""
    import ember
    data = np.linspace(-1, 1, 16, dtype=np.float32).tolist()
    sub = _passthrough_subclass(ember)(data)
    plain = ember.tensor(data)

    def timed(x, n):
        t0 = opts.timer()
        for _ in range(n):
            _adds(x)
        return (opts.timer() - t0) / n

    n = 20 if opts.quick else 100
    subs, plains = [], []
    for _ in range(5 if opts.quick else opts.repeat):
        subs.append(timed(sub, n))
        plains.append(timed(plain, n))
    return Measured(float(np.median(subs)), float(np.median(plains)), 'ember on a plain tensor')


# -- nn layers -------------------------------------------------------------------------------
def _seeded_weights(module, lib, seed=0):
    """Gives ``module`` the same (seeded, small) weights in either library."""
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for p in module.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape), dtype=np.float32) * 0.05))
    return module


@workload(target=1.5)
def transformer_layer(lib):
    """TransformerEncoderLayer(d_model=128, nhead=4) (feed-forward 2048, dropout off),
    seq 64 x batch 16 float32, forward + backward."""
    layer = _seeded_weights(lib.nn.TransformerEncoderLayer(128, 4, dropout=0.0), lib)
    rng = np.random.default_rng(1)
    x = lib.tensor(rng.standard_normal((64, 16, 128), dtype=np.float32), requires_grad=True)

    def run():
        x.grad = None
        layer.zero_grad()
        layer(x).sum().backward()
        return x.grad
    return run


@workload(target=2.0)
def conv2d_layer(lib):
    """Conv2d(16, 32, 3, padding=1) on a 64x16x14x14 float32 batch, forward + backward."""
    conv = _seeded_weights(lib.nn.Conv2d(16, 32, 3, padding=1), lib)
    rng = np.random.default_rng(2)
    x = lib.tensor(rng.standard_normal((64, 16, 14, 14), dtype=np.float32), requires_grad=True)

    def run():
        x.grad = None
        conv.zero_grad()
        conv(x).sum().backward()
        return conv.weight.grad
    return run


# -- workloads of later issues, one module per family (registered on import) ------------------
import importlib  # noqa: E402
import importlib.util as _importlib_util  # noqa: E402

for _family in ('training_workloads', 'model_workloads', 'data_workloads', 'cpp_workloads',
                'ffi_workloads', 'serialization_workloads', 'fft_workloads', 'nn_workloads',
                'linalg_workloads'):
    if _importlib_util.find_spec(_family) is not None:
        importlib.import_module(_family)
