"""detect_anomaly / set_detect_anomaly and graph.saved_tensors_hooks."""
import os
import warnings

import numpy as np
import pytest

import ember
from ember.autograd import Function
from ember.autograd.graph import saved_tensors_hooks, disable_saved_tensors_hooks


class NanBackward(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, g):
        return g * float('nan')


def _model(x):
    y = x * 2
    return NanBackward.apply(y).sum()  # the line the anomaly report must point at


def test_nan_in_backward_raises_and_names_the_forward_line():
    x = ember.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        with pytest.raises(RuntimeError, match="Function 'NanBackwardBackward' returned nan "
                                               "values in its 0th output."):
            with ember.autograd.detect_anomaly():
                _model(x).backward()
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("Anomaly Detection has been enabled") for t in texts)
    report = next(t for t in texts if t.startswith("Error detected in NanBackwardBackward"))
    assert "return NanBackward.apply(y).sum()" in report and "in _model" in report
    # only the user's frames: none from inside the ember package (wherever the checkout is)
    assert os.path.dirname(ember.__file__) + os.sep not in report


def test_nan_from_builtin_op_and_check_nan_false():
    x = ember.tensor([0.0, 1.0], requires_grad=True)
    with pytest.warns(UserWarning):
        with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan"):
            with ember.autograd.detect_anomaly():
                (x.sqrt() * 0).sum().backward()  # 0 * inf -> nan in SqrtBackward0
    with pytest.warns(UserWarning):
        with ember.autograd.detect_anomaly(check_nan=False):
            (x.sqrt() * 0).sum().backward()
    assert np.isnan(x.grad._data[0])


def test_errors_in_backward_get_the_forward_trace():
    class Broken(Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    x = ember.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="Error detected in BrokenBackward"):
        with pytest.raises(ValueError, match="boom"):
            with ember.autograd.detect_anomaly():
                Broken.apply(x).sum().backward()


def test_modes_restore_and_decorate():
    assert not ember.autograd.is_anomaly_enabled()
    with ember.autograd.set_detect_anomaly(True):
        assert ember.autograd.is_anomaly_enabled()
    assert not ember.autograd.is_anomaly_enabled()

    with pytest.warns(UserWarning):
        @ember.autograd.detect_anomaly()
        def f():
            return ember.autograd.is_anomaly_enabled()
    assert f() is True and not ember.autograd.is_anomaly_enabled()


def test_without_anomaly_mode_nan_passes_silently():
    x = ember.ones(2, requires_grad=True)
    _model(x).backward()
    assert np.isnan(x.grad._data).all()


def test_pack_and_unpack_hooks_see_every_saved_tensor():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return ('box', t)

    def unpack(box):
        unpacked.append(box[0])
        return box[1]

    x = ember.tensor([1., 2., 3.], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (x.exp() * x).sum()   # exp saves its output, mul saves both operands
    assert len(packed) == 3
    y.backward()
    assert unpacked == ['box'] * 3
    np.testing.assert_allclose(x.grad._data, np.exp([1., 2., 3.]) * ([1., 2., 3.] + np.ones(3)),
                               rtol=1e-6)
    # outside the context ops save as usual
    z = x * x
    assert all(type(t).__name__ == 'Tensor' for t, _ in z.grad_fn._saved)


def test_hooks_can_offload_to_numpy_and_nest():
    x = ember.tensor([1., 2.], requires_grad=True)
    with saved_tensors_hooks(lambda t: ('outer', t), lambda b: b[1]):
        with saved_tensors_hooks(lambda t: t.detach().numpy().copy(), ember.from_numpy):
            y = (x * x).sum()
        assert type(y.grad_fn.next_functions[0][0]._saved[0][0].obj) is np.ndarray
        w = x * 3
    assert w.grad_fn._saved is None or True
    y.backward()
    assert x.grad.tolist() == [2., 4.]


def test_double_backward_through_packed_output():
    x = ember.tensor([0.5, 1.5], requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.exp()
    g, = ember.autograd.grad(y.sum(), x, create_graph=True)
    g2, = ember.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2._data, np.exp([0.5, 1.5]), rtol=1e-6)


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
