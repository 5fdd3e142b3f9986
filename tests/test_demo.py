"""The README's main job, ``python -m ember.demo``: the shipped digits, the note's Linear
module, training to the accuracy the issue asks for, the saved weights, the plot, the bar."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
from ember import demo
from ember.demo import __main__ as demo_main
from ember.demo.model import DigitsNet, Linear, LinearFunction
from ember.demo.progress import _TextBar


def test_the_digits_ship_small_and_whole():
    assert os.path.getsize(demo._DATA) < 100 * 1024
    images, labels = demo.load_digits()
    assert tuple(images.shape) == (1797, 1, 8, 8) and images.dtype == ember.float32
    assert labels.dtype == ember.int64
    assert float(images.min()) == 0.0 and float(images.max()) == 1.0
    assert np.bincount(labels.numpy()).tolist() == [178, 182, 177, 183, 181, 182, 181, 179,
                                                    174, 180]


def test_the_notes_linear_module_matches_nn_linear_and_prints_as_the_note():
    layer = Linear(3, 2)
    assert repr(layer) == 'Linear(input_features=3, output_features=2, bias=True)'
    assert [n for n, _ in layer.named_parameters()] == ['weight', 'bias']
    x = ember.randn(4, 3, requires_grad=True)
    y = layer(x)
    assert type(y.grad_fn).__name__ == 'LinearFunctionBackward'
    ref = ember.nn.functional.linear(x, layer.weight, layer.bias)
    np.testing.assert_allclose(y.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    assert ember.autograd.gradcheck(
        LinearFunction.apply,
        (ember.randn(4, 3, dtype=ember.float64, requires_grad=True),
         ember.randn(2, 3, dtype=ember.float64, requires_grad=True),
         ember.randn(2, dtype=ember.float64, requires_grad=True)))


def test_training_reaches_97_percent_and_saves_loadable_weights(tmp_path, capsys):
    accuracy = demo_main.main(['--out', str(tmp_path)])
    out = capsys.readouterr().out
    assert accuracy >= 0.97, out
    assert out.count('train loss') == 15 and 'test accuracy' in out
    state = ember.load(str(tmp_path / 'digits_cnn.pt'))
    model = DigitsNet()
    model.load_state_dict(state)
    # the checkpoint is torch's format: torch reads it with its safe loader, same weights
    torch = pytest.importorskip('torch', reason='torch 2.13 (the oracle) checks the file')
    in_torch = torch.load(tmp_path / 'digits_cnn.pt', weights_only=True)
    assert list(in_torch) == list(state)
    for k, v in state.items():
        np.testing.assert_array_equal(in_torch[k].numpy(), v.numpy())
    images, labels = demo.load_digits()
    model.eval()
    with ember.no_grad():
        everything = float((model(images).argmax(1) == labels).float().mean())
    assert everything >= 0.97           # train and test images together
    plot = tmp_path / 'training.png'
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert not plot.exists() and 'matplotlib is not installed' in out
    else:
        assert plot.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def test_the_same_seed_trains_the_same_model(tmp_path):
    args = ['--epochs', '1', '--out', str(tmp_path)]
    _, first = demo_main.train(demo_main.parse_args(args), log=lambda *_: None)
    _, again = demo_main.train(demo_main.parse_args(args), log=lambda *_: None)
    _, other = demo_main.train(demo_main.parse_args(args + ['--seed', '1']),
                               log=lambda *_: None)
    assert first == again and first != other


def test_no_matplotlib_means_no_plot_and_a_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, 'matplotlib', None)     # import raises ImportError
    assert demo_main.save_plot({'loss': [1.0], 'accuracy': [0.5]}, tmp_path / 'p.png') is False
    assert not (tmp_path / 'p.png').exists()


def test_help_and_bad_options_from_the_command_line():
    run = subprocess.run([sys.executable, '-m', 'ember.demo', '--help'], capture_output=True,
                         text=True, check=True)
    for option in ('--epochs', '--seed', '--out'):
        assert option in run.stdout
    bad = subprocess.run([sys.executable, '-m', 'ember.demo', '--epochs', '0'],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and '--epochs must be at least 1' in bad.stderr


class _Tty(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize('tty', [True, False])
def test_text_progress_bar(tty):
    stream = _Tty() if tty else io.StringIO()
    items = list(_TextBar(range(4), 4, 'epoch 1/2', stream=stream))
    assert items == [0, 1, 2, 3]
    text = stream.getvalue()
    if tty:
        assert 'epoch 1/2 [' + '#' * 30 + '] 4/4' in text and text.endswith('\r')
        assert '] 2/4' in text
    else:
        assert text == ''                  # nothing redrawn into a log file


@pytest.mark.parametrize('args, message', [
    (['--test-fraction', '0'], '--test-fraction must lie strictly between 0 and 1, not 0.0'),
    (['--test-fraction', '1'], '--test-fraction must lie strictly between 0 and 1, not 1.0'),
    (['--test-fraction', '-0.5'], 'strictly between 0 and 1, not -0.5'),
    (['--test-fraction', 'nan'], 'strictly between 0 and 1, not nan'),
    (['--epochs', '0'], '--epochs must be at least 1, not 0'),
    (['--batch-size', '0'], '--batch-size must be at least 1, not 0'),
    (['--lr', '-1'], '--lr must be positive, not -1.0'),
    (['--threads', '0'], '--threads must be at least 1, not 0'),
])
def test_bad_arguments_are_refused_with_a_clear_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        demo_main.parse_args(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_out_naming_an_existing_file_is_refused(tmp_path, capsys):
    existing = tmp_path / 'weights.pt'
    existing.write_text('not a folder')
    with pytest.raises(SystemExit):
        demo_main.parse_args(['--out', str(existing)])
    assert 'is an existing file' in capsys.readouterr().err
    assert existing.read_text() == 'not a folder'


def test_printed_numbers_do_not_depend_on_the_machines_blas_threads(tmp_path):
    """The demo trains on --threads BLAS threads (1 by default) whatever the environment
    asks for, so a seed prints the same loss and accuracy everywhere."""
    lines = []
    for threads in ('1', '2'):
        env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads)
        out = subprocess.run([sys.executable, '-m', 'ember.demo', '--epochs', '1', '--out',
                              str(tmp_path / threads)], env=env, capture_output=True,
                             text=True, check=True).stdout
        lines.append([line.split('  (')[0] for line in out.splitlines() if 'epoch' in line])
    assert lines[0] == lines[1] and lines[0]
