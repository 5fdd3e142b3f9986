"""Replays of libstdc++'s sorting algorithms, for the few torch kernels whose answer depends
on the order they leave equal (or NaN) elements in.

torch's CPU ``mode`` sorts (value, index) pairs by value with ``std::sort``, which is an
insertion sort up to 16 elements (stable) but an introsort beyond (not stable), and NaN
compares false both ways; ``unique(dim=)`` sorts rows the same way (a row holding NaN lands
where the sort leaves it); ``nanmedian`` of an all-NaN slice reports where ``nth_element``
leaves element 0. Which of several equal elements torch reports is that order's accident, so
ember replays it on indices. Pure Python: only the ops' rare paths come here.
"""
_THRESHOLD = 16  # (libstdc++'s _S_threshold: introsort stops partitioning below it)


def std_sort_order(n, key_less):
    """The permutation ``std::sort`` leaves on the elements 0..n-1 under the comparator
    ``key_less(a, b)`` (of element numbers): a list of them. For Python numbers NaN compares
    false with everything, as in C++, so a comparator of them keeps C++'s answer."""
    ix = list(range(n))

    def less(i, j):  # (compare the elements at positions i and j of ix)
        return key_less(ix[i], ix[j])

    def swap(i, j):
        ix[i], ix[j] = ix[j], ix[i]

    def linear_insert(last):
        val = ix[last]
        while last > 0 and key_less(val, ix[last - 1]):  # (C++: unguarded)
            ix[last] = ix[last - 1]
            last -= 1
        ix[last] = val

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if less(i, first):
                ix[first:i + 1] = [ix[i]] + ix[first:i]
            else:
                linear_insert(i)

    def sift_down(first, hole, length, val):
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if less(first + child, first + child - 1):
                child -= 1
            ix[first + hole] = ix[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            ix[first + hole] = ix[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2  # (then push val up, as __push_heap)
        while hole > top and key_less(ix[first + parent], val):
            ix[first + hole] = ix[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        ix[first + hole] = val

    def heap_sort(first, last):
        length = last - first
        for parent in range((length - 2) // 2, -1, -1):
            sift_down(first, parent, length, ix[first + parent])
        while last - first > 1:
            last -= 1
            val = ix[last]
            ix[last] = ix[first]
            sift_down(first, 0, last - first, val)

    def median_to_first(result, a, b, c):
        if less(a, b):
            if less(b, c):
                swap(result, b)
            elif less(a, c):
                swap(result, c)
            else:
                swap(result, a)
        elif less(a, c):
            swap(result, a)
        elif less(b, c):
            swap(result, c)
        else:
            swap(result, b)

    def partition(first, last, pivot):
        end = last - 1
        while True:
            while first < end and less(first, pivot):  # (C++: unguarded; NaN can
                first += 1                              # leave it without a sentinel)
            last -= 1
            while last > pivot and less(pivot, last):
                last -= 1
            if not first < last:
                return first
            swap(first, last)
            first += 1

    def introsort(first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            introsort(cut, last, depth)
            last = cut

    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))  # (2 * std::__lg(n))
        if n > _THRESHOLD:
            insertion_sort(0, _THRESHOLD)
            for i in range(_THRESHOLD, n):
                linear_insert(i)
        else:
            insertion_sort(0, n)
    return ix


def nth_element_first_of_all_nan(n):
    """Where libstdc++'s nth_element (introselect, k=0) leaves element 0's slot when no two
    elements compare less (all NaN): only its swaps matter, so they are replayed on indices."""
    ix = list(range(n))
    first, last = 0, n
    while last - first > 3:
        mid = first + (last - first) // 2
        ix[first], ix[mid] = ix[mid], ix[first]  # median-of-three with no order: the middle
        lo, hi = first + 1, last
        while True:
            hi -= 1
            if lo >= hi:
                break
            ix[lo], ix[hi] = ix[hi], ix[lo]
            lo += 1
        if lo <= 0:
            first = lo
        else:
            last = lo
    return ix[0]
