"""ember.amp / ember.autocast / ember.cuda.amp: argument checks, warnings, state and the
GradScaler arithmetic, against torch 2.13's CPU build."""
import pytest

from .compare import same, plain, ember, torch


def _enter(t, *args, **kwargs):
    """Creates and enters an autocast; what is enabled inside (on cpu and cuda)."""
    with t.autocast(*args, **kwargs):
        return t.is_autocast_enabled('cpu'), t.is_autocast_enabled('cuda'), \
            t.is_autocast_enabled()


AUTOCAST = [((), {}), (('cpu',), {}), (('cpu',), {'dtype': 'float16'}),
            (('cpu',), {'dtype': 'float32'}), (('cpu',), {'dtype': 'float64'}),
            (('cpu',), {'dtype': 'int32'}), (('cpu',), {'enabled': False, 'dtype': 'float64'}),
            (('cuda',), {}), (('cuda',), {'enabled': False}), (('cuda:0',), {}),
            (('xyz',), {}), ((1,), {}), (('cpu',), {'cache_enabled': None}),
            (('cpu',), {'enabled': 'yes'})]


@pytest.mark.parametrize('args,kwargs', AUTOCAST)
def test_autocast_checks_and_state(args, kwargs):
    def run(t):
        kw = {k: getattr(t, v) if k == 'dtype' else v for k, v in kwargs.items()}
        return _enter(t, *args, **kw)
    same(run)


@pytest.mark.parametrize('spelling', ['autocast', 'amp.autocast'])
def test_autocast_spellings_and_decorator(spelling):
    def run(t):
        make = t.autocast if spelling == 'autocast' else t.amp.autocast

        @make('cpu')
        def f():
            return t.is_autocast_enabled('cpu')
        return f(), t.is_autocast_enabled('cpu')
    same(run)


def test_autocast_nesting_restores():
    def run(t):
        with t.autocast('cpu'):
            with t.autocast('cpu', enabled=False):
                inner = t.is_autocast_enabled('cpu')
            outer = t.is_autocast_enabled('cpu')
        return inner, outer, t.is_autocast_enabled('cpu')
    same(run)


@pytest.mark.parametrize('dev', ['cpu', 'cuda', 'mps', 'meta', 'xyz'])
def test_is_autocast_available(dev):
    same(lambda t: t.amp.is_autocast_available(dev))


def test_autocast_dtype_inside():
    same(lambda t: str(t.get_autocast_dtype('cuda')))

    def inside(t):
        with t.autocast('cpu', dtype=t.float16):
            return str(t.get_autocast_dtype('cpu'))
    same(inside)


def test_autocast_casts_matmul():
    def f(t):
        with t.autocast('cpu', dtype=t.float16):
            return str((t.ones(2, 2) @ t.ones(2, 2)).dtype)
    same(f)


def test_cuda_amp_deprecated_spellings():
    def enter(t):
        with t.cuda.amp.autocast() as ctx:
            return ctx is not None
    same(enter)
    same(lambda t: t.cuda.amp.GradScaler(init_scale=3.).get_scale())
    same(lambda t: t.cuda.amp.GradScaler(enabled=False).is_enabled())
    same(lambda t: callable(t.cuda.amp.custom_fwd(lambda ctx: 1)))
    same(lambda t: callable(t.cuda.amp.custom_bwd(lambda ctx: 2)))
    same(lambda t: callable(t.amp.custom_fwd(lambda ctx: 1, device_type='cpu')))
    same(lambda t: t.amp.custom_fwd(device_type=1))


SCALER_CALLS = [
    lambda t: t.amp.GradScaler().is_enabled(), lambda t: t.amp.GradScaler('cpu').is_enabled(),
    lambda t: t.amp.GradScaler('cpu').get_scale(),
    lambda t: t.amp.GradScaler('cpu', init_scale=256.).get_scale(),
    lambda t: t.amp.GradScaler('cpu', enabled=False).get_scale(),
    lambda t: t.amp.GradScaler('cpu').state_dict(),
    lambda t: t.amp.GradScaler('cpu', enabled=False).state_dict(),
    lambda t: t.amp.GradScaler('cpu', growth_factor=1.0),
    lambda t: t.amp.GradScaler('cpu', backoff_factor=1.0),
    lambda t: plain(t.amp.GradScaler('cpu').scale(t.ones(2, requires_grad=True))),
    lambda t: plain(t.amp.GradScaler('cpu').scale([t.ones(2), (t.ones(1, dtype=t.float16),)])),
    lambda t: t.amp.GradScaler('cpu').scale(3),
    lambda t: plain(list(t.amp.GradScaler('cpu').scale(iter([t.ones(1)])))),
    lambda t: t.amp.GradScaler('cpu').update(),
    lambda t: t.amp.GradScaler('cpu').load_state_dict({}),
    lambda t: t.amp.GradScaler('cpu').get_growth_factor(),
    lambda t: t.amp.GradScaler('cpu').get_backoff_factor(),
    lambda t: t.amp.GradScaler('cpu').get_growth_interval(),
]


@pytest.mark.parametrize('call', SCALER_CALLS)
def test_grad_scaler_answers(call):
    same(call)


def _train(t, grads, growth_interval=2, **step_kwargs):
    """A few scaler steps with chosen raw gradients; the parameter, scale and state after
    each."""
    p = t.nn.Parameter(t.tensor([1.0, -2.0]))
    opt = t.optim.SGD([p], lr=0.1)
    scaler = t.amp.GradScaler('cpu', init_scale=4.0, growth_interval=growth_interval)
    seen = []
    for g in grads:
        opt.zero_grad()
        loss = (p * t.tensor(g)).sum()
        scaler.scale(loss).backward()
        seen.append(plain(p.grad))
        ret = scaler.step(opt)
        scaler.update()
        seen.append((plain(p), scaler.get_scale(), scaler.state_dict(), ret))
    return seen


def test_grad_scaler_steps_skips_and_grows():
    same(lambda t: _train(t, [[1.0, 2.0], [float('inf'), 1.0], [0.5, 0.5], [1.0, 1.0],
                              [float('nan'), 0.0], [3.0, 1.0]]))


def test_grad_scaler_unscale_then_step_and_errors():
    def run(t):
        p = t.nn.Parameter(t.tensor([1.0, 2.0]))
        opt = t.optim.SGD([p], lr=1.0)
        scaler = t.amp.GradScaler('cpu', init_scale=8.0)
        out = []
        for action in ('unscale_', 'unscale_', 'step', 'unscale_', 'step', 'update', 'update'):
            if action in ('unscale_', 'step') and p.grad is None:
                scaler.scale((p * p).sum()).backward()
            try:
                getattr(scaler, action)(*(() if action == 'update' else (opt,)))
                out.append((action, plain(p), plain(p.grad)))
            except Exception as e:  # noqa: BLE001 - compared with torch
                out.append((action, type(e).__name__, str(e)))
        return out
    same(run)


def test_grad_scaler_closure_and_new_scale():
    def run(t):
        p = t.nn.Parameter(t.tensor([1.0]))
        opt = t.optim.SGD([p], lr=1.0)
        scaler = t.amp.GradScaler('cpu')
        scaler.scale(p.sum()).backward()
        out = []
        for call in (lambda: scaler.step(opt, closure=lambda: 0),
                     lambda: scaler.update(2.0), lambda: scaler.get_scale(),
                     lambda: scaler.update(t.tensor(3.0)), lambda: scaler.get_scale(),
                     lambda: scaler.update(t.tensor([1.0, 2.0]))):
            try:
                out.append(call())
            except Exception as e:  # noqa: BLE001 - compared with torch
                out.append((type(e).__name__, str(e)))
        return out
    same(run)


def test_grad_scaler_state_dict_round_trip():
    def run(t):
        a = t.amp.GradScaler('cpu', init_scale=16.0, growth_interval=7)
        a.scale(t.ones(1))
        b = t.amp.GradScaler('cpu')
        b.load_state_dict(a.state_dict())
        return b.state_dict(), b.get_scale()
    same(run)


def test_disabled_scaler_passes_through():
    def run(t):
        p = t.nn.Parameter(t.tensor([1.0]))
        opt = t.optim.SGD([p], lr=1.0)
        scaler = t.amp.GradScaler('cpu', enabled=False)
        loss = scaler.scale(p.sum() * 3)
        loss.backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        return plain(loss), plain(p)
    same(run)
