"""Graph neural networks written the way PyG-free code does it: a GCN layer over a
torch.sparse_coo_tensor adjacency (symmetric degree normalisation, coalesce, to_dense), a
GraphSAGE-style layer aggregating messages with index_add_ and scatter_reduce('mean'/'amax'),
global mean pooling per graph with index_add_, and node classification with a train mask."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(11)

# two small graphs in one batch: a ring of 6 nodes and a star of 5 nodes
ring = [(i, (i + 1) % 6) for i in range(6)]
star = [(6, 6 + k) for k in range(1, 5)]
edges = np.array(ring + star).T
edge_index = torch.from_numpy(np.concatenate([edges, edges[::-1]], axis=1))  # undirected
num_nodes = 11
batch = torch.tensor([0] * 6 + [1] * 5)
x = torch.from_numpy(rng.normal(size=(num_nodes, 4)).astype(np.float32))
y = torch.tensor([0, 1, 0, 1, 0, 1, 2, 0, 0, 0, 0])
train_mask = torch.zeros(num_nodes, dtype=torch.bool)
train_mask[torch.tensor([0, 1, 2, 6, 7, 8])] = True


def gcn_norm_adj(edge_index, n):
    loops = torch.arange(n).unsqueeze(0).repeat(2, 1)
    ei = torch.cat([edge_index, loops], dim=1)
    w = torch.ones(ei.size(1))
    deg = torch.zeros(n).scatter_add_(0, ei[0], w)
    dinv = deg.pow(-0.5)
    dinv[torch.isinf(dinv)] = 0
    vals = dinv[ei[0]] * w * dinv[ei[1]]
    return torch.sparse_coo_tensor(ei, vals, (n, n)).coalesce(), deg


class GCNLayer(nn.Module):
    def __init__(self, i, o):
        super().__init__()
        self.lin = nn.Linear(i, o, bias=False)
        self.bias = nn.Parameter(torch.zeros(o))

    def forward(self, x, adj):
        # (torch.sparse.mm(adj, h) where the framework has it; the dense product is the same)
        return adj.to_dense() @ self.lin(x) + self.bias


class SAGELayer(nn.Module):
    def __init__(self, i, o, aggr):
        super().__init__()
        self.aggr = aggr
        self.lin_self = nn.Linear(i, o)
        self.lin_neigh = nn.Linear(i, o, bias=False)

    def forward(self, x, edge_index):
        src, dst = edge_index
        msg = x[src]
        if self.aggr == 'sum':
            agg = torch.zeros(x.size(0), x.size(1)).index_add_(0, dst, msg)
        else:
            index = dst.unsqueeze(-1).expand_as(msg)
            agg = torch.zeros_like(x).scatter_reduce(0, index, msg, reduce=self.aggr,
                                                     include_self=False)
        return self.lin_self(x) + self.lin_neigh(agg)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.gcn = GCNLayer(4, 8)
        self.sage_mean = SAGELayer(8, 8, 'mean')
        self.sage_max = SAGELayer(8, 8, 'amax')
        self.cls = nn.Linear(8, 3)
        self.graph_head = nn.Linear(8, 1)

    def forward(self, x, adj, edge_index, batch):
        h = F.relu(self.gcn(x, adj))
        h = F.elu(self.sage_mean(h, edge_index))
        h = F.leaky_relu(self.sage_max(h, edge_index), 0.1)
        counts = torch.bincount(batch).clamp(min=1).unsqueeze(-1)
        pooled = torch.zeros(int(batch.max()) + 1, h.size(1)).index_add_(0, batch, h) / counts
        return self.cls(h), self.graph_head(pooled).squeeze(-1)


adj, deg = gcn_norm_adj(edge_index, num_nodes)
print("degrees", deg.long().tolist())
print("adj", adj.layout, "nnz", adj._nnz(), "dense row 6", [round(v, 4) for v in adj.to_dense()[6].tolist()])

model = Net()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, size=p.shape)))
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
graph_target = torch.tensor([1.0, -1.0])
for epoch in range(10):
    model.train()
    optimizer.zero_grad()
    node_logits, graph_out = model(x, adj, edge_index, batch)
    loss = F.cross_entropy(node_logits[train_mask], y[train_mask]) + \
        F.smooth_l1_loss(graph_out, graph_target, beta=0.5)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        acc = (node_logits.argmax(-1)[~train_mask] == y[~train_mask]).float().mean()
    print(f"epoch {epoch} loss {loss.item():.4f} val_acc {acc.item():.3f}")

src, dst = edge_index
vals = torch.from_numpy(rng.normal(size=(edge_index.size(1),)).astype(np.float32))
for reduce in ['sum', 'mean', 'amax', 'amin', 'prod']:
    out = torch.full((num_nodes,), 0.5).scatter_reduce(0, dst, vals, reduce=reduce,
                                                       include_self=True)
    print(reduce, [round(v, 4) for v in out.tolist()])
print("gcn grad", tuple(model.gcn.lin.weight.grad.shape), "sparse grad-free", adj.requires_grad)
