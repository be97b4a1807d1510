"""Row heights of a long, variable-height list: O(log n) offsets, lookups and updates.

A Fenwick tree over the heights answers "where does row r start" and "which row is at y"
without walking every row, so the chat view can hold 100k rows whose heights are mostly
estimates and replace an estimate by the measured height as each row is first shown.
No Qt here.
"""

from __future__ import annotations

from array import array


class HeightIndex:
    """Heights of ``n`` rows with prefix sums; ``widths[r]`` is the width row r was measured at (0: estimate)."""

    def __init__(self, count: int = 0, estimate: int = 60) -> None:
        self.estimate = estimate
        self.reset(count)

    def reset(self, count: int) -> None:
        """``count`` rows, every one at the estimate."""
        est = self.estimate
        self._h = array("q", [est]) * count
        self.widths = array("i", [0]) * count
        # node i covers (i & -i) rows: for i = 1..2^k-1 that "ruler" sequence is the one for
        # 1..2^(k-1)-1, the middle node, then the same again; built by doubling (copies in C: a
        # 100k-row reset on the GUI thread takes ~3 ms instead of ~15 ms for a Python loop)
        ruler, span = array("q"), 1
        while len(ruler) < count:
            ruler = ruler + array("q", [est * span]) + ruler
            span *= 2
        self._tree = array("q", [0]) + ruler[:count]

    def __len__(self) -> int:
        return len(self._h)

    @property
    def total(self) -> int:
        """Sum of every row's height."""
        return self.offset(len(self._h))

    def height(self, row: int) -> int:
        return self._h[row]

    def offset(self, row: int) -> int:
        """Where row ``row`` starts (the sum of the heights of rows before it)."""
        tree, i, out = self._tree, row, 0
        while i > 0:
            out += tree[i]
            i -= i & -i
        return out

    def set(self, row: int, height: int, width: int = 0) -> bool:
        """Set a row's height (measured at ``width``); True when the height changed."""
        self.widths[row] = width
        delta = height - self._h[row]
        if not delta:
            return False
        self._h[row] = height
        tree, n, i = self._tree, len(self._h), row + 1
        while i <= n:
            tree[i] += delta
            i += i & -i
        return True

    def row_at(self, y: int) -> int:
        """The row containing ``y`` (clamped to the first / last row); -1 when empty."""
        n = len(self._h)
        if n == 0:
            return -1
        if y < 0:
            return 0
        tree, pos, rem = self._tree, 0, y
        step = 1 << n.bit_length()
        while step:
            nxt = pos + step
            if nxt <= n and tree[nxt] <= rem:
                pos = nxt
                rem -= tree[nxt]
            step >>= 1
        return min(pos, n - 1)

    def append(self, height: int | None = None, width: int = 0) -> None:
        """Add one row at the end in O(log n)."""
        h = self.estimate if height is None else height
        n = len(self._h) + 1
        self._h.append(h)
        self.widths.append(width)
        low = n - (n & -n)
        self._tree.append(h + self.offset(n - 1) - self.offset(low))

    def pop(self) -> None:
        """Remove the last row (a node covers only rows at or before it, so nothing else moves)."""
        self._h.pop()
        self.widths.pop()
        self._tree.pop()

    def insert(self, row: int, count: int = 1) -> None:
        """Insert ``count`` estimated rows before ``row`` (O(n), for rare changes such as the divider)."""
        if row == len(self._h):
            for _ in range(count):
                self.append()
            return
        self._h[row:row] = array("q", [self.estimate]) * count
        self.widths[row:row] = array("i", [0]) * count
        self._rebuild()

    def remove(self, row: int, count: int = 1) -> None:
        """Remove rows ``row .. row+count-1``."""
        if row + count == len(self._h):
            for _ in range(count):
                self.pop()
            return
        del self._h[row : row + count]
        del self.widths[row : row + count]
        self._rebuild()

    def forget_widths(self) -> None:
        """Mark every height as an estimate again (kept as a good guess), e.g. after a font change."""
        self.widths = array("i", [0]) * len(self._h)

    def _rebuild(self) -> None:
        n = len(self._h)
        tree = array("q", [0]) + self._h
        for i in range(1, n + 1):
            j = i + (i & -i)
            if j <= n:
                tree[j] += tree[i]
        self._tree = tree
