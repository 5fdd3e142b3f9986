"""ember.utils.tensorboard.SummaryWriter against torch's: the event files each writes read
back the same through TensorBoard's own reader."""
import os
import subprocess
import sys

import numpy as np
import pytest

from .compare import same, ember, torch

pytest.importorskip('tensorboard', reason='tensorboard is not installed: SummaryWriter needs it '
                    '(the ImportError without it is tested in a subprocess below)')
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa
import torch.utils.tensorboard  # noqa: E402,F401  (torch loads it only when imported)


def _read(path):
    acc = EventAccumulator(path, size_guidance={'histograms': 0, 'scalars': 0, 'tensors': 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()['scalars']:
        out['scalar', tag] = [(e.step, e.value) for e in acc.Scalars(tag)]
    for tag in acc.Tags()['histograms']:
        out['histo', tag] = [(e.step, e.histogram_value.min, e.histogram_value.max,
                              e.histogram_value.num, e.histogram_value.sum,
                              e.histogram_value.sum_squares,
                              list(e.histogram_value.bucket_limit),
                              list(e.histogram_value.bucket)) for e in acc.Histograms(tag)]
    for tag in acc.Tags()['tensors']:
        out['tensor', tag] = [(e.step, e.tensor_proto.string_val) for e in acc.Tensors(tag)]
    return out


VALUES = np.concatenate([np.linspace(-3, 5, 40), [0.0, 0.0, 1e-3]]).astype(np.float32)


def _log(t, root, **histogram):
    d = os.path.join(root, t.__name__)
    with t.utils.tensorboard.SummaryWriter(d) as w:
        for step in range(3):
            w.add_scalar('loss', 1.0 / (step + 1), step)
            w.add_scalar('acc', t.tensor(0.25 * step), global_step=step)
            w.add_scalars('run', {'a': step * 2.0, 'b': -step}, step)
        w.add_histogram('weights', t.tensor(VALUES), 7, **histogram)
        w.add_text('note', 'hello *world*', 2)
        assert w.get_logdir() == d
    runs = sorted(os.listdir(d))
    return {name: _read(os.path.join(d, name)) for name in runs
            if os.path.isdir(os.path.join(d, name))}, _read(d)


@pytest.mark.parametrize('histogram', [{}, {'bins': 'auto'}, {'bins': 7},
                                       {'bins': 'tensorflow', 'max_bins': 10},
                                       {'bins': 30, 'max_bins': 4}])
def test_events_read_back_as_torchs(tmp_path, histogram):
    same(lambda t: _log(t, str(tmp_path), **histogram))


def test_empty_histogram_refused(tmp_path):
    same(lambda t: t.utils.tensorboard.SummaryWriter(str(tmp_path / t.__name__))
         .add_histogram('h', t.tensor([])))


def test_default_log_dir_is_under_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w = ember.utils.tensorboard.SummaryWriter(comment='_x')
    w.close()
    t = torch.utils.tensorboard.SummaryWriter(comment='_x')
    t.close()
    assert os.path.dirname(w.get_logdir()) == os.path.dirname(t.get_logdir()) == 'runs'
    assert w.get_logdir().endswith('_x')


def test_missing_tensorboard_fails_as_torch():
    # a fresh interpreter in which `import tensorboard` fails
    code = ("import sys\nsys.modules['tensorboard'] = None\nimport {0}.utils\n"
            "try:\n    import {0}.utils.tensorboard\nexcept ImportError as e:\n"
            "    print(type(e).__name__, e)")
    outs = [subprocess.run([sys.executable, '-c', code.format(lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ('ember', 'torch')]
    assert outs[0] == outs[1] and 'tensorboard' in outs[0]
