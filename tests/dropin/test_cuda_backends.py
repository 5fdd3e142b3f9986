"""ember.cuda, ember.backends, ember.accelerator: the answers of torch's CPU-only build."""
import pytest

from .compare import same, ember, torch


CUDA_CALLS = [
    lambda t: t.cuda.is_available(), lambda t: t.cuda.device_count(),
    lambda t: t.cuda.is_initialized(), lambda t: t.cuda.manual_seed(1),
    lambda t: t.cuda.manual_seed_all(3), lambda t: t.cuda.manual_seed('a'),
    lambda t: t.cuda.seed(), lambda t: t.cuda.seed_all(), lambda t: t.cuda.initial_seed(),
    lambda t: t.cuda.synchronize(), lambda t: t.cuda.empty_cache(),
    lambda t: t.cuda.current_device(), lambda t: t.cuda.get_device_name(),
    lambda t: t.cuda.get_device_name(0), lambda t: t.cuda.get_device_properties(0),
    lambda t: t.cuda.get_device_capability(), lambda t: t.cuda.is_bf16_supported(),
    lambda t: t.cuda.is_bf16_supported(including_emulation=False),
    lambda t: t.cuda.is_tf32_supported(), lambda t: t.cuda.memory_allocated(),
    lambda t: t.cuda.max_memory_allocated(), lambda t: t.cuda.memory_reserved(),
    lambda t: t.cuda.max_memory_reserved(), lambda t: t.cuda.memory_cached(),
    lambda t: t.cuda.max_memory_cached(), lambda t: dict(t.cuda.memory_stats()),
    lambda t: t.cuda.init(), lambda t: t.cuda.get_rng_state(),
    lambda t: t.cuda.get_rng_state_all(), lambda t: t.cuda.set_rng_state_all([]),
    lambda t: t.cuda.set_rng_state(t.zeros(3, dtype=t.uint8)),
    lambda t: t.cuda.get_arch_list(), lambda t: t.cuda.mem_get_info(),
    lambda t: t.cuda.ipc_collect(), lambda t: t.cuda.current_stream(),
    lambda t: t.cuda.default_stream(), lambda t: t.cuda.set_device('cpu'),
    lambda t: t.cuda.Stream(), lambda t: t.cuda.Event(),
    lambda t: type(t.cuda.device(0)).__name__, lambda t: type(t.cuda.device_of(t.ones(1))).__name__,
    lambda t: t.cuda.FloatTensor([1]), lambda t: t.cuda.LongTensor.__name__,
    lambda t: isinstance(t.ones(1), t.cuda.FloatTensor),
]


@pytest.mark.parametrize('call', CUDA_CALLS)
def test_cuda_answers_as_torch_cpu_build(call):
    same(call)


def test_cuda_device_contexts_run_their_body():
    for lib in (ember, torch):
        with lib.cuda.device(-1), lib.cuda.device_of(lib.ones(1)), lib.cuda.stream(None):
            assert (lib.ones(2) + 1).sum().item() == 4.0


@pytest.mark.parametrize('dev', [0, 'cuda:1', -1])
def test_cuda_device_context_with_an_index(dev):
    def enter(t):
        with t.cuda.device(dev):
            return 'entered'
    same(enter)


def test_set_device_refuses():
    # torch's CPU build fails here on an internal missing binding (AttributeError); ember
    # raises the CUDA AssertionError its other device functions raise (a documented choice)
    with pytest.raises(AttributeError):
        torch.cuda.set_device(0)
    with pytest.raises(AssertionError, match='Torch not compiled with CUDA enabled'):
        ember.cuda.set_device(0)


BACKEND_CALLS = [
    lambda t: t.backends.mps.is_available(), lambda t: t.backends.mps.is_built(),
    lambda t: t.backends.mps.is_macos13_or_newer(),
    lambda t: t.backends.cudnn.enabled, lambda t: t.backends.cudnn.benchmark,
    lambda t: t.backends.cudnn.deterministic, lambda t: t.backends.cudnn.allow_tf32,
    lambda t: t.backends.cudnn.is_available(), lambda t: t.backends.cudnn.version(),
    lambda t: t.backends.cudnn.benchmark_limit,
    lambda t: t.backends.cudnn.is_acceptable(t.zeros(1)),
    lambda t: t.backends.cuda.is_built(), lambda t: t.backends.cuda.matmul.allow_tf32,
    lambda t: t.backends.cuda.matmul.allow_fp16_reduced_precision_reduction,
    lambda t: t.backends.cuda.matmul.allow_bf16_reduced_precision_reduction,
    lambda t: t.backends.cuda.matmul.nonexistent,
    lambda t: setattr(t.backends.cuda.matmul, 'nonexistent', 1),
    lambda t: setattr(t.backends.cuda.matmul, 'allow_tf32', 1),
    lambda t: setattr(t.backends.cuda.matmul, 'allow_fp16_reduced_precision_reduction', 1),
    lambda t: t.backends.cuda.flash_sdp_enabled(), lambda t: t.backends.cuda.math_sdp_enabled(),
    lambda t: t.backends.cuda.mem_efficient_sdp_enabled(),
    lambda t: t.backends.cuda.cudnn_sdp_enabled(),
    lambda t: t.backends.cuda.enable_flash_sdp(1),
    lambda t: setattr(t.backends.cudnn, 'benchmark', 1),
    lambda t: setattr(t.backends.cudnn, 'deterministic', 'x'),
    lambda t: setattr(t.backends.cudnn, 'enabled', None),
    lambda t: setattr(t.backends.cudnn, 'allow_tf32', 0),
    lambda t: setattr(t.backends.mkldnn, 'enabled', 3), lambda t: t.backends.mkldnn.enabled,
    lambda t: t.accelerator.is_available(), lambda t: t.accelerator.current_accelerator(),
    lambda t: t.accelerator.current_accelerator(check_available=True),
    lambda t: t.accelerator.device_count(), lambda t: t.accelerator.current_device_index(),
    lambda t: t.accelerator.synchronize(), lambda t: t.accelerator.set_device_index(0),
]


@pytest.mark.parametrize('call', BACKEND_CALLS)
def test_backends_answer_as_torch_cpu_build(call):
    same(call)


@pytest.mark.parametrize('flag', ['benchmark', 'deterministic', 'enabled', 'allow_tf32'])
def test_cudnn_flags_set_and_restore(flag):
    def toggle(t):
        old = getattr(t.backends.cudnn, flag)
        setattr(t.backends.cudnn, flag, not old)
        seen = getattr(t.backends.cudnn, flag)
        setattr(t.backends.cudnn, flag, old)
        return seen, getattr(t.backends.cudnn, flag)
    same(toggle)


def test_cudnn_flags_context():
    def inside(t):
        with t.backends.cudnn.flags(enabled=False, benchmark=True, deterministic=True):
            seen = (t.backends.cudnn.enabled, t.backends.cudnn.benchmark,
                    t.backends.cudnn.deterministic)
        return seen, (t.backends.cudnn.enabled, t.backends.cudnn.benchmark)
    same(inside)


def test_matmul_tf32_switch_round_trip():
    def toggle(t):
        t.backends.cuda.matmul.allow_tf32 = True
        seen = t.backends.cuda.matmul.allow_tf32
        t.backends.cuda.matmul.allow_tf32 = False
        return seen, t.backends.cuda.matmul.allow_tf32
    same(toggle)


def test_sdp_switch_round_trip():
    def toggle(t):
        t.backends.cuda.enable_flash_sdp(False)
        seen = t.backends.cuda.flash_sdp_enabled()
        t.backends.cuda.enable_flash_sdp(True)
        return seen, t.backends.cuda.flash_sdp_enabled()
    same(toggle)


def test_sdp_kernel_is_deprecated_context():
    def inside(t):
        with t.backends.cuda.sdp_kernel(enable_flash=False):
            seen = t.backends.cuda.flash_sdp_enabled()
        return seen, t.backends.cuda.flash_sdp_enabled()
    same(inside)


@pytest.mark.parametrize('name', ['mkl', 'mkldnn', 'openmp'])
def test_cpu_libraries_answer_for_ember(name):
    # ember uses none of MKL, oneDNN, OpenMP: it says so, where torch's x86 build says True
    assert getattr(ember.backends, name).is_available() is False
    assert getattr(torch.backends, name).is_available() is True


def test_cpu_capability_is_one_of_torchs_names():
    assert ember.backends.cpu.get_cpu_capability() in ('DEFAULT', 'AVX2', 'AVX512')
    assert torch.backends.cpu.get_cpu_capability() in ('DEFAULT', 'AVX2', 'AVX512', 'ZVECTOR',
                                                       'VSX', 'SVE256', 'NO AVX')


CPU_AND_VERSION = [
    lambda t: t.cpu.is_available(), lambda t: t.cpu.device_count(),
    lambda t: t.cpu.current_device(), lambda t: t.cpu.synchronize(),
    lambda t: t.cpu.is_initialized(), lambda t: t.cpu.set_device(0),
    lambda t: str(t.cpu.amp.autocast(dtype=t.float16).fast_dtype),
    lambda t: t.cpu.amp.GradScaler().is_enabled(),
    lambda t: t.cpu.amp.GradScaler(init_scale=8.0).get_scale(),
    lambda t: t.version.cuda, lambda t: t.version.hip, lambda t: t.version.debug,
    lambda t: t.version.xpu,
]


@pytest.mark.parametrize('call', CPU_AND_VERSION)
def test_cpu_module_and_version(call):
    same(call)


def test_cpu_amp_autocast_state():
    def inside(t):
        with t.cpu.amp.autocast():
            return t.is_autocast_enabled('cpu'), str(t.get_autocast_dtype('cpu'))
    e = same(inside, project=lambda v: v[0])
    assert e[0] == ('ok', True)


def test_version_string_is_embers():
    assert ember.version.__version__ == ember.__version__


@pytest.mark.parametrize('call', [
    lambda lib: lib.cuda.nvtx.range_push('step'),
    lambda lib: lib.cuda.nvtx.range_pop(),
    lambda lib: lib.cuda.nvtx.mark('x'),
    lambda lib: lib.cuda.nvtx.range('x {}', 1).__enter__(),
], ids=['push', 'pop', 'mark', 'range'])
def test_nvtx_needs_a_cuda_build(call):
    """torch.cuda.nvtx exists on a CPU build and every call raises torch's RuntimeError
    (torch's range_start trips over its own stub with an AttributeError; ember's raises the
    same RuntimeError as the rest)."""
    same(call)
