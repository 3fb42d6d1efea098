"""Who a request is from, for every per-client share of the server (sessions, workers, connections, a
hosted curriculum's records).

A client is its token where the operator gives each client its own (``--client-tokens FILE``): the name
the file gives that token. Otherwise it is its address's network: an IPv4 address counted by its /24, an
IPv6 one by its /64 (``--client-prefix-v4``, ``--client-prefix-v6``), since a client that holds one
address usually holds its neighbours too. Behind a proxy the address is the proxy's unless
``--forwarded-allow-ips`` names it, and then what ``X-Forwarded-For`` says.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The identity of a request whose address is not known.
UNKNOWN = "unknown"


@dataclass(frozen=True)
class ClientIdentity:
    """How a request's client is named: per-client tokens (name -> token), else the address prefix."""

    prefix_v4: int = 24
    prefix_v6: int = 64
    tokens: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not 0 <= self.prefix_v4 <= 32 or not 0 <= self.prefix_v6 <= 128:
            raise ValueError(
                f"client prefixes must be in [0, 32] (IPv4) and [0, 128] (IPv6), got "
                f"{self.prefix_v4} and {self.prefix_v6}"
            )

    def of(self, address: str | None, authorization: str | None = None) -> str:
        """The client's name: ``token:<name>`` for a per-client token, else ``net:<prefix>``."""
        name = self.token_name(authorization)
        if name is not None:
            return f"token:{name}"
        return self.network(address)

    def network(self, address: str | None) -> str:
        """``net:<address>/<prefix>`` of ``address`` (the address itself where it is not an IP)."""
        if not address:
            return UNKNOWN
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return f"net:{address}"
        prefix = self.prefix_v4 if ip.version == 4 else self.prefix_v6
        return f"net:{ipaddress.ip_network(f'{ip}/{prefix}', strict=False)}"

    def token_name(self, authorization: str | None) -> str | None:
        """The name of the per-client token ``authorization`` carries (``Bearer <token>``), if any; every
        token is compared in constant time."""
        if not self.tokens or not authorization:
            return None
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer":
            return None
        found = None
        for name, token in self.tokens.items():
            if hmac.compare_digest(given.strip().encode(), token.encode()):
                found = name
        return found


def identity_of(connection: Any) -> str:
    """Who an HTTP request or WebSocket is from, by the app's ``ClientIdentity`` (``app.state.identity``)."""
    identity: ClientIdentity = getattr(connection.app.state, "identity", None) or ClientIdentity()
    address = connection.client.host if connection.client else None
    return identity.of(address, connection.headers.get("authorization"))


def read_client_tokens(path: str) -> dict[str, str]:
    """``--client-tokens FILE``: one ``NAME TOKEN`` a line (``#`` comments, blank lines skipped); ValueError
    naming the line for anything else, a repeated name or token, or a token shorter than 16 characters."""
    tokens: dict[str, str] = {}
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as error:
        raise ValueError(f"--client-tokens {path}: cannot read it ({error.strerror})") from None
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        parts = text.split()
        if len(parts) != 2:
            raise ValueError(f"--client-tokens {path}:{number}: expected 'NAME TOKEN'")
        name, token = parts
        if name in tokens or token in tokens.values():
            raise ValueError(f"--client-tokens {path}:{number}: {name!r} or its token is given twice")
        if len(token) < 16:
            raise ValueError(f"--client-tokens {path}:{number}: a token needs at least 16 characters")
        tokens[name] = token
    if not tokens:
        raise ValueError(f"--client-tokens {path}: the file names no client")
    return tokens
