"""Kendall tau distance: the number of document pairs two rankings order differently.

All three implementations take ``positions``: for each document in the reference
ranking's order, its position in the candidate ranking (a permutation of
``0..n-1``). The distance is then the number of inversions of ``positions``:
pairs ``i < j`` with ``positions[i] > positions[j]``; it ranges from ``0``
(same order) to ``n * (n - 1) / 2`` (reversed order).

* :func:`pairwise` compares every pair: ``O(n^2)``, the obvious baseline;
* :func:`merge_sort` counts inversions while merge-sorting: ``O(n log n)``;
* :func:`fenwick` sweeps from the right with a binary indexed tree: ``O(n log n)``;
* :func:`sampled` estimates the count from a fixed-size random sample of pairs:
  fast, but only exact by luck (for instance on a fully reversed ranking).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence


def pairwise(positions: Sequence[int]) -> int:
    """Count inversions by comparing every pair."""
    n = len(positions)
    count = 0
    for i in range(n):
        left = positions[i]
        for j in range(i + 1, n):
            if left > positions[j]:
                count += 1
    return count


def merge_sort(positions: Sequence[int]) -> int:
    """Count inversions with a bottom-up merge sort."""
    values = list(positions)
    buffer = [0] * len(values)
    count = 0
    width = 1
    n = len(values)
    while width < n:
        for start in range(0, n, 2 * width):
            middle = min(start + width, n)
            end = min(start + 2 * width, n)
            i, j, k = start, middle, start
            while i < middle and j < end:
                if values[i] <= values[j]:
                    buffer[k] = values[i]
                    i += 1
                else:
                    buffer[k] = values[j]
                    count += middle - i  # every remaining left value is larger
                    j += 1
                k += 1
            buffer[k : k + middle - i] = values[i:middle]
            k += middle - i
            buffer[k : k + end - j] = values[j:end]
        values, buffer = buffer, values
        width *= 2
    return count


def fenwick(positions: Sequence[int]) -> int:
    """Count inversions with a binary indexed (Fenwick) tree over positions."""
    n = len(positions)
    tree = [0] * (n + 1)
    count = 0
    for value in reversed(positions):
        index = value  # smaller positions already seen to the right are inversions
        while index > 0:
            count += tree[index]
            index -= index & -index
        index = value + 1
        while index <= n:
            tree[index] += 1
            index += index & -index
    return count


SAMPLE_PAIRS = 2_000


def sampled(positions: Sequence[int]) -> int:
    """Estimate inversions from ``SAMPLE_PAIRS`` random pairs (seeded), scaled to all pairs."""
    n = len(positions)
    total_pairs = n * (n - 1) // 2
    rng = random.Random(0)
    inverted = 0
    for _ in range(SAMPLE_PAIRS):
        i, j = sorted(rng.sample(range(n), 2))
        if positions[i] > positions[j]:
            inverted += 1
    return round(inverted / SAMPLE_PAIRS * total_pairs)


ALGORITHMS: dict[str, Callable[[Sequence[int]], int]] = {
    "pairwise": pairwise,
    "merge_sort": merge_sort,
    "fenwick": fenwick,
    "sampled": sampled,
}


def candidate_positions(size: int, shape: str, seed: int) -> list[int]:
    """The positions, in a candidate ranking, of ``size`` documents in reference order.

    ``shape`` describes how the candidate ranker disagrees with the reference:

    * ``similar``: a re-ranker that nudges results: ``size // 10`` swaps of neighbours;
    * ``shuffled``: an unrelated ranker (a seeded random permutation);
    * ``reversed``: the opposite order.

    Deterministic for a given ``(size, shape, seed)``.
    """
    rng = random.Random(seed)
    positions = list(range(size))
    if shape == "similar":
        for _ in range(size // 10):
            i = rng.randrange(size - 1)
            positions[i], positions[i + 1] = positions[i + 1], positions[i]
    elif shape == "shuffled":
        rng.shuffle(positions)
    elif shape == "reversed":
        positions.reverse()
    else:
        raise ValueError(f"unknown ranking shape {shape!r} (expected similar, shuffled, reversed)")
    return positions
