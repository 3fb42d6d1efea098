"""How much one client may move a curriculum the server hosts (serve/curricula.py).

A hosted curriculum learns from every client's records, so one client reporting made-up outcomes (many
wins on hard levels, say) could steer it for all. ``InfluenceBound`` decides, at the first record of each
group, whether the group counts:

- **share**: among the last ``window`` groups that counted, a client (an identity, serve/identity.py) may
  hold about its share: ``share`` of them when the operator sets one, else an equal share of the
  clients present now (those holding a joined session). A group past it is held back while another
  present client is recording with fewer: its records are answered, and dropped (the curriculum never
  sees them). A client alone is never held back, and once a client leaves its groups age out of the
  window, so its pull decays and the others' records decide again.
- **token holders only** (``--curriculum-token-holders-only``): only clients named by a per-client token
  count; the others' groups are held back.
- **disagreement**: each client's success per level is compared with the other clients' on the same
  levels (levels where both have at least ``MIN_RECORDS``); a client whose rate differs by more than
  ``DISAGREEMENT`` on average is flagged in the curriculum's state (``GET /curricula/<name>``); while fewer
  than half of the clients are flagged, a flagged client's groups are held back (the majority's outcomes
  decide; a better agent among weaker ones is held back too: ``hold_flagged=False`` only flags). A client
  stops being held once it agrees again (checked every 8 counted groups).
- **decay** (``--curriculum-half-life``): after every group it counts, the curriculum's level policy moves
  back toward its prior, so that the pull of every group halves over ``half_life`` counted groups
  (``CurriculumService(prior_half_life=...)``). The simulator learns only from groups in band (success
  near alpha); once a client that pulled the policy to levels where the others' groups all fail (or all
  succeed) stops, no group of theirs is in band, and without the decay the policy stayed where it was
  pulled. With it, the others' counted groups bring it back to the prior, and their in-band groups pull
  it where they belong, as they did before.
"""

from __future__ import annotations

import math
import threading
from collections import Counter, deque
from dataclasses import dataclass

#: Records a client and the others need on a level before their success there is compared.
MIN_RECORDS = 8
#: Mean gap of success rates (over the shared levels) past which a client is flagged.
DISAGREEMENT = 0.4


@dataclass(frozen=True)
class InfluencePolicy:
    """The operator's bounds on one client's influence (``--curriculum-share``,
    ``--curriculum-token-holders-only``)."""

    #: Groups remembered for the share.
    window: int = 64
    #: The largest share of the window one client may hold (None: an equal share of the active ones).
    share: float | None = None
    token_holders_only: bool = False
    #: Hold back the groups of a flagged client while fewer than half of the clients are flagged
    #: (``--curriculum-keep-flagged``: flag only).
    hold_flagged: bool = True
    #: Counted groups over which the pull of one group on the level policy halves (None: it never fades).
    half_life: float | None = 64

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"the influence window must be >= 1 group, got {self.window}")
        if self.half_life is not None and not self.half_life > 0:
            raise ValueError(f"--curriculum-half-life must be > 0 groups (0: off), got {self.half_life}")
        if self.share is not None and not 0 < self.share <= 1:
            raise ValueError(f"--curriculum-share must be in (0, 1], got {self.share}")


class InfluenceBound:
    """One hosted curriculum's account of who moved it (thread-safe)."""

    def __init__(self, policy: InfluencePolicy | None = None) -> None:
        self.policy = policy or InfluencePolicy()
        self._window: deque[str] = deque(maxlen=self.policy.window)
        self._joined: Counter[str] = Counter()
        self._held_back: Counter[str] = Counter()
        #: client -> level -> [successes, records] of its recent groups' records
        self._outcomes: dict[str, dict[int, list[int]]] = {}
        self._lock = threading.Lock()
        self._held_flagged: set[str] = set()
        self._admitted = 0

    def joined(self, client: str) -> None:
        with self._lock:
            self._joined[client] += 1

    def left(self, client: str) -> None:
        with self._lock:
            self._joined[client] -= 1
            if self._joined[client] <= 0:
                del self._joined[client]

    def admit(self, client: str) -> bool:
        """Whether a new group of ``client`` counts (then it is remembered in the window).

        Held back: a client at its share of the window that holds more of it than another present client
        recording (so that clients at their shares together still move the window, and a client whose
        sessions are idle or gone constrains no one)."""
        with self._lock:
            if self.policy.token_holders_only and not client.startswith("token:"):
                self._held_back[client] += 1
                return False
            if client in self._held_flagged:
                self._held_back[client] += 1
                return False
            present = set(self._joined) | {client}
            share = self.policy.share if self.policy.share is not None else 1 / len(present)
            allowed = max(1, math.ceil(share * self.policy.window))
            counts = Counter(self._window)
            mine = counts[client]
            # a client held as flagged records nothing now: its groups in the window only age out
            recording = present - self._held_flagged
            others = [counts[c] for c in recording if c != client and counts[c] > 0]
            if mine >= allowed and others and mine > min(others):
                self._held_back[client] += 1
                return False
            self._window.append(client)
            self._admitted += 1
            refresh = self.policy.hold_flagged and self._admitted % 8 == 0
        if refresh:
            self._refresh_held()
        return True

    def _refresh_held(self) -> None:
        """The flagged clients held back now: while fewer than half of the clients that recorded are."""
        flagged = set(self.flagged())
        with self._lock:
            minority = 2 * len(flagged) < len(self._outcomes)
            self._held_flagged = flagged if minority else set()

    def outcome(self, client: str, level: int, success: bool) -> None:
        """One counted record's outcome, for the disagreement check (bounded: a client's levels keep
        their last ``window`` records' worth, halved past it)."""
        with self._lock:
            counts = self._outcomes.setdefault(client, {}).setdefault(level, [0, 0])
            counts[0] += int(success)
            counts[1] += 1
            if counts[1] > 4 * self.policy.window:
                counts[0], counts[1] = counts[0] // 2, counts[1] // 2

    def flagged(self) -> dict[str, float]:
        """Clients whose success disagrees with the others' on the same levels: the mean gap."""
        with self._lock:
            outcomes = {c: {lv: list(v) for lv, v in levels.items()} for c, levels in self._outcomes.items()}
        found = {}
        for client, levels in outcomes.items():
            gaps = []
            for level, (wins, n) in levels.items():
                others = [o[level] for c, o in outcomes.items() if c != client and level in o]
                other_wins, other_n = sum(o[0] for o in others), sum(o[1] for o in others)
                if n >= MIN_RECORDS and other_n >= MIN_RECORDS:
                    gaps.append(abs(wins / n - other_wins / other_n))
            if gaps and sum(gaps) / len(gaps) > DISAGREEMENT:
                found[client] = round(sum(gaps) / len(gaps), 3)
        return found

    def state(self) -> dict[str, object]:
        """Who counted in the window, who was held back, who is flagged (``GET /curricula/<name>``)."""
        with self._lock:
            window = dict(Counter(self._window))
            held = dict(self._held_back)
        return {
            "window_groups": window,
            "held_back_groups": held,
            "flagged": self.flagged(),
            "held_as_flagged": sorted(self._held_flagged),
        }
