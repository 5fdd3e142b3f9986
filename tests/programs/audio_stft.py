"""Audio-style signal processing: torch.stft with a hann_window (complex output, magnitude,
log-mel-like pooling), perfect reconstruction through torch.istft, torch.fft.rfft/irfft and
rfftfreq to find a tone's frequency, a spectral-domain filter, and a small Conv1d classifier
(BatchNorm1d, MaxPool1d, AdaptiveAvgPool1d) trained on raw waveforms."""
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(31)
SR, N = 800, 400


def tone(freq, n=N, noise=0.1):
    t = np.arange(n) / SR
    return (np.sin(2 * math.pi * freq * t + rng.uniform(0, 2 * math.pi)) +
            noise * rng.normal(size=n)).astype(np.float32)


wave = torch.from_numpy(tone(120.0))
spectrum = torch.fft.rfft(wave)
freqs = torch.fft.rfftfreq(N, d=1 / SR)
peak = freqs[spectrum.abs().argmax()]
print("rfft", tuple(spectrum.shape), spectrum.dtype, "peak Hz", peak.item())
back = torch.fft.irfft(spectrum, n=N)
print("irfft error < 1e-5", (back - wave).abs().max().item() < 1e-5)

# low-pass: zero the bins above 60 Hz
low = torch.fft.irfft(spectrum * (freqs < 60).to(spectrum.dtype), n=N)
print("low-pass energy", f"{low.pow(2).mean().item():.5f}", "of", f"{wave.pow(2).mean().item():.5f}")

n_fft, hop = 64, 16
window = torch.hann_window(n_fft)
print("hann", [round(v, 4) for v in window[:4].tolist()], "periodic differs from symmetric",
      not torch.allclose(window, torch.hann_window(n_fft, periodic=False)))
spec = torch.stft(wave, n_fft=n_fft, hop_length=hop, win_length=n_fft, window=window,
                  center=True, pad_mode='reflect', normalized=False, onesided=True,
                  return_complex=True)
print("stft", tuple(spec.shape), spec.dtype, "frame 3 bins 0-3",
      [round(v, 3) for v in spec[:4, 3].abs().tolist()])
recon = torch.istft(spec, n_fft=n_fft, hop_length=hop, win_length=n_fft, window=window,
                    center=True, length=N)
print("istft reconstruction error < 1e-4", (recon - wave).abs().max().item() < 1e-4)
power = spec.abs().pow(2)
# triangular-ish filterbank by averaging neighbouring bins, then log compression
bank = F.avg_pool1d(power.T.unsqueeze(1), kernel_size=4, stride=4).squeeze(1).T
log_spec = torch.log(bank + 1e-6)
print("log bank", tuple(log_spec.shape), f"max {log_spec.max().item():.3f} at bin",
      int(log_spec.mean(1).argmax()))
batch = torch.stack([wave, wave.flip(0)])
bspec = torch.stft(batch, 64, hop_length=16, window=window, return_complex=True)
print("batched stft", tuple(bspec.shape), "view_as_real", tuple(torch.view_as_real(bspec).shape),
      "angle", f"{torch.angle(bspec[0, 7, 5]).item():.4f}")


class AudioCNN(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 8, kernel_size=9, stride=2, padding=4), nn.BatchNorm1d(8), nn.ReLU(),
            nn.MaxPool1d(4),
            nn.Conv1d(8, 16, kernel_size=5, padding=2, dilation=1, groups=2), nn.BatchNorm1d(16),
            nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.fc(self.features(x.unsqueeze(1)).flatten(1))


classes = [100.0, 200.0, 300.0]
X = torch.from_numpy(np.stack([tone(classes[i % 3]) for i in range(24)]))
Y = torch.tensor([i % 3 for i in range(24)])
model = AudioCNN()
with torch.no_grad():
    for name, p in model.named_parameters():
        if p.dim() > 1:
            p.copy_(torch.from_numpy(rng.normal(0, 1 / math.sqrt(p[0].numel()), size=p.shape)))
        elif 'features.1' not in name and 'features.5' not in name:  # (BatchNorm keeps 1, 0)
            p.copy_(torch.from_numpy(rng.normal(0, 0.1, size=p.shape)))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(6):
    model.train()
    logits = model(X)
    loss = F.cross_entropy(logits, Y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {(logits.argmax(1) == Y).float().mean().item():.3f}")
