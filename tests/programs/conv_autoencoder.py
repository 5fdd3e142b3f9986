"""A convolutional autoencoder: Conv2d / MaxPool2d encoder, ConvTranspose2d and nn.Upsample
decoder, Sigmoid output, MSE loss with Adam, a custom nn.Module with a Flatten/Unflatten
bottleneck, parameter counting, and the reconstruction error per image."""
import numpy as np
import torch
import torch.nn as nn


class ConvAutoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2, 2),
            nn.Flatten(),
            nn.Linear(8 * 2 * 2, 6),
        )
        self.decoder = nn.Sequential(
            nn.Linear(6, 8 * 2 * 2), nn.ReLU(),
            nn.Unflatten(1, (8, 2, 2)),
            nn.ConvTranspose2d(8, 4, 2, stride=2), nn.ReLU(),
            nn.Upsample(scale_factor=2, mode='nearest'),
            nn.Conv2d(4, 1, 3, padding=1),
            nn.Sigmoid(),
        )

    def forward(self, x):
        return self.decoder(self.encoder(x))


rng = np.random.default_rng(5)
yy, xx = np.mgrid[0:8, 0:8]
images = np.stack([((xx - cx) ** 2 + (yy - cy) ** 2 < r * r).astype(np.float32)
                   for cx, cy, r in rng.uniform([2, 2, 1.5], [6, 6, 3.5], size=(24, 3))])
images = torch.from_numpy(images).unsqueeze(1)

model = ConvAutoencoder()
for p in model.parameters():
    p.data.copy_(torch.from_numpy(rng.normal(0, 0.25, size=p.shape).astype(np.float32)))
print("parameters:", sum(p.numel() for p in model.parameters() if p.requires_grad))

criterion = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(1, 9):
    train_loss = 0.0
    for batch in images.split(8):
        optimizer.zero_grad()
        outputs = model(batch)
        loss = criterion(outputs, batch)
        loss.backward()
        optimizer.step()
        train_loss += loss.item() * batch.size(0)
    print('Epoch: {} \tTraining Loss: {:.6f}'.format(epoch, train_loss / len(images)))

model.eval()
with torch.no_grad():
    recon = model(images[:3])
    per_image = ((recon - images[:3]) ** 2).mean(dim=(1, 2, 3))
print("code shape", tuple(model.encoder(images[:3]).shape), "recon shape", tuple(recon.shape))
print("per-image error", [round(v, 5) for v in per_image.tolist()])
