"""The rest of nn.init and nn.utils against torch: dirac_, sparse_, the deprecated
non-underscore init names, clip_grad_norm, skip_init and the convolution weights'
channels-last conversion."""
import pytest

from tests.dropin.compare import same, plain, error_of, torch, ember


@pytest.mark.parametrize('shape,groups', [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 3, 3, 3), 1),
                                          ((4, 2, 3), 3), ((4, 2), 1)])
def test_dirac(shape, groups):
    same(lambda lib: plain(lib.nn.init.dirac_(lib.empty(shape), groups)))


def test_sparse_zeroes_a_share_of_each_column():
    def run(lib):
        lib.manual_seed(0)
        w = lib.nn.init.sparse_(lib.empty(6, 4), 0.5, std=0.1)
        return (w == 0).sum(0).tolist(), bool((w.abs() < 1).all())
    same(run)
    same(lambda lib: lib.nn.init.sparse_(lib.empty(2, 3, 4), 0.5))


@pytest.mark.parametrize('name,args', [('uniform', ()), ('normal', ()), ('constant', (2.0,)),
                                       ('eye', ()), ('xavier_uniform', ()),
                                       ('xavier_normal', ()), ('kaiming_uniform', ()),
                                       ('kaiming_normal', ()), ('orthogonal', ()),
                                       ('sparse', (0.5,))])
def test_deprecated_init_names_warn(name, args):
    def run(lib):
        t = getattr(lib.nn.init, name)(lib.empty(3, 3), *args)
        return tuple(t.shape), getattr(lib.nn.init, name).__name__
    same(run)


def test_dirac_deprecated_name():
    same(lambda lib: plain(lib.nn.init.dirac(lib.empty(2, 2, 3))))


def test_clip_grad_norm_deprecated():
    def run(lib):
        p = lib.nn.Parameter(lib.ones(2))
        p.grad = lib.full((2,), 3.0)
        return plain(lib.nn.utils.clip_grad_norm([p], 1.0)), plain(p.grad)
    same(run)


def test_skip_init():
    def run(lib):
        m = lib.nn.utils.skip_init(lib.nn.Linear, 3, 4, bias=False)
        return type(m).__name__, tuple(m.weight.shape), m.weight.device.type, m.bias
    same(run)
    same(lambda lib: lib.nn.utils.skip_init(lambda: 3))

    def no_device(lib):
        class M(lib.nn.Module):
            pass
        lib.nn.utils.skip_init(M)
    same(no_device)


def test_convert_conv_weight_memory_format():
    def run(lib):
        m = lib.nn.Sequential(lib.nn.Conv2d(2, 3, 2), lib.nn.ConvTranspose2d(3, 2, 2),
                              lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Conv2d(2, 2, 1)))
        out = lib.nn.utils.convert_conv2d_weight_memory_format(m, lib.channels_last)
        m3 = lib.nn.utils.convert_conv3d_weight_memory_format(lib.nn.Conv3d(2, 3, 2),
                                                              lib.channels_last_3d)
        return (out is m, [p.stride() for p in m.parameters()],
                m3.weight.is_contiguous(memory_format=lib.channels_last_3d),
                isinstance(m[0].weight, lib.nn.Parameter))
    same(run)


@pytest.mark.parametrize('method', ['xpu', 'ipu', 'mtia'])
def test_module_moves_to_absent_devices(method):
    def run(lib):
        getattr(lib.nn.Linear(2, 2), method)()
    e, t = [error_of(run, lib) for lib in (ember, torch)]
    assert e[0] == t[0] and t[1].startswith(e[1])



def test_module_compile_in_place():
    def run(lib):
        m = lib.nn.Linear(2, 2)
        with lib.no_grad():
            m.weight.fill_(0.5)
            m.bias.zero_()
        return m.compile(), plain(m(lib.ones(1, 2)))
    same(run, internal=('torch.jit', 'TorchScript'))
