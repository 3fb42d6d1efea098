"""One registered env id: its entry point, kwargs and the one-line description ``genenv list`` prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EnvEntry:
    """One registered env id."""

    id: str
    entry_point: str
    description: str
    kwargs: dict[str, Any] = field(default_factory=dict)
