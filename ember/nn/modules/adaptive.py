"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (2017) for large
vocabularies. Frequent classes (below ``cutoffs[0]``) are scored by the head directly; each
later band of classes is one "cluster" entry of the head, whose share is split among its
classes by a smaller tail projection (its width divided by ``div_value`` per band)."""
import collections

from ... import _ops
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ['AdaptiveLogSoftmaxWithLoss']

_ASMoutput = collections.namedtuple('_ASMoutput', ['output', 'loss'])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of the targets (``output``) and their mean negative (``loss``) under
    an adaptive softmax over ``n_classes`` classes split at ``cutoffs``."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1 \
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {'device': device, 'dtype': dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, width, bias=False, **kw)))

    def reset_parameters(self):
        """Re-initialises the head and every tail projection."""
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)

        output = input.new_zeros(target.size(0))  # the tail's share, then the head's added
        head_column = target.new_empty(target.size(0))  # each row's entry in the head
        covered = 0
        bounds = [0] + self.cutoffs
        for band, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_band = (target >= low) & (target < high)
            rows = in_band.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if band == 0:
                head_column.index_copy_(0, rows, target[in_band])
            else:
                head_column.index_fill_(0, rows, self.shortlist_size + band - 1)
                logits = self.tail[band - 1](input.index_select(0, rows))
                local = F.log_softmax(logits, dim=1).gather(
                    1, (target[in_band] - low).unsqueeze(1))
                output.index_copy_(0, rows, local.squeeze(1))
            covered += rows.numel()
        if covered != target.size(0):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, head_column.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        # every class's log-probability: a band's = its cluster entry's + its tail's own
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            tail_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = tail_logprob + \
                head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        """The log-probability of every class, ``(N, n_classes)``."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row (``log_prob(input).argmax(1)``, computing the
        tails only for rows whose best head entry is a cluster)."""
        head_output = self.head(input)
        output = _ops.reduce.argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return _ops.reduce.argmax(self._full_log_prob(input, head_output), dim=1)
        output[outside] = _ops.reduce.argmax(
            self._full_log_prob(input[outside], head_output[outside]), dim=1)
        return output
