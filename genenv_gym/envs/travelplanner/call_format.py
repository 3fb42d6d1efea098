"""TravelPlanner-Tools' eight tools as tool specs, and a call as the ``ToolName[arguments]`` action the
official loop reads (the arguments in the order the tool takes them, comma-separated)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.envs.travelplanner.tools_episode import parse_action, split_reply


def _tool(name: str, description: str, **parameters: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {key: {"type": "string", "description": text} for key, text in parameters.items()},
            "required": list(parameters),
        },
    }


#: The tools an episode offers a tool-calling client (tools_prompt.INSTRUCTION describes them to a model).
TRAVEL_TOOLS = (
    _tool(
        "FlightSearch",
        "Looks up flights.",
        departure_city="where the flight leaves from",
        destination_city="where the flight goes",
        date="the day of travel, YYYY-MM-DD",
    ),
    _tool(
        "GoogleDistanceMatrix",
        "Distance, travel time and cost of a trip by road between two cities.",
        origin="the city the drive starts from",
        destination="the city the drive ends in",
        mode="'self-driving' or 'taxi'",
    ),
    _tool("AccommodationSearch", "Lists the places to stay in a city.", city="the city"),
    _tool("RestaurantSearch", "Lists the restaurants of a city.", city="the city"),
    _tool("AttractionSearch", "Lists the attractions of a city.", city="the city"),
    _tool("CitySearch", "Lists the cities of a state.", state="the state"),
    _tool(
        "NotebookWrite",
        "Saves the result of the last search in the Notebook under a short label.",
        short_description="a short label for the saved data",
    ),
    _tool("Planner", "The trip plan from the query and the Notebook (the last step).", query="the query"),
)

_ORDER = {tool["name"]: list(tool["parameters"]["properties"]) for tool in TRAVEL_TOOLS}


class TravelCalls:
    """A call as ``ToolName[a, b, c]`` (the first call of a list: one tool per step)."""

    def to_action(self, calls: Sequence[Mapping[str, Any]], action_format: str | None) -> str:
        if not calls:
            return ""
        name = str(calls[0].get("name", ""))
        arguments = calls[0].get("arguments")
        arguments = arguments if isinstance(arguments, Mapping) else {}
        keys = _ORDER.get(name, list(arguments))
        return f"{name}[{', '.join(str(arguments.get(k, '')) for k in keys)}]"

    def from_action(self, action: str, action_format: str | None) -> list[dict[str, Any]] | None:
        name, text = parse_action(split_reply(action)[1])
        if name is None or name not in _ORDER:
            return None
        keys = _ORDER[name]
        values = [v.strip() for v in text.split(",", len(keys) - 1)] if len(keys) > 1 else [text.strip()]
        if len(values) != len(keys):
            return None
        return [{"name": name, "arguments": dict(zip(keys, values, strict=True))}]


TRAVEL_CALLS = TravelCalls()
