"""A 0-d parameter (CLIP's learned ``logit_scale``, a scalar gain or temperature) trained by
every optimizer, per-parameter and foreach, next to a vector one: the same values and state
as torch. (NumPy gives a 0-d ufunc result as a scalar, which the in-place update rules could
not write into.)"""
import numpy as np
import pytest

import ember
from ..oracle.oracle import torch
from .helpers import assert_same_state

CASES = [('Adam', {}), ('Adam', {'amsgrad': True}), ('AdamW', {}), ('NAdam', {}),
         ('NAdam', {'decoupled_weight_decay': True, 'weight_decay': 0.1}), ('RAdam', {}),
         ('Adamax', {}), ('RMSprop', {'momentum': 0.5, 'centered': True}), ('Adagrad', {}),
         ('Adadelta', {}), ('ASGD', {}), ('Rprop', {}), ('SGD', {'momentum': 0.9}),
         ('Adafactor', {})]


def _run(lib, name, kwargs, foreach):
    scale = lib.nn.Parameter(lib.tensor(np.float32(np.log(1 / 0.07))))
    w = lib.nn.Parameter(lib.tensor(np.array([0.5, -1.0, 2.0], dtype=np.float32)))
    opt = getattr(lib.optim, name)([scale, w], lr=0.05, foreach=foreach, **kwargs)
    x = lib.tensor(np.array([1.0, 2.0, -0.5], dtype=np.float32))
    for _ in range(4):
        opt.zero_grad()
        loss = (scale.exp().clamp(max=100) * (w * x).sum()).tanh() + (w ** 2).sum()
        loss.backward()
        opt.step()
    return [scale, w], opt


@pytest.mark.parametrize('foreach', [False, True])
@pytest.mark.parametrize('name,kwargs', CASES, ids=[f'{n}{k or ""}' for n, k in CASES])
def test_zero_dim_parameter_matches_torch(name, kwargs, foreach):
    (e_ps, e_opt), (t_ps, t_opt) = [_run(lib, name, kwargs, foreach) for lib in (ember, torch)]
    for e, t in zip(e_ps, t_ps):
        assert tuple(e.shape) == tuple(t.shape)
        assert_same_state(e, t, 'param')
    assert_same_state(e_opt.state_dict(), t_opt.state_dict())
