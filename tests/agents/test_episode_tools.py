"""An episode's tools for MCP clients: where they come from, their JSON Schemas, and the call formats that
write a call as the action text (and read it back, on any text)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from genenv_gym.agents.episode_tools import ACT, json_schema, mcp_tools, tool_action, tool_specs
from genenv_gym.envs.bamboogle.call_format import SEARCH_CALLS
from genenv_gym.envs.travelplanner.call_format import TRAVEL_CALLS, TRAVEL_TOOLS
from genenv_gym.task import Task


class Named:
    def __init__(self, name: str, action_format: str | None = None) -> None:
        self.name = name
        self.action_format = action_format


def task_with_tools(tools: list[dict]) -> Task:
    return Task(id="t", domain="bfcl", messages=[{"role": "user", "content": "q"}], tools=tools)


FUNCTION = {
    "name": "get_weather",
    "description": "the weather",
    "parameters": {
        "type": "dict",
        "properties": {"city": {"type": "string"}, "days": {"type": "float"}, "opts": {"type": "any"}},
        "required": ["city"],
    },
}


def test_a_tasks_functions_are_its_tools_in_json_schema_and_a_call_is_the_domains_action():
    task = task_with_tools([FUNCTION])
    tools = mcp_tools(Named("bfcl"), task)
    assert [t["name"] for t in tools] == ["get_weather", ACT]
    schema = tools[0]["inputSchema"]
    assert schema["type"] == "object" and schema["properties"]["days"] == {"type": "number"}
    assert schema["properties"]["opts"] == {} and schema["required"] == ["city"]
    assert tool_action(Named("bfcl"), task, "get_weather", {"city": "Oslo"}) == "[get_weather(city='Oslo')]"
    assert tool_action(Named("bfcl", "json"), task, "get_weather", {"city": "Oslo"}).startswith("[{")
    assert tool_action(Named("bfcl"), task, ACT, {"text": "[f()]"}) == "[f()]"
    with pytest.raises(ValueError, match="get_weather"):
        tool_action(Named("bfcl"), task, "nope", {})


def test_a_domain_without_task_tools_offers_its_declared_ones_and_a_one_line_domain_only_act():
    assert [s["name"] for s in tool_specs(Named("bamboogle"), None)] == ["search", "answer", ACT]
    names = [s["name"] for s in tool_specs(Named("travelplanner_tools"), None)]
    assert names == [t["name"] for t in TRAVEL_TOOLS] + [ACT]
    assert [s["name"] for s in tool_specs(Named("digits"), None)] == [ACT]
    assert tool_action(Named("bamboogle"), None, "search", {"query": "who"}) == "<search> who </search>"
    flight = {"departure_city": "Boston", "destination_city": "Denver", "date": "2022-04-12"}
    assert tool_action(Named("travelplanner_tools"), None, "FlightSearch", flight) == (
        "FlightSearch[Boston, Denver, 2022-04-12]"
    )


def test_an_episodes_own_tools_win_over_its_tasks():
    class Episode:
        def __init__(self) -> None:
            self.tool_specs = [FUNCTION, {**FUNCTION, "name": "held_out"}]

    specs = tool_specs(Named("bfcl"), task_with_tools([FUNCTION]), Episode())
    assert [s["name"] for s in specs] == ["get_weather", "held_out", ACT]


def test_json_schema_keeps_json_schema_types_and_drops_unknown_ones():
    converted = json_schema({"type": "tuple", "items": {"type": "int"}})
    assert converted == {"type": "array", "items": {"type": "integer"}}
    assert json_schema({"type": "HashMap", "description": "d"}) == {"description": "d"}


WORD = (
    st.text(st.characters(blacklist_characters=",[]\n\r", blacklist_categories=("Cs",)), min_size=1)
    .map(str.strip)
    .filter(bool)
)


@given(st.text())
def test_the_call_formats_read_any_text_without_raising(text):
    for calls in (TRAVEL_CALLS.from_action(text, None), SEARCH_CALLS.from_action(text, None)):
        assert calls is None or (len(calls) == 1 and isinstance(calls[0]["arguments"], dict))


@given(WORD, WORD, WORD)
def test_a_travel_call_reads_back_as_itself(a, b, c):
    call = {"name": "GoogleDistanceMatrix", "arguments": {"origin": a, "destination": b, "mode": c}}
    assert TRAVEL_CALLS.from_action(TRAVEL_CALLS.to_action([call], None), None) == [call]


@given(st.text(st.characters(blacklist_characters="<>", blacklist_categories=("Cs",))).map(str.strip))
def test_a_search_call_reads_back_as_itself(query):
    call = {"name": "search", "arguments": {"query": query}}
    assert SEARCH_CALLS.from_action(SEARCH_CALLS.to_action([call], None), None) == [call]
