"""ember.autograd.check_function: each check passes on a correct Function and catches the
mistake it exists for."""
import numpy as np
import pytest

import ember
from ember.autograd import Function, check_function
from ember.autograd.function import once_differentiable


class Scale(Function):
    """x * w elementwise, with backward, jvp, and correct needs_input_grad handling."""
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        ctx.save_for_forward(x, w)   # jvp sees only what save_for_forward saved (as in torch)
        return x * w

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return (g * w if ctx.needs_input_grad[0] else None,
                g * x if ctx.needs_input_grad[1] else None)

    @staticmethod
    def jvp(ctx, tx, tw):
        x, w = ctx.saved_tensors
        return tx * w + x * tw


def _inputs():
    rng = np.random.default_rng(0)
    return (ember.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True),
            ember.tensor(rng.uniform(0.5, 1.5, (3, 4)), requires_grad=True))


def _status(report):
    return {check: status for check, status, _ in report.rows}


def test_a_correct_function_passes_every_check():
    report = check_function(Scale, *_inputs())
    assert report.ok and not report.failures
    assert _status(report) == {'gradcheck': 'ok', 'gradgradcheck': 'ok', 'forward AD': 'ok',
                               'needs_input_grad': 'ok', 'partial outputs': 'skipped',
                               'retain_graph': 'ok', 'non-contiguous': 'ok'}
    text = str(report)
    assert text.startswith("check_function(Scale) -- 6 passed, 1 skipped")


def test_wrong_derivative_fails_gradcheck_and_can_raise():
    class Wrong(Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * x * w

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * x * w, g * x * x   # forgot the factor 2

    report = check_function(Wrong, *_inputs())
    assert _status(report)['gradcheck'] == 'FAIL' and not report.ok
    assert 'Jacobian mismatch for output 0 with respect to input 0' in str(report)
    with pytest.raises(RuntimeError, match=r"check_function\(Wrong\) -- 1 FAILED, 4 passed, "
                                           r"2 skipped"):
        check_function(Wrong, *_inputs(), raise_on_failure=True)


def test_needs_input_grad_misread_is_caught():
    class Misread(Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            # bug: looks at the wrong flag, so a lone w gets no gradient
            return (g * w if ctx.needs_input_grad[0] else None,
                    g * x if ctx.needs_input_grad[0] else None)

    assert _status(check_function(Misread, *_inputs()))['needs_input_grad'] == 'FAIL'


def test_backward_that_breaks_on_missing_output_gradients_is_caught():
    class TwoOut(Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.set_materialize_grads(False)
            ctx.save_for_backward(x, w)
            return x * w, x + w

        @staticmethod
        def backward(ctx, g1, g2):
            x, w = ctx.saved_tensors
            return g1 * w + g2, g1 * x + g2   # breaks when g1 or g2 is None

    assert _status(check_function(TwoOut, *_inputs()))['partial outputs'] == 'FAIL'


def test_backward_with_state_across_calls_fails_retain_graph():
    class Counting(Function):
        calls = [0]

        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(w)
            return x * w

        @staticmethod
        def backward(ctx, g):
            Counting.calls[0] += 1
            (w,) = ctx.saved_tensors
            return g * w * (1 if Counting.calls[0] % 2 else 1.5), None

    x, w = _inputs()
    assert _status(check_function(Counting, x, w.detach()))['retain_graph'] == 'FAIL'


def test_non_contiguous_inputs_are_exercised():
    class RawMemory(Function):
        @staticmethod
        def forward(ctx, x, w):
            # bug: reads the raw buffer, which is only right for contiguous inputs
            flat = np.frombuffer(x.detach().numpy().data if x.is_contiguous() else
                                 np.ascontiguousarray(x.detach().numpy()[..., ::-1]).data)
            return ember.tensor(flat.reshape(x.shape)) * w

        @staticmethod
        def backward(ctx, g):
            return g, None

    x, w = _inputs()
    assert _status(check_function(RawMemory, x, w.detach()))['non-contiguous'] == 'FAIL'


def test_once_differentiable_skips_second_order():
    class Once(Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            x, w = ctx.saved_tensors
            return g * w, g * x

    report = check_function(Once, *_inputs())
    assert report.ok
    assert [r for r in report.rows if r[0] == 'gradgradcheck'][0][1:] == (
        'skipped', 'backward is @once_differentiable')


def test_plain_callables_and_input_errors():
    assert check_function(lambda x: (x.sin() * x).sum(0), _inputs()[0]).ok
    with pytest.raises(ValueError, match="at least one tensor input with requires_grad"):
        check_function(Scale, ember.ones(2), ember.ones(2))
