"""The short-time Fourier transform and its inverse (``stft``, ``istft``), composed of ember
ops in the order torch composes them (frames, window, one FFT per frame, in-place transpose
and squeeze), so their derivatives of every order, and the grad_fn torch shows, come from
those ops.
"""
import importlib
import warnings

import numpy as np

from .._tensor import Tensor, make
from ._core import register
from . import fft as _fft
from .special import view_as_real


def _pad_window(window, win_length, n_fft, dtype, op):
    """The window (ones if None) centred in ``n_fft`` samples."""
    if window is None:
        window = make(np.ones(win_length, dtype))
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{op}expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = importlib.import_module('ember.nn.functional').pad(
            window, [left, n_fft - win_length - left])
    return window


def _lengths(n_fft, hop_length, win_length, op):
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    # (``op``: the text before the message, ``stft(...) : `` or ``istft: ``)
    if hop <= 0:
        raise RuntimeError(f"{op}expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{op}expected 0 < win_length <= n_fft, but got win_length={win}")
    return hop, win


@register
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode='reflect', normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform of a 1-D signal (or a batch of them, (B, L)):
    frames of ``n_fft`` samples every ``hop_length`` (n_fft // 4), times ``window`` (ones
    of ``win_length``, centred), Fourier transformed; (freq, frames) per signal, complex.
    ``center`` pads the signal by n_fft // 2 on both sides (``pad_mode``); ``onesided``
    (the default for real input) keeps n_fft // 2 + 1 frequencies. ``align_to_window``
    (only without ``center``) starts the first frame's window, not the frame, at the
    signal's start."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # (first, as torch's Python pads before its kernel checks anything)
        nd = input.dim()
        F = importlib.import_module('ember.nn.functional')
        input = F.pad(input.view([1] * (3 - nd) + list(input.shape)), [n_fft // 2, n_fft // 2],
                      pad_mode)
        input = input.view(input.shape[-nd:])
    if return_complex is None and not (input.is_complex() or (
            window is not None and window.is_complex())):
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    if input._data.dtype.kind not in 'fc':
        _not_floating(input, n_fft, hop_length, win_length, window, normalized, onesided,
                      return_complex, align_to_window)
    # (the kernel's checks state the call as it received it: ``stft(torch.FloatTensor[8],
    # n_fft=4, ...) : expected ...``; the length first, then hop and window lengths)
    said = _kernel_text('stft', input, n_fft, hop_length, win_length, window,
                        normalized=normalized, onesided=onesided,
                        return_complex=return_complex, align_to_window=align_to_window)
    if input.dim() not in (1, 2):
        raise RuntimeError(said + "expected a 1D or 2D tensor")
    if not 0 < n_fft <= input.shape[-1] and not (
            align_to_window and win_length is not None and win_length < n_fft):
        raise RuntimeError(f"{said}expected 0 < n_fft < {input.shape[-1]}, but got "
                           f"n_fft={n_fft}")
    hop, win = _lengths(n_fft, hop_length, win_length, said)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which "
                      "is known to cause spectral leakage. Other windows such as "
                      "torch.hann_window or torch.hamming_window are recommended to reduce "
                      "spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=3)
    single = input.dim() == 1
    x = input.unsqueeze(0) if single else input
    if align_to_window and win < n_fft:
        # (the window sits (n_fft - win_length) // 2 into each frame: zeros before the
        # signal put the first window at its start)
        F = importlib.import_module('ember.nn.functional')
        left = (n_fft - win) // 2
        x = F.pad(x, [left, n_fft - win - left])
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"{said}expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    # (the window's dtype is the signal's real counterpart: complex64 stays complex64)
    w = _pad_window(window, win, n_fft, np.finfo(x._data.dtype).dtype, said)
    frames = x.unfold(-1, n_fft, hop) * w
    two_sided = onesided is False or frames.is_complex()
    norm = 'ortho' if normalized else None
    out = _fft.fft(frames, dim=-1, norm=norm) if two_sided else \
        _fft.rfft(frames, dim=-1, norm=norm)
    out.transpose_(1, 2)
    if single:
        out.squeeze_(0)
    return out if return_complex is not False else view_as_real(out)


def _kernel_text(op, input, n_fft, hop_length, win_length, window, **flags):
    """The call as torch's stft/istft kernel states it before its own checks' messages
    (``stft(torch.IntTensor[10], n_fft=3, ...) : ``): the defaults filled in, flags as 0/1."""
    def shape(t):
        return ', '.join(str(n) for n in t.shape)

    w = 'None' if window is None else f"{window.dtype.type_string}{{[{shape(window)}]}}"
    rest = ''.join(f", {k}={'None' if v is None else int(v)}" for k, v in flags.items())
    return (f"{op}({input.dtype.type_string}[{shape(input)}], n_fft={n_fft}, hop_length="
            f"{n_fft // 4 if hop_length is None else hop_length}, win_length="
            f"{n_fft if win_length is None else win_length}, window={w}{rest}) : ")


def _not_floating(input, n_fft, hop_length, win_length, window, normalized, onesided,
                  return_complex, align_to_window):
    """torch's RuntimeError for an ``stft`` of an integer or bool signal: it states the
    call as its kernel received it (the signal after ``center``'s padding)."""
    raise RuntimeError(_kernel_text(
        'stft', input, n_fft, hop_length, win_length, window, normalized=normalized,
        onesided=onesided, return_complex=return_complex, align_to_window=align_to_window) +
        "expected a tensor of floating point or complex values")


@register
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of ``stft``: each frame's inverse Fourier transform, windowed and
    overlap-added, divided by the overlap-added squared window; ``length`` trims or pads
    the signal. Input (freq, frames) or (B, freq, frames), complex."""
    if not isinstance(input, Tensor) or not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    if input.dim() < 2:  # (torch reads its real view's dims -3 (or -2 of a 0-d) first)
        nd = input.dim() + 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}]"
                         f", but got {-1 - nd})")

    def refuse(what):  # (the kernel states onesided as given)
        raise RuntimeError(_kernel_text(
            'istft', input, n_fft, hop_length, win_length, window, center=center,
            normalized=normalized, onesided=onesided, length=length,
            return_complex=return_complex) + what)
    fft_size = input.shape[-2]
    sided = fft_size != n_fft if onesided is None else onesided
    if fft_size != (n_fft // 2 + 1 if sided else n_fft):
        refuse("expected the frequency dimension (3rd to the last) of the input tensor to "
               "match " + ("n_fft / 2 + 1 when onesided=True" if sided else
                           "n_fft when onesided=False") + f", but got {fft_size}")
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if not 0 < hop <= win:
        refuse("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        refuse("expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        refuse("Invalid window shape. window has to be 1D and length of `win_length`")
    if return_complex and sided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    if not return_complex and window is not None and window.is_complex():
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    single = input.dim() == 2
    z = input.unsqueeze(0) if single else input
    n_frames = z.shape[-1]
    z = z.transpose(1, 2)
    if normalized:
        z = z * float(np.sqrt(n_fft))
    real_dtype = np.float32 if z._data.dtype == np.complex64 else np.float64
    if return_complex:
        frames = _fft.ifft(z, n_fft, dim=-1)
    else:  # (a real signal: a two-sided input's first half is read as Hermitian, as torch)
        frames = _fft.irfft(z if sided else z[..., :n_fft // 2 + 1], n_fft, dim=-1)
    w = _pad_window(window, win, n_fft, real_dtype, 'istft: ')
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    where = make((np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1))
    batch = frames.shape[0]
    y = make(np.zeros((batch, total), frames._data.dtype)).index_add(
        1, where, frames.reshape(batch, -1))
    # the overlap-added squared window, in ember ops: the result depends on the window
    # through it too (a round trip through stft does not depend on the window at all)
    w = w.to(frames.dtype) if frames.is_complex() else w
    envelope = make(np.zeros(total, w._data.dtype)).index_add(0, where,
                                                              (w * w).repeat(n_frames))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    stop = min(end, total)
    y = y[:, start:stop]
    env = envelope[start:stop]
    if env.numel() and np.abs(env._data).min() < 1e-11:
        raise RuntimeError("istft(...): window overlap add min: 1e-11")
    y = y / env
    if single:
        y = y.squeeze(0)
    if end > total:  # (padded last, as torch does)
        y = importlib.import_module('ember.nn.functional').pad(y, [0, end - total])
    return y
