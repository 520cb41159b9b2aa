#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generates median25_net in lb-xv-despeckle.c: a comparator network that leaves the median
of 25 values on wire 12 when wires 5*c + k hold the k-th smallest of five sorted columns c.

Batcher's odd-even merge sort for 25 wires (padded to 32 with +inf, pad comparators dropped),
minus comparators that never swap on any input of five sorted binary columns (by the 0-1
principle they never swap on any input of five sorted columns: a network commutes with
thresholding, and thresholding keeps columns sorted), minus comparators that cannot reach
wire 12; of the rest only the needed half (min to lo, max to hi) is kept. The result is checked
on all 6^5 binary inputs of the domain, which by the same principle proves it.

Prints the C table; run it and paste the output when changing the network."""
import itertools


def batcher_sort(n):
    size = 1
    while size < n:
        size *= 2
    comps = []
    p = 1
    while p < size:
        k = p
        while k >= 1:
            for j in range(k % p, size - k, 2 * k):
                for i in range(min(k, size - j - k)):
                    if (i + j) // (p * 2) == (i + j + k) // (p * 2):
                        comps.append((i + j, i + j + k))
            k //= 2
        p *= 2
    return [(a, b) for (a, b) in comps if b < n]


def sorted_binary_columns():
    for zeros in itertools.product(range(6), repeat=5):
        x = []
        for z in zeros:
            x += [0] * z + [1] * (5 - z)
        yield x


def main():
    states = list(sorted_binary_columns())
    useful = []
    for a, b in batcher_sort(25):
        if any(s[a] > s[b] for s in states):
            useful.append((a, b))
        for s in states:
            if s[a] > s[b]:
                s[a], s[b] = s[b], s[a]
    live = {12}
    net = []
    for a, b in reversed(useful):
        if a in live or b in live:
            net.append((a, b, a in live, b in live))
            live.update((a, b))
    net.reverse()

    for x in sorted_binary_columns():
        v = list(x)
        for a, b, keep_min, keep_max in net:
            lo, hi = min(v[a], v[b]), max(v[a], v[b])
            if keep_min:
                v[a] = lo
            if keep_max:
                v[b] = hi
        assert v[12] == sorted(x)[12]

    print(f"/* {len(net)} comparators */")
    for a, b, keep_min, keep_max in net:
        print(f"{{ {a}, {b}, {int(keep_min) | 2 * int(keep_max)} }},")


if __name__ == "__main__":
    main()
