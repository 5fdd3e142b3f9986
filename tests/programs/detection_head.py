"""Single-stage detector bookkeeping as written without torchvision: anchors from
torch.meshgrid(indexing='ij'), box IoU by broadcasting, anchor matching with max/argmax and
thresholds, box-delta encoding/decoding, a focal loss from binary_cross_entropy_with_logits
(reduction='none'), smooth-L1 regression on positives only, a greedy NMS loop, and a tiny
conv head trained a few steps with SGD + MultiStepLR."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(55)
IMG, STRIDE, NUM_CLASSES = 32, 8, 2


def make_anchors(feat, stride, sizes=(8.0, 16.0)):
    ys, xs = torch.meshgrid(torch.arange(feat), torch.arange(feat), indexing='ij')
    centers = torch.stack([(xs + 0.5) * stride, (ys + 0.5) * stride], dim=-1).reshape(-1, 2)
    wh = torch.tensor(sizes).repeat_interleave(2).view(-1, 2)
    centers = centers.repeat_interleave(len(sizes), dim=0)
    wh = wh.repeat(feat * feat, 1)
    return torch.cat([centers - wh / 2, centers + wh / 2], dim=1)


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    inter = (rb - lt).clamp(min=0).prod(dim=2)
    return inter / (area_a[:, None] + area_b[None, :] - inter)


def encode(gt, anchors):
    a_wh = anchors[:, 2:] - anchors[:, :2]
    a_c = anchors[:, :2] + 0.5 * a_wh
    g_wh = gt[:, 2:] - gt[:, :2]
    g_c = gt[:, :2] + 0.5 * g_wh
    return torch.cat([(g_c - a_c) / a_wh, torch.log(g_wh / a_wh)], dim=1)


def decode(deltas, anchors):
    a_wh = anchors[:, 2:] - anchors[:, :2]
    c = anchors[:, :2] + 0.5 * a_wh + deltas[:, :2] * a_wh
    wh = a_wh * deltas[:, 2:].clamp(max=4.0).exp()
    return torch.cat([c - wh / 2, c + wh / 2], dim=1)


def focal_loss(logits, targets, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(logits)
    ce = F.binary_cross_entropy_with_logits(logits, targets, reduction='none')
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * loss).sum()


def nms(boxes, scores, thr):
    order = scores.argsort(descending=True, stable=True)
    keep = []
    while order.numel() > 0:
        i = order[0]
        keep.append(int(i))
        if order.numel() == 1:
            break
        ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]]).squeeze(0)
        order = order[1:][ious <= thr]
    return torch.tensor(keep, dtype=torch.long)


anchors = make_anchors(IMG // STRIDE, STRIDE)
gt_boxes = torch.tensor([[2.0, 3.0, 14.0, 13.0], [17.0, 18.0, 30.0, 31.0], [20.0, 2.0, 28.0, 9.0]])
gt_labels = torch.tensor([0, 1, 1])
iou = box_iou(anchors, gt_boxes)
best_iou, best_gt = iou.max(dim=1)
labels = torch.full((len(anchors),), -1, dtype=torch.long)       # -1: ignored
labels[best_iou < 0.3] = NUM_CLASSES                              # background
pos = best_iou >= 0.4
labels[pos] = gt_labels[best_gt[pos]]
force = iou.argmax(dim=0)                                         # every gt gets its best anchor
labels[force] = gt_labels
pos = (labels >= 0) & (labels < NUM_CLASSES)
print("anchors", tuple(anchors.shape), "positives", int(pos.sum()), "ignored", int((labels == -1).sum()))
reg_targets = encode(gt_boxes[best_gt], anchors)
print("roundtrip", torch.allclose(decode(reg_targets, anchors), gt_boxes[best_gt], atol=1e-4))


class Head(nn.Module):
    def __init__(self, a=2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU(),
                                  nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU())
        self.cls = nn.Conv2d(8, a * NUM_CLASSES, 1)
        self.box = nn.Conv2d(8, a * 4, 1)

    def forward(self, x):
        f = self.stem(x)
        n = x.size(0)
        cls = self.cls(f).permute(0, 2, 3, 1).reshape(n, -1, NUM_CLASSES)
        box = self.box(f).permute(0, 2, 3, 1).reshape(n, -1, 4)
        return cls, box


head = Head()
with torch.no_grad():
    for name, p in head.named_parameters():
        p.copy_(torch.from_numpy(rng.normal(0, 0.2, size=p.shape)))
    head.cls.bias.fill_(-float(np.log((1 - 0.01) / 0.01)))       # prior probability 0.01
image = torch.from_numpy(rng.random((1, 3, IMG, IMG)).astype(np.float32))
optimizer = torch.optim.SGD(head.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 5], gamma=0.1)
valid = labels >= 0
cls_targets = F.one_hot(labels.clamp(0, NUM_CLASSES), NUM_CLASSES + 1)[:, :NUM_CLASSES].float()
for step in range(6):
    cls_out, box_out = head(image)
    num_pos = max(1, int(pos.sum()))
    l_cls = focal_loss(cls_out[0][valid], cls_targets[valid]) / num_pos
    l_box = F.smooth_l1_loss(box_out[0][pos], reg_targets[pos], beta=1 / 9, reduction='sum') / num_pos
    loss = l_cls + l_box
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step} cls {l_cls.item():.4f} box {l_box.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")

with torch.no_grad():
    cls_out, box_out = head(image)
    scores, classes = cls_out[0].sigmoid().max(dim=1)
    boxes = decode(box_out[0], anchors).clamp(0, IMG)
    top = scores.topk(6).indices
    keep = nms(boxes[top], scores[top], 0.5)
print("kept", len(keep), "classes", classes[top][keep].tolist(), "scores",
      [round(v, 4) for v in scores[top][keep].tolist()])
print("iou diag", [round(v, 4) for v in box_iou(gt_boxes, gt_boxes).diagonal().tolist()],
      "max offdiag", round(box_iou(gt_boxes, gt_boxes).fill_diagonal_(0).max().item(), 4))
