"""Kendall tau distance: the number of document pairs two rankings order differently.

All three implementations take ``positions``: for each document in the reference
ranking's order, its position in the candidate ranking (a permutation of
``0..n-1``). The distance is then the number of inversions of ``positions``:
pairs ``i < j`` with ``positions[i] > positions[j]``; it ranges from ``0``
(same order) to ``n * (n - 1) / 2`` (reversed order).

* :func:`pairwise` compares every pair: ``O(n^2)``, the obvious baseline;
* :func:`merge_sort` counts inversions while merge-sorting: ``O(n log n)``;
* :func:`fenwick` sweeps from the right with a binary indexed tree: ``O(n log n)``;
* :func:`adjacent_only` counts only neighbours in the wrong order: ``O(n)``, the
  fastest, and wrong whenever documents moved further than one place.
"""

from __future__ import annotations

import itertools
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


def adjacent_only(positions: Sequence[int]) -> int:
    """A shortcut: count only neighbours in the wrong order (``O(n)``).

    Exact when the rankings differ by a few non-overlapping neighbour swaps (a
    gentle re-ranker); far too low for anything else.
    """
    return sum(1 for left, right in itertools.pairwise(positions) if left > right)


ALGORITHMS: dict[str, Callable[[Sequence[int]], int]] = {
    "pairwise": pairwise,
    "merge_sort": merge_sort,
    "fenwick": fenwick,
    "adjacent_only": adjacent_only,
}


def candidate_positions(size: int, shape: str, seed: int) -> list[int]:
    """The positions, in a candidate ranking, of ``size`` documents in reference order.

    ``shape`` describes how the candidate ranker disagrees with the reference:

    * ``similar``: a re-ranker that nudges results: ``size // 10`` disjoint swaps of
      neighbours;
    * ``shuffled``: an unrelated ranker (a seeded random permutation);
    * ``reversed``: the opposite order.

    Deterministic for a given ``(size, shape, seed)``.
    """
    rng = random.Random(seed)
    positions = list(range(size))
    if shape == "similar":
        for i in rng.sample(range(0, size - 1, 2), size // 10):
            positions[i], positions[i + 1] = positions[i + 1], positions[i]
    elif shape == "shuffled":
        rng.shuffle(positions)
    elif shape == "reversed":
        positions.reverse()
    else:
        raise ValueError(f"unknown ranking shape {shape!r} (expected similar, shuffled, reversed)")
    return positions
