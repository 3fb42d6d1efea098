"""What one trainer step's recorded episodes and completed groups say about the curriculum."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from genenv_gym.curriculum import CurriculumConfig

#: The prefix of every diagnostic's name (as trainers' metric loggers group them).
PREFIX = "curriculum/"


@dataclass
class StepDiagnostics:
    """Counts over one step (since the last ``StepDiagnostics.report``).

    A group has a learning signal when its outcomes differ (GRPO's advantages are all zero otherwise); it
    is too easy when every rollout succeeded, too hard when none did; in band when ``|p - alpha| <= k_min``.
    """

    records: int = 0
    validation_records: int = 0
    groups: int = 0
    with_signal: int = 0
    too_easy: int = 0
    too_hard: int = 0
    in_band: int = 0
    simulator_updates: int = 0
    level_successes: dict[int, int] = field(default_factory=dict)
    level_attempts: dict[int, int] = field(default_factory=dict)

    def add_record(self, level: int, success: bool, validation: bool) -> None:
        if validation:
            self.validation_records += 1
            return
        self.records += 1
        self.level_attempts[level] = self.level_attempts.get(level, 0) + 1
        self.level_successes[level] = self.level_successes.get(level, 0) + int(success)

    def add_group(self, outcomes: Sequence[bool], curriculum: CurriculumConfig, updated: bool) -> None:
        successes = sum(outcomes)
        self.groups += 1
        self.too_easy += successes == len(outcomes)
        self.too_hard += successes == 0
        self.with_signal += 0 < successes < len(outcomes)
        self.in_band += curriculum.in_band(successes / len(outcomes))
        self.simulator_updates += bool(updated)

    def report(self, open_groups: int, dropped_groups: int) -> dict[str, float]:
        """The step's diagnostics as ``curriculum/<name>`` floats (shares are 0 when no group completed)."""
        share = (lambda count: count / self.groups) if self.groups else (lambda count: 0.0)
        out = {
            "records": float(self.records),
            "validation_records": float(self.validation_records),
            "groups": float(self.groups),
            "signal_share": share(self.with_signal),
            "too_easy_share": share(self.too_easy),
            "too_hard_share": share(self.too_hard),
            "in_band_share": share(self.in_band),
            "simulator_updated": float(self.simulator_updates > 0),
            "simulator_updates": float(self.simulator_updates),
            "open_groups": float(open_groups),
            "dropped_groups": float(dropped_groups),
        }
        for level in sorted(self.level_attempts):
            out[f"level_{level}_success"] = self.level_successes[level] / self.level_attempts[level]
        return {PREFIX + name: value for name, value in out.items()}
