"""An adaptation of PyTorch's test/test_autocast.py (TestAutocastCPU, TestTorchAutocast) and
its op lists (torch.testing._internal.autocast_test_lists.AutocastCPUTestLists), run on ember
and on real torch 2.13.

Left out: what needs CUDA (TestAutocastGPU), torch._C internals or private kernels
(``_addmm_activation``, ``_native_multi_head_attention``), and the oneDNN-only RNN test. The
ops upstream calls through ``torch._C._nn`` are called through ``nn.functional`` (the public
spelling of the same kernels; ``reflection_pad1d`` as ``pad(mode='reflect')``, ``nll_loss2d``
as ``nll_loss`` of a 4-d input).
"""
import collections
import warnings

import numpy as np
import pytest

from tests.autograd._upstream import lib_fixture, raises, warns

# (upstream calls torch's deprecated is_autocast_cpu_enabled & co., which warn)
pytestmark = pytest.mark.filterwarnings('ignore::DeprecationWarning')

XFAIL = {}
lib = lib_fixture(XFAIL)

N = 8


class Lists:
    """The op lists, built in ``lib`` from one seeded NumPy stream (the same values in
    both libraries)."""

    def __init__(self, lib):
        rng = np.random.default_rng(0)

        def randn(*shape, dtype=lib.float32):
            return lib.tensor(rng.standard_normal(shape).astype(np.float32)).to(dtype)

        def rand(*shape, dtype=lib.float32):
            return lib.tensor(rng.random(shape).astype(np.float32)).to(dtype)

        bf, fp16, fp32 = lib.bfloat16, lib.float16, lib.float32
        pw0_bf, pw1_bf = (randn(N, dtype=bf),), (randn(N, dtype=bf),)
        pw0_h, pw1_h = (randn(N, dtype=fp16),), (randn(N, dtype=fp16),)
        mats_bf = [(randn(N, N, dtype=bf),) for _ in range(3)]
        dummy_bf = [(randn(*((N,) * k), dtype=bf),) for k in range(1, 6)]
        conv_fp32 = [(randn(*((N,) * k)), randn(*((N,) * k))) for k in (3, 4, 5)]
        el0 = (randn(1),)
        pw0, pw1 = (randn(N),), (randn(N),)
        m0, m1, m2, m3 = [(randn(N, N),) for _ in range(4)]

        promote = ['eq', 'ge', 'gt', 'le', 'lt', 'ne']
        self.torch_expect_builtin_promote = [
            (op, pw0 + pw1_bf, pw0 + pw1_h, lib.bool) for op in promote] + [
            (op, pw0 + pw1_bf, pw0 + pw1_h, fp32) for op in ('add', 'div', 'mul')]
        self.methods_expect_builtin_promote = [
            (f'__{op}__', pw0 + pw1_bf, pw0 + pw1_h, lib.bool) for op in promote] + [
            (f'__{op}__', pw0 + pw1_bf, pw0 + pw1_h, fp32) for op in ('add', 'div', 'mul')]
        self.torch_16 = [
            ('conv1d', conv_fp32[0]), ('conv2d', conv_fp32[1]), ('conv3d', conv_fp32[2]),
            ('bmm', (randn(N, N, N), randn(N, N, N))),
            ('mm', m0 + m1), ('matmul', m0 + m1),
            ('baddbmm', (randn(N, N, N), randn(N, N, N), randn(N, N, N))),
            ('addmm', m1 + m2 + m3),
            ('addbmm', m0 + (randn(N, N, N), randn(N, N, N))),
            ('conv_tbc', (randn(10, 7, 3), randn(5, 3, 5), randn(5), 0)),
            ('conv_transpose1d', conv_fp32[0]), ('conv_transpose2d', conv_fp32[1]),
            ('conv_transpose3d', conv_fp32[2]),
            ('prelu', pw0 + el0),
        ]
        self.torch_fp32 = [
            ('poisson_nll_loss', mats_bf[0] + mats_bf[1] + (True, False, 1.e-8, 1)),
            ('cosine_embedding_loss', (lib.tensor([[1, 2, 3]], dtype=bf),
                                       lib.tensor([[1, 3, 4]], dtype=bf),
                                       lib.tensor([1], dtype=lib.int))),
            ('hinge_embedding_loss', mats_bf[0] + (lib.ones(N, dtype=lib.int),)),
            ('margin_ranking_loss', mats_bf[0] + mats_bf[1] + (lib.ones((N,), dtype=bf),)),
            ('triplet_margin_loss', mats_bf[0] + mats_bf[1] + mats_bf[2]),
            ('binary_cross_entropy_with_logits', mats_bf[0] + (rand(N, N, dtype=bf),)),
        ]
        self.nn_16 = [('linear', m0 + m1, {})]
        self.nn_fp32 = [
            ('avg_pool3d', dummy_bf[3], {'kernel_size': (3, 3, 3), 'stride': (1, 1, 1)}),
            ('binary_cross_entropy', (rand(N, N, dtype=bf), rand(N, N, dtype=bf))),
            ('pad', dummy_bf[2], {'pad': (3, 3), 'mode': 'reflect'}),
            ('nll_loss', (rand(N, N, dtype=bf), lib.zeros((N,), dtype=lib.long))),
            ('nll_loss', (rand(N, N, N, N, dtype=bf), lib.zeros((N, N, N), dtype=lib.long))),
            ('l1_loss', mats_bf[0] + mats_bf[1]),
            ('smooth_l1_loss', mats_bf[0] + mats_bf[1]),
            ('mse_loss', mats_bf[0] + mats_bf[1]),
            ('multilabel_margin_loss', mats_bf[0] + (lib.ones((N, N), dtype=lib.long),)),
            ('soft_margin_loss', mats_bf[0] + (lib.ones((N, N), dtype=lib.long),)),
            ('multi_margin_loss', mats_bf[0] + (lib.ones((N,), dtype=lib.long),)),
            ('huber_loss', mats_bf[0] + mats_bf[1]),
        ]
        self.torch_need_autocast_promote = [
            ('cat', (pw0_bf + pw1,), (pw0_h + pw1,)),
            ('stack', (pw0_bf + pw1,), (pw0_h + pw1,)),
        ]


def _with_kwargs(entry):
    return entry if len(entry) == 3 else (entry[0], entry[1], {})


def _run_outofplace(lib, op, args, run_as_type, out_type=None, module=True, add_kwargs=None,
                    amp_dtype=None):
    """Runs ``op`` (from ``module``, and as a Tensor method where there is one) inside
    ``cpu.amp.autocast(dtype=amp_dtype)``: checks the result dtype, that both spellings agree
    and that the result equals the op run outside autocast on arguments cast by hand."""
    amp_dtype = lib.bfloat16 if amp_dtype is None else amp_dtype
    module = lib if module is True else module
    add_kwargs = add_kwargs or {}

    def cast(val, to_type):
        if isinstance(val, lib.Tensor):
            return val.to(to_type) if val.is_floating_point() else val
        if isinstance(val, collections.abc.Iterable):
            return type(val)(cast(v, to_type) for v in val)
        return val

    def compare(first, second):
        if isinstance(first, lib.Tensor):
            return lib.equal(first, second)
        if isinstance(first, collections.abc.Iterable):
            return all(compare(f, s) for f, s in zip(first, second))
        return first == second

    assert not lib.is_autocast_cpu_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', FutureWarning)  # (cpu.amp.autocast is deprecated)
        ctx = lib.cpu.amp.autocast(dtype=amp_dtype)
    with ctx:
        assert lib.is_autocast_cpu_enabled()
        out_type = run_as_type if out_type is None else out_type
        output = output_method = None
        if module is not None and hasattr(module, op):
            output = getattr(module, op)(*args, **add_kwargs)
            if isinstance(output, lib.Tensor):
                assert output.dtype == out_type, f"{op} produced {output.dtype}"
        if hasattr(lib.Tensor, op):
            output_method = getattr(args[0], op)(*args[1:], **add_kwargs)
            if isinstance(output_method, lib.Tensor):
                assert output_method.dtype == out_type, f"Tensor.{op} produced " \
                    f"{output_method.dtype}"
        assert output is not None or output_method is not None, f"{op} not found"
        if output is not None and output_method is not None:
            assert type(output) is type(output_method)
            assert compare(output, output_method), f"{op}: function and method differ"
        result = output if output is not None else output_method
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', FutureWarning)
            off = lib.cpu.amp.autocast(enabled=False)
        with off:
            assert not lib.is_autocast_cpu_enabled()
            if module is not None and hasattr(module, op):
                control = getattr(module, op)(*cast(args, run_as_type), **add_kwargs)
            else:
                control = getattr(args[0].to(run_as_type), op)(*cast(args[1:], run_as_type),
                                                               **add_kwargs)
            assert type(result) is type(control)
            assert compare(result, control), f"{op}: result differs from the hand-cast run"
        assert lib.is_autocast_cpu_enabled()
    assert not lib.is_autocast_cpu_enabled()


def test_autocast_torch_expect_builtin_promote(lib):
    for op, args1, args2, out_type in Lists(lib).torch_expect_builtin_promote:
        _run_outofplace(lib, op, args1, lib.float32, out_type=out_type)
        _run_outofplace(lib, op, args2, lib.float32, out_type=out_type, amp_dtype=lib.float16)


def test_autocast_methods_expect_builtin_promote(lib):
    for op, args1, args2, out_type in Lists(lib).methods_expect_builtin_promote:
        _run_outofplace(lib, op, args1, lib.float32, module=None, out_type=out_type)
        _run_outofplace(lib, op, args2, lib.float32, module=None, out_type=out_type,
                        amp_dtype=lib.float16)


def test_autocast_torch_16(lib):
    for entry in Lists(lib).torch_16:
        op, args, kwargs = _with_kwargs(entry)
        _run_outofplace(lib, op, args, lib.bfloat16, add_kwargs=kwargs)
        _run_outofplace(lib, op, args, lib.float16, add_kwargs=kwargs, amp_dtype=lib.float16)


def test_autocast_nn_16(lib):
    for entry in Lists(lib).nn_16:
        op, args, kwargs = _with_kwargs(entry)
        F = lib.nn.functional
        _run_outofplace(lib, op, args, lib.bfloat16, module=F, add_kwargs=kwargs)
        _run_outofplace(lib, op, args, lib.float16, module=F, add_kwargs=kwargs,
                        amp_dtype=lib.float16)


def test_autocast_torch_fp32(lib):
    for entry in Lists(lib).torch_fp32:
        op, args, kwargs = _with_kwargs(entry)
        _run_outofplace(lib, op, args, lib.float32, add_kwargs=kwargs)
        _run_outofplace(lib, op, args, lib.float32, add_kwargs=kwargs, amp_dtype=lib.float16)


def test_autocast_nn_fp32(lib):
    for entry in Lists(lib).nn_fp32:
        op, args, kwargs = _with_kwargs(entry)
        F = lib.nn.functional
        _run_outofplace(lib, op, args, lib.float32, module=F, add_kwargs=kwargs)
        _run_outofplace(lib, op, args, lib.float32, module=F, add_kwargs=kwargs,
                        amp_dtype=lib.float16)


def test_autocast_torch_need_autocast_promote(lib):
    for op, args1, args2 in Lists(lib).torch_need_autocast_promote:
        _run_outofplace(lib, op, args1, lib.float32)
        _run_outofplace(lib, op, args2, lib.float32, amp_dtype=lib.float16)


def test_autocast_disabled_with_fp32_dtype(lib):
    with lib.autocast(device_type='cpu', dtype=lib.float32, enabled=False):
        lib.ones(10)


def test_generic_autocast(lib):
    for entry in Lists(lib).torch_16:
        op, args, kwargs = _with_kwargs(entry)
        with lib.amp.autocast(device_type='cpu'):
            generic = getattr(lib, op)(*args, **kwargs)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', FutureWarning)
            ctx = lib.cpu.amp.autocast()
        with ctx:
            cpu = getattr(lib, op)(*args, **kwargs)
        assert generic.dtype == cpu.dtype and lib.equal(generic, cpu), op


def test_cpu_autocast_deprecated_warning(lib):
    with warns(FutureWarning, r"`torch.cpu.amp.autocast\(args...\)` is deprecated. Please use "
               r"`torch.amp.autocast\('cpu', args...\)` instead."):
        with lib.cpu.amp.autocast():
            lib.ones(10)


# -- TestTorchAutocast -------------------------------------------------------------------
def test_autocast_fast_dtype(lib):
    assert lib.get_autocast_gpu_dtype() == lib.half
    assert lib.get_autocast_cpu_dtype() == lib.bfloat16


def test_invalid_device(lib):
    # (torch 2.13's message; upstream's older one named "unsupported autocast device_type")
    dev = 'not a real device'
    with raises(RuntimeError, f"Invalid device string: '{dev}'"):
        with lib.autocast(device_type=dev):
            lib.tensor(1)


def test_non_string_device(lib):
    with raises(ValueError, "Expected `device_type` of type `str`, got: `<class '"):
        lib.autocast(device_type=lib.device('cpu'))
