"""Who a request is from: its per-client token's name, else its address's network (/24, /64)."""

from __future__ import annotations

import pytest

from genenv_gym.serve.identity import ClientIdentity, read_client_tokens


def test_addresses_of_one_network_are_one_client():
    identity = ClientIdentity()
    assert identity.of("127.0.0.10") == identity.of("127.0.0.15") == "net:127.0.0.0/24"
    assert identity.of("127.0.1.10") != identity.of("127.0.0.10")
    assert identity.of("2001:db8::1") == identity.of("2001:db8::ffff:1") == "net:2001:db8::/64"
    assert identity.of("2001:db8:0:1::1") != identity.of("2001:db8::1")
    assert ClientIdentity(prefix_v4=32).of("127.0.0.10") != ClientIdentity(prefix_v4=32).of("127.0.0.15")
    assert identity.of(None) == "unknown"
    with pytest.raises(ValueError, match="prefixes"):
        ClientIdentity(prefix_v4=33)


def test_a_per_client_token_names_the_client_wherever_it_connects_from(tmp_path):
    path = tmp_path / "tokens"
    path.write_text("# name token\nalice aaaaaaaaaaaaaaaaaaaa\nbob   bbbbbbbbbbbbbbbbbbbb\n")
    identity = ClientIdentity(tokens=read_client_tokens(str(path)))
    assert identity.of("10.0.0.1", "Bearer aaaaaaaaaaaaaaaaaaaa") == "token:alice"
    assert identity.of("10.9.9.9", "Bearer aaaaaaaaaaaaaaaaaaaa") == "token:alice"
    assert identity.of("10.0.0.1", "Bearer bbbbbbbbbbbbbbbbbbbb") == "token:bob"
    assert identity.of("10.0.0.1", "Bearer wrong") == "net:10.0.0.0/24"
    for text, problem in (("alice short", "16 characters"), ("a b c", "NAME TOKEN"), ("", "names no client")):
        path.write_text(text)
        with pytest.raises(ValueError, match=problem):
            read_client_tokens(str(path))
