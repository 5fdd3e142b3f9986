"""A small ResNet (BasicBlocks with BatchNorm and projection shortcuts) trained with SGD,
momentum, Nesterov and weight decay under a StepLR schedule; train/eval modes, accuracy,
and the BatchNorm running statistics it ends with. Images and weights come from NumPy."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1,
                               bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride,
                          bias=False),
                nn.BatchNorm2d(self.expansion * planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        return F.relu(out)


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=4):
        super(ResNet, self).__init__()
        self.in_planes = 8
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(8)
        self.layer1 = self._make_layer(block, 8, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 16, num_blocks[1], stride=2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.linear = nn.Linear(16 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer2(self.layer1(out))
        out = torch.flatten(self.avgpool(out), 1)
        return self.linear(out)


rng = np.random.default_rng(0)
net = ResNet(BasicBlock, [1, 1])
with torch.no_grad():
    for name, p in net.named_parameters():
        if 'bn' in name or 'shortcut.1' in name:
            p.copy_(torch.from_numpy((1.0 if name.endswith('weight') else 0.0)
                                     + 0.1 * rng.standard_normal(p.shape).astype(np.float32)))
        else:
            fan_in = int(np.prod(p.shape[1:])) if p.dim() > 1 else 16
            p.copy_(torch.from_numpy(rng.standard_normal(p.shape).astype(np.float32)
                                     / np.sqrt(fan_in)))

images = torch.from_numpy(rng.standard_normal((32, 3, 8, 8)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 4, size=32))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.05, momentum=0.9, nesterov=True,
                      weight_decay=5e-4)
scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=3, gamma=0.5)

for epoch in range(6):
    net.train()
    train_loss, correct = 0.0, 0
    for start in range(0, 32, 16):
        inputs, targets = images[start:start + 16], labels[start:start + 16]
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
        _, predicted = outputs.max(1)
        correct += predicted.eq(targets).sum().item()
    scheduler.step()
    print(f"epoch {epoch} lr {scheduler.get_last_lr()[0]:.4f} loss {train_loss / 2:.4f} "
          f"acc {100. * correct / 32:.1f}")

net.eval()
with torch.no_grad():
    logits = net(images)
    print("eval loss", round(criterion(logits, labels).item(), 4))
    print("eval predictions", logits.argmax(dim=1).tolist())
print("bn1 running_mean", [round(v, 4) for v in net.bn1.running_mean.tolist()])
print("num_batches_tracked", net.bn1.num_batches_tracked.item())
