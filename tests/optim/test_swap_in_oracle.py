"""optim.swap_in_optimizer_params_and_state against torch 2.13: inside the block the
optimizer steps the swapped-in tensors with the swapped-in state and options (in-place
state changes reach the caller's dict), afterwards it is the live optimizer again; errors."""
from .helpers import LIBS, assert_same_params, assert_same_state, params, same_error, train


def _setup(lib):
    ps = params(lib)
    opt = lib.optim.Adam([{'params': ps[:2]}, {'params': ps[2:], 'lr': 0.05}], lr=0.01)
    train(lib, ps, opt, 2)
    return ps, opt


def test_steps_the_swapped_in_tensors_and_restores_the_optimizer():
    out = []
    for lib in LIBS:
        ps, opt = _setup(lib)
        live_groups = [dict(g) for g in opt.param_groups]
        live_state = opt.state
        other = {f'p{i}': p.detach().clone() * 2 for i, p in enumerate(ps)}
        sd = opt.state_dict()
        osd = {'state': {k: {n: (v.clone() if isinstance(v, lib.Tensor) else v)
                             for n, v in s.items()} for k, s in sd['state'].items()},
               'param_groups': [dict(g, lr=0.2) for g in sd['param_groups']]}
        with lib.optim.swap_in_optimizer_params_and_state(opt, other, osd):
            for p in other.values():
                p.grad = lib.ones(p.shape)
            opt.step()
            inside_lr = [g['lr'] for g in opt.param_groups]
        assert [g['params'] for g in opt.param_groups] == [g['params'] for g in live_groups]
        assert opt.state is live_state
        assert [g['lr'] for g in opt.param_groups] == [0.01, 0.05]
        out.append((list(other.values()), osd, opt.state_dict(), ps, inside_lr))
    (e_o, e_osd, e_sd, e_ps, e_lr), (t_o, t_osd, t_sd, t_ps, t_lr) = out
    assert e_lr == t_lr == [0.2, 0.2]
    assert_same_params(e_o, t_o)
    assert_same_state(e_osd, t_osd)
    assert_same_state(e_sd, t_sd)
    assert_same_params(e_ps, t_ps)


def test_errors():
    def fresh(lib):
        ps = params(lib)
        with lib.optim.swap_in_optimizer_params_and_state(lib.optim.SGD(ps, lr=0.1), {}, {}):
            pass
    same_error(fresh)

    def swap(make_osd, n_params=4):
        def run(lib):
            ps, opt = _setup(lib)
            sd = opt.state_dict()
            other = {str(i): p.detach().clone() for i, p in enumerate(ps[:n_params])}
            with lib.optim.swap_in_optimizer_params_and_state(opt, other, make_osd(sd)):
                pass
        return run
    same_error(swap(lambda sd: [sd]))
    same_error(swap(lambda sd: dict(sd, state=[])))
    same_error(swap(lambda sd: dict(sd, state={0: 1})))
    same_error(swap(lambda sd: dict(sd, param_groups=tuple(sd['param_groups']))))
    same_error(swap(lambda sd: dict(sd, param_groups=sd['param_groups'][:1])))
    same_error(swap(lambda sd: dict(sd, param_groups=[sd['param_groups'][0], 3])))
    same_error(swap(lambda sd: dict(sd, param_groups=[
        sd['param_groups'][0], dict(sd['param_groups'][1], params=[2])])))
    same_error(swap(lambda sd: dict(sd, param_groups=[
        sd['param_groups'][0], dict(sd['param_groups'][1], extra=1)])))
    same_error(swap(lambda sd: dict(sd, state=dict(sd['state'], **{'x': {}}))))
    same_error(swap(lambda sd: sd, n_params=3))
