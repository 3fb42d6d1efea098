"""One registered env id: its entry point, kwargs and the one-line description ``genenv list`` prints."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from genenv_gym.registry.client_params import ClientParams


@dataclass(frozen=True)
class EnvEntry:
    """One registered env id.

    ``client``: what a remote client of ``genenv serve`` may set (``genenv_gym.registry.client_params``);
    nothing but the seed unless declared.
    """

    id: str
    entry_point: str
    description: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    client: ClientParams = field(default_factory=ClientParams)
