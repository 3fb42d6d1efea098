"""Open GRPO groups counted across recorders: outcomes per proposal until the group's declared size."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field


@dataclass
class OpenGroup:
    """The outcomes recorded so far for one proposal, and the group size its recorders declared."""

    size: int
    outcomes: list[bool] = field(default_factory=list)


class GroupTable:
    """Open groups keyed by proposal id, at most ``max_open`` of them (the oldest is dropped past that).

    A group is closed, and handed back, when its ``size``-th outcome arrives. A group whose rollouts never
    all arrive (a worker died mid-group) stays open until ``max_open`` newer groups push it out; ``dropped``
    counts those. A group its player abandons (``discard``) leaves at once and counts as dropped too.
    """

    def __init__(self, max_open: int) -> None:
        if max_open < 1:
            raise ValueError(f"max_open must be >= 1, got {max_open}")
        self.max_open = max_open
        self.dropped = 0
        self._open: OrderedDict[str, OpenGroup] = OrderedDict()

    def __len__(self) -> int:
        return len(self._open)

    def __contains__(self, key: object) -> bool:
        return key in self._open

    def add(self, key: str, success: bool, size: int) -> list[bool] | None:
        """Record one outcome of ``key``'s group; the group's outcomes once it has ``size`` of them."""
        if size < 1:
            raise ValueError(f"group size must be >= 1, got {size}")
        group = self._open.get(key)
        if group is None:
            group = self._open[key] = OpenGroup(size)
            while len(self._open) > self.max_open:
                self._open.popitem(last=False)
                self.dropped += 1
        elif group.size != size:
            raise ValueError(f"group {key!r} was declared with size {group.size}, now {size}")
        group.outcomes.append(bool(success))
        if len(group.outcomes) < group.size:
            return None
        del self._open[key]
        return group.outcomes

    def discard(self, key: str) -> bool:
        """Drop ``key``'s open group (its player abandoned it); whether there was one."""
        if self._open.pop(key, None) is None:
            return False
        self.dropped += 1
        return True

    def state_dict(self) -> dict:
        return {
            "dropped": self.dropped,
            "open": [[key, g.size, list(g.outcomes)] for key, g in self._open.items()],
        }

    def load_state_dict(self, state: dict) -> None:
        self.dropped = int(state["dropped"])
        self._open = OrderedDict((key, OpenGroup(int(size), list(out))) for key, size, out in state["open"])
