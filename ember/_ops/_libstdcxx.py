"""Replays of libstdc++'s sorting algorithms, for the torch kernels whose answer depends on
the order they leave equal (or NaN) elements in.

torch's CPU ``mode`` sorts (value, index) pairs by value with ``std::sort``, which is an
insertion sort up to 16 elements (stable) but an introsort beyond (not stable), and NaN
compares false both ways; ``unique(dim=)`` sorts rows the same way (a row holding NaN lands
where the sort leaves it); ``topk`` runs ``std::partial_sort`` (k * 64 <= n) or
``std::nth_element`` and then ``std::sort`` of the first k - 1; ``nanmedian`` of an all-NaN
slice reports where ``nth_element`` leaves element 0. Which of several equal elements torch
reports is that order's accident, so ember replays it on element numbers. Pure Python: only
the ops' rare paths (ties, NaN, unsorted output) come here.
"""

import numpy as np

_THRESHOLD = 16  # (libstdc++'s _S_threshold: introsort stops partitioning below it)


class _Replay:
    """libstdc++'s algorithms on the list ``ix`` of element numbers 0..n-1 under the
    comparator ``key_less(a, b)`` of element numbers. Positions are indices into ``ix``;
    the C++ iterators' unguarded loops get bounds (a comparator NaN breaks could run them
    off the end, which C++ leaves undefined)."""

    def __init__(self, n, key_less):
        self.ix = list(range(n))
        self.key_less = key_less

    def less(self, i, j):
        return self.key_less(self.ix[i], self.ix[j])

    def swap(self, i, j):
        ix = self.ix
        ix[i], ix[j] = ix[j], ix[i]

    # -- insertion sort --------------------------------------------------------------------
    def linear_insert(self, last):
        ix, val = self.ix, self.ix[last]
        while last > 0 and self.key_less(val, ix[last - 1]):
            ix[last] = ix[last - 1]
            last -= 1
        ix[last] = val

    def insertion_sort(self, first, last):
        ix = self.ix
        for i in range(first + 1, last):
            if self.less(i, first):
                ix[first:i + 1] = [ix[i]] + ix[first:i]
            else:
                self.linear_insert(i)

    # -- heaps -----------------------------------------------------------------------------
    def adjust_heap(self, first, hole, length, val):
        ix, top, child = self.ix, hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if self.less(first + child, first + child - 1):
                child -= 1
            ix[first + hole] = ix[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            ix[first + hole] = ix[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2  # (then val goes up, as __push_heap)
        while hole > top and self.key_less(ix[first + parent], val):
            ix[first + hole] = ix[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        ix[first + hole] = val

    def make_heap(self, first, last):
        length = last - first
        for parent in range((length - 2) // 2, -1, -1):
            self.adjust_heap(first, parent, length, self.ix[first + parent])

    def pop_heap(self, first, last, result):
        ix = self.ix
        val = ix[result]
        ix[result] = ix[first]
        self.adjust_heap(first, 0, last - first, val)

    def heap_select(self, first, middle, last):
        self.make_heap(first, middle)
        for i in range(middle, last):
            if self.less(i, first):
                self.pop_heap(first, middle, i)

    def sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            self.pop_heap(first, last, last)

    # -- quicksort partitioning --------------------------------------------------------------
    def median_to_first(self, result, a, b, c):
        less = self.less
        if less(a, b):
            pick = b if less(b, c) else c if less(a, c) else a
        else:
            pick = a if less(a, c) else c if less(b, c) else b
        self.swap(result, pick)

    def partition_pivot(self, first, last):
        """__unguarded_partition_pivot: median of three to ``first``, Hoare partition."""
        self.median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        pivot, lo, hi = first, first + 1, last
        while True:
            while lo < last - 1 and self.less(lo, pivot):
                lo += 1
            hi -= 1
            while hi > pivot and self.less(pivot, hi):
                hi -= 1
            if not lo < hi:
                return lo
            self.swap(lo, hi)
            lo += 1

    # -- the algorithms ------------------------------------------------------------------------
    def sort(self, first, last):
        """std::sort: introsort to blocks of 16, then one insertion pass."""
        if last - first < 2:
            return
        self._introsort(first, last, 2 * ((last - first).bit_length() - 1))  # (2 * __lg(n))
        if last - first > _THRESHOLD:
            self.insertion_sort(first, first + _THRESHOLD)
            for i in range(first + _THRESHOLD, last):
                self.linear_insert(i)
        else:
            self.insertion_sort(first, last)

    def _introsort(self, first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                self.heap_select(first, last, last)  # (partial_sort of the whole range)
                self.sort_heap(first, last)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            self._introsort(cut, last, depth)
            last = cut

    def nth_element(self, first, nth, last):
        """std::nth_element: introselect down to 3 elements, then insertion sort."""
        if first == last or nth == last:
            return
        depth = 2 * ((last - first).bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.swap(first, nth)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)


def std_sort_order(n, key_less):
    """The permutation ``std::sort`` leaves on the elements 0..n-1 under the comparator
    ``key_less(a, b)`` (of element numbers): a list of them. For Python numbers NaN compares
    false with everything, as in C++, so a comparator of them keeps C++'s answer."""
    r = _Replay(n, key_less)
    r.sort(0, n)
    return r.ix


def topk_order(row, k, largest, sorted):
    """The element numbers torch's CPU topk returns for the 1-d NumPy array ``row`` (float64
    or integers): NaN counts as the largest; ``partial_sort`` when k * 64 <= n, else
    ``nth_element`` at k - 1 and (``sorted``) ``std::sort`` of the first k - 1."""
    values = row.tolist()
    nan = np.isnan(row).tolist() if row.dtype.kind == 'f' else [False] * len(values)
    if row.dtype.kind != 'f':
        def key_less(a, b):
            return values[a] > values[b] if largest else values[a] < values[b]
    elif largest:
        def key_less(a, b):
            return (nan[a] and not nan[b]) or values[a] > values[b]
    else:
        def key_less(a, b):
            return (not nan[a] and nan[b]) or values[a] < values[b]
    n = len(values)
    r = _Replay(n, key_less)
    if k * 64 <= n:
        r.make_heap(0, k)
        _heap_select_rest(r, row, k, largest, nan)
        r.sort_heap(0, k)
    else:
        r.nth_element(0, k - 1, n)
        if sorted:
            r.sort(0, k - 1)
    return r.ix[:k]


def _heap_select_rest(r, row, k, largest, nan, block=256):
    """heap_select's scan past the heap (``if comp(i, top): pop_heap(i)``), a block at a
    time: the heap's top only improves, so an element not better than the top at its block's
    start is not better than the top when the scan reaches it, and NumPy skips it."""
    n = len(row)
    isnan = np.isnan(row) if row.dtype.kind == 'f' else np.zeros(n, bool)
    for start in range(k, n, block):
        chunk, chunk_nan, top = row[start:start + block], isnan[start:start + block], r.ix[0]
        if nan[top]:  # (a NaN top: nothing beats it for largest, any number for smallest)
            better = np.zeros(len(chunk), bool) if largest else ~chunk_nan
        elif largest:
            better = chunk_nan | (chunk > row[top])
        else:
            better = ~chunk_nan & (chunk < row[top])
        for i in (np.flatnonzero(better) + start).tolist():
            if r.less(i, 0):
                r.pop_heap(0, k, i)


def nth_element_first_of_all_nan(n):
    """Where ``nth_element`` (k = 0) leaves element 0's slot when no two elements compare
    less (all NaN): only its swaps decide."""
    r = _Replay(n, lambda a, b: False)
    r.nth_element(0, 0, n)
    return r.ix[0]
