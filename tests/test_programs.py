"""The corpus of real programs (tests/programs/): each runs unmodified -- ``import torch``,
``import torch.nn as nn``, ``from torch.utils.data import DataLoader`` ... -- on the real
torch (``python prog.py``) and through ``python -m ember run prog.py``, and the two outputs
must agree: the same text, and numbers equal to the printed precision (within a relative
1e-3, for the last digit of values that went through many float32 steps).

The programs take their weights and data from NumPy's seeded generator (as a program loading
a checkpoint would), so both frameworks compute the same thing; where a program needs
torch's random stream (dropout-free sampling, shuffling) it prints only what does not depend
on it.
"""
import json
import math
import os
import re

import pytest
import torch  # noqa: F401  (the oracle the programs run on too; without it the module skips)

from .run_python import run

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'programs')



PROGRAMS = [
    'char_gpt.py', 'resnet_cnn.py', 'mlp_regression.py', 'lstm_classifier.py',
    'linear_regression.py', 'vae.py', 'gan_step.py', 'conv_autoencoder.py',
    'transformer_classifier.py', 'wgan_gradient_penalty.py', 'text_classifier.py',
    'einops_vit.py',
    'einops_mean.py', 'device_boilerplate.py',
    'lbfgs_curve_fit.py', 'packed_gru_tagger.py',
    'reinforce_bandit.py',
    'unet_segmentation.py', 'bert_encoder.py', 'diffusion_step.py', 'gnn_message_passing.py',
    'seq2seq_attention.py', 'metric_learning.py', 'checkpoint_resume.py',
    'distributions_policy.py', 'tabular_embeddings.py', 'audio_stft.py',
    'per_sample_grads_func.py', 'spatial_transformer_sr.py', 'ctc_speech.py',
    'detection_head.py', 'vqvae_custom_function.py', 'transformer_translation.py',
    'llama_kv_cache.py', 'data_pipeline.py', 'init_and_flags.py',
    'vit_profiler.py', 'pruning_finetune.py', 'sobol_search.py', 'realnvp_flow.py',
    'clip_contrastive.py', 'wavenet_causal.py', 'swin_window_attention.py',
    'swa_schedulers.py', 'pinn_heat.py', 'tensor_network_mps.py', 'deq_implicit.py',
    'dqn_replay.py', 'word2vec_sparse.py', 'beam_search.py', 'ddp_single_process.py',
    'gradcam_adversarial.py', 'kmeans_gmm.py', 'autocast_compile.py',
]

NUMBER = re.compile(r'[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?')


def assert_same_output(ember_out, torch_out):
    """The same lines and text; numbers within what printing rounded."""
    e_lines, t_lines = ember_out.splitlines(), torch_out.splitlines()
    assert len(e_lines) == len(t_lines), f"ember:\n{ember_out}\ntorch:\n{torch_out}"
    for e, t in zip(e_lines, t_lines):
        assert NUMBER.split(e) == NUMBER.split(t), f"\nember: {e}\ntorch: {t}"
        for a, b in zip(NUMBER.findall(e), NUMBER.findall(t)):
            digits = len(b.split('.')[1].split('e')[0].split('E')[0]) if '.' in b else 0
            assert math.isclose(float(a), float(b), rel_tol=1e-3,
                                abs_tol=1.5 * 10.0 ** -digits), f"\nember: {e}\ntorch: {t}"


# Runs each program as ``python prog.py`` would (a fresh __main__, its own argv), all in one
# process: importing torch and warming it up costs more than most programs' whole run.
# (The process-wide settings a program may change -- the default dtype of a PINN run in
# float64 -- are put back after each, as a fresh process would have them.)
_ON_TORCH = """
import contextlib, io, json, runpy, sys, traceback
import torch
results = {}
for path in sys.argv[1:]:
    out = io.StringIO()
    sys.argv = [path]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(path, run_name='__main__')
        results[path] = [0, out.getvalue(), '']
    except BaseException:
        results[path] = [1, out.getvalue(), traceback.format_exc()]
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
sys.stdout.write(json.dumps(results))
"""


@pytest.fixture(scope='module')
def torch_outputs(tmp_path_factory):
    """{program path: (returncode, stdout, stderr)} on the real torch."""
    paths = [os.path.join(HERE, f) for f in sorted(os.listdir(HERE)) if f.endswith('.py')]
    if not _installed('einops'):
        paths = [p for p in paths if not os.path.basename(p).startswith('einops')]
    rc, out, err = run(['-c', _ON_TORCH, *paths], tmp_path_factory.mktemp('torch'),
                       timeout=1200)
    assert rc == 0, err
    return {k: tuple(v) for k, v in json.loads(out).items()}


def _installed(name):
    import importlib.util
    return importlib.util.find_spec(name) is not None


@pytest.mark.parametrize('program', PROGRAMS)
def test_program_runs_unmodified_and_agrees_with_torch(program, tmp_path, torch_outputs):
    if program.startswith('einops') and not _installed('einops'):
        pytest.skip('einops (in the test extra) is not installed')
    path = os.path.join(HERE, program)
    t = torch_outputs[path]
    assert t[0] == 0, f"the program fails on torch itself:\n{t[2]}"
    e = run(['-m', 'ember', 'run', path], tmp_path)
    assert e[0] == 0, e[2]
    assert_same_output(e[1], t[1])


def test_every_program_is_listed():
    listed = {p if isinstance(p, str) else p.values[0] for p in PROGRAMS}
    assert listed == {f for f in os.listdir(HERE) if f.endswith('.py')}
