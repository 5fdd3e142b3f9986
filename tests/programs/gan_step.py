"""A GAN on 2-d points (the DCGAN recipe with MLPs): generator and discriminator with
BatchNorm1d / LeakyReLU / Tanh, BCEWithLogitsLoss, two Adam optimizers with betas
(0.5, 0.999), .detach() for the discriminator step, zero_grad(set_to_none=True). Noise and
data come from NumPy, so the run is the same in every framework."""
import numpy as np
import torch
import torch.nn as nn

nz = 4
netG = nn.Sequential(nn.Linear(nz, 16, bias=False), nn.BatchNorm1d(16), nn.ReLU(True),
                     nn.Linear(16, 2), nn.Tanh())
netD = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True),
                     nn.Linear(16, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))

rng = np.random.default_rng(11)


def weights_init(m):
    if isinstance(m, nn.Linear):
        m.weight.data = torch.from_numpy(rng.normal(0.0, 0.3, m.weight.shape).astype('float32'))
        if m.bias is not None:
            m.bias.data.fill_(0)
    elif isinstance(m, nn.BatchNorm1d):
        nn.init.constant_(m.weight, 1.0)
        nn.init.constant_(m.bias, 0)


netG.apply(weights_init)
netD.apply(weights_init)

criterion = nn.BCEWithLogitsLoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
real_label, fake_label = 1., 0.
angles = rng.uniform(0, 2 * np.pi, size=(10, 32))

for i in range(10):
    real = torch.from_numpy(np.stack([np.cos(angles[i]), np.sin(angles[i])], 1) * 0.8).float()
    b_size = real.size(0)
    netD.zero_grad(set_to_none=True)
    label = torch.full((b_size,), real_label, dtype=torch.float)
    output = netD(real).view(-1)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = torch.sigmoid(output).mean().item()
    noise = torch.from_numpy(rng.standard_normal((b_size, nz))).float()
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake.detach()).view(-1)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    errD = errD_real + errD_fake
    optimizerD.step()

    netG.zero_grad(set_to_none=True)
    label.fill_(real_label)
    output = netD(fake).view(-1)
    errG = criterion(output, label)
    errG.backward()
    optimizerG.step()
    print(f"[{i}/10] Loss_D: {errD.item():.4f} Loss_G: {errG.item():.4f} D(x): {D_x:.4f}")

netG.eval()
with torch.no_grad():
    points = netG(torch.from_numpy(rng.standard_normal((4, nz))).float())
print("generated", [[round(v, 3) for v in p] for p in points.tolist()])
