"""Client JSON is counted before it is decoded: a body of millions of tiny values costs the event loop a
few linear scans, never a decode; an honest body (long texts full of commas and quotes) passes."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")

from genenv_gym.serve.errors import TooLarge
from genenv_gym.serve.http_json import MAX_JSON_VALUES, decode_json

EIGHT_MIB = 8 * 1024 * 1024  # the default --max-body-bytes


def values_in(value) -> int:
    if isinstance(value, dict):
        return 1 + sum(values_in(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(values_in(v) for v in value)
    return 1


HOSTILE = {
    "empty objects": (b"{}", 3),
    "empty lists": (b"[]", 3),
    "short strings": (b'"a"', 4),
    "zeros": (b"0", 2),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_mebibytes_of_tiny_values_are_refused_in_a_fraction_of_a_second(kind):
    item, width = HOSTILE[kind]
    body = b'{"a": [' + b",".join([item] * (EIGHT_MIB // 2 // width)) + b"]}"
    begin = time.perf_counter()
    with pytest.raises(TooLarge) as refused:
        decode_json(body)
    assert time.perf_counter() - begin < 0.5  # decoding it took seconds and a gigabyte
    assert refused.value.code == "TOO_MANY_VALUES" and refused.value.status == 413
    with pytest.raises(TooLarge):
        decode_json(body.decode())  # a WebSocket text message


def test_long_texts_full_of_commas_quotes_and_brackets_pass():
    text = 'say "hi, [there]", {ok}, \\ ' * 200_000
    body = json.dumps({"action": {"text": text}}).encode()
    assert decode_json(body)["action"]["text"] == text


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(',[]{}"\\ab', max_size=6)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=6), st.dictionaries(st.text(',[{"a', max_size=3), inner, max_size=6)
    ),
    max_leaves=40,
)


@settings(max_examples=100, deadline=None)
@given(json_values, st.booleans())
def test_the_count_never_lets_more_values_through_and_never_refuses_a_third_of_the_limit(value, as_text):
    raw = json.dumps(value)
    data = raw if as_text else raw.encode()
    n = values_in(value)
    with pytest.raises(TooLarge):
        decode_json(data, n - 1)
    assert decode_json(data, 3 * n) == value
    assert MAX_JSON_VALUES >= 100_000
