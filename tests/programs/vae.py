"""A variational autoencoder on binary 4x4 patterns: the reparameterisation trick with
torch.randn_like, a BCE + KL loss, DataLoader with shuffle=True, sampling from the prior.
Random numbers differ between frameworks, so the program prints what does not depend on
them: shapes, ranges and whether training made progress."""
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class VAE(nn.Module):
    def __init__(self, latent=2):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc21 = nn.Linear(32, latent)
        self.fc22 = nn.Linear(32, latent)
        self.fc3 = nn.Linear(latent, 32)
        self.fc4 = nn.Linear(32, 16)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 16))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 16), reduction='sum')
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


patterns = np.array([[1, 1, 0, 0] * 4, [0, 0, 1, 1] * 4, [1, 0] * 8, [0, 1] * 8],
                    dtype=np.float32)
data = torch.from_numpy(np.repeat(patterns, 16, axis=0)).view(-1, 1, 4, 4)
loader = DataLoader(TensorDataset(data), batch_size=16, shuffle=True)

model = VAE()
optimizer = optim.Adam(model.parameters(), lr=1e-2)
losses = []
for epoch in range(1, 16):
    model.train()
    train_loss = 0
    for batch_idx, (x,) in enumerate(loader):
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(x)
        loss = loss_function(recon_batch, x, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    losses.append(train_loss / len(loader.dataset))

print("batches per epoch", len(loader), "last batch", tuple(x.shape))
print("loss finite", all(np.isfinite(losses)), "decreased", losses[-1] < 0.7 * losses[0])
with torch.no_grad():
    sample = model.decode(torch.randn(8, 2))
    print("sample", tuple(sample.shape), sample.dtype, bool(((sample >= 0) & (sample <= 1)).all()))
    recon, mu, logvar = model(data[:4])
    print("recon", tuple(recon.shape), "mu", tuple(mu.shape), "logvar", tuple(logvar.shape))
