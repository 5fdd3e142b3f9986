"""Learning-rate schedules and weight averaging as training recipes combine them: warm-up with
LinearLR then cosine in SequentialLR, CosineAnnealingWarmRestarts stepped with fractional
epochs, OneCycleLR (three-phase, linear anneal), CyclicLR (triangular2 and exp_range),
PolynomialLR, ChainedScheduler, ReduceLROnPlateau in 'max' mode with cooldown, scheduler
state_dict round trips; then stochastic weight averaging: AveragedModel, SWALR, update_bn
over a DataLoader, and an EMA model from get_ema_multi_avg_fn."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import lr_scheduler as S
from torch.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from torch.utils.data import DataLoader, TensorDataset

rng = np.random.default_rng(8)


def lrs(sched, opt, n, metric=None):
    out = []
    for i in range(n):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric[i])
        out.append(round(opt.param_groups[0]['lr'], 6))
    return out


def fresh(lr=0.1, momentum=0.9):
    return torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=lr, momentum=momentum)


opt = fresh()
warm = S.LinearLR(opt, start_factor=0.1, end_factor=1.0, total_iters=3)
cos = S.CosineAnnealingLR(opt, T_max=5, eta_min=0.001)
print("warmup+cosine", lrs(S.SequentialLR(opt, [warm, cos], milestones=[3]), opt, 9))

opt = fresh()
sched = S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01)
out = []
iters = 4
for epoch in range(3):
    for i in range(iters):
        opt.step()
        sched.step(epoch + i / iters)
        out.append(round(opt.param_groups[0]['lr'], 6))
print("warm restarts", out, sched.T_i, sched.T_cur)

opt = fresh()
print("onecycle", lrs(S.OneCycleLR(opt, max_lr=1.0, total_steps=10, three_phase=True,
                                   anneal_strategy='linear'), opt, 9))
print("momentum now", round(opt.param_groups[0]['momentum'], 6))
opt = fresh()
print("cyclic tri2", lrs(S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='triangular2'), opt, 10))
opt = fresh()
print("cyclic exp", lrs(S.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, step_size_down=3,
                                   mode='exp_range', gamma=0.9, cycle_momentum=False), opt, 8))
opt = fresh()
print("poly", lrs(S.PolynomialLR(opt, total_iters=4, power=2.0), opt, 6))
opt = fresh()
chained = S.ChainedScheduler([S.ConstantLR(opt, factor=0.5, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
print("chained", lrs(chained, opt, 5))
opt = fresh()
plateau = S.ReduceLROnPlateau(opt, mode='max', factor=0.5, patience=1, cooldown=1, threshold=0.01,
                              min_lr=0.01)
print("plateau", lrs(plateau, opt, 10, metric=[0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.7, 0.7, 0.7, 0.7]),
      plateau.num_bad_epochs, plateau.best)

# state_dict round trip: the resumed scheduler continues the same sequence
opt = fresh()
s1 = S.MultiStepLR(opt, milestones=[2, 4], gamma=0.3)
lrs(s1, opt, 3)
state = s1.state_dict()
opt2 = fresh()
opt2.load_state_dict(opt.state_dict())
s2 = S.MultiStepLR(opt2, milestones=[9], gamma=0.5)
s2.load_state_dict(state)
print("resumed", lrs(s1, opt, 3), lrs(s2, opt2, 3), sorted(state))

# ---- stochastic weight averaging
X = torch.from_numpy(rng.normal(size=(64, 4)).astype(np.float32))
y = torch.from_numpy((X.numpy() @ np.array([1.0, -2.0, 0.5, 0.0], dtype=np.float32) > 0).astype(np.int64))
loader = DataLoader(TensorDataset(X, y), batch_size=16)
model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))
with torch.no_grad():
    for m in model:
        if isinstance(m, nn.Linear):
            m.weight.copy_(torch.from_numpy(rng.normal(0, 0.5, size=m.weight.shape).astype(np.float32)))
            m.bias.zero_()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
swa_model = AveragedModel(model)
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.9))
scheduler = S.CosineAnnealingLR(optimizer, T_max=10)
swa_start = 5
swa_scheduler = SWALR(optimizer, swa_lr=0.05, anneal_epochs=2, anneal_strategy='cos')
for epoch in range(10):
    for xb, yb in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(xb), yb).backward()
        optimizer.step()
        ema_model.update_parameters(model)
    if epoch > swa_start:
        swa_model.update_parameters(model)
        swa_scheduler.step()
    else:
        scheduler.step()
    print(f"epoch {epoch} lr {optimizer.param_groups[0]['lr']:.5f}")
print("n_averaged", swa_model.n_averaged.item(), ema_model.n_averaged.item())
print("bn before update_bn", [round(v, 4) for v in swa_model.module[1].running_mean[:3].tolist()])
update_bn(loader, swa_model)
print("bn after update_bn", [round(v, 4) for v in swa_model.module[1].running_mean[:3].tolist()],
      swa_model.module[1].momentum, swa_model.module[1].num_batches_tracked.item())
with torch.no_grad():
    for name, m in [("model", model), ("swa", swa_model), ("ema", ema_model)]:
        m.eval()
        print(name, "loss", round(F.cross_entropy(m(X), y).item(), 4))
print("keys", list(swa_model.state_dict().keys())[:3])
