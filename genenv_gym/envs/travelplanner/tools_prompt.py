"""The two-stage (tool-use) prompt of TravelPlanner, in our own words, with the official action syntax.

The official zero-shot ReAct agent (OSU-NLP-Group/TravelPlanner ``agents/prompts.py``,
``ZEROSHOT_REACT_INSTRUCTION``) asks the model to collect information with interleaved Thought / Action /
Observation steps, lists eight actions written ``ToolName[arguments]`` (FlightSearch, GoogleDistanceMatrix,
AccommodationSearch, RestaurantSearch, AttractionSearch, CitySearch, NotebookWrite, Planner) with one
example each, and ends with ``Query: <query>`` and the scratchpad of the steps so far. ``INSTRUCTION``
says the same in our words (same tool names, argument order and examples' shapes); ``render_react_prompt``
appends the query, the scratchpad and how to write the next step.
"""

from __future__ import annotations

#: The action names, in the order the official prompt lists them.
TOOL_NAMES = (
    "FlightSearch", "GoogleDistanceMatrix", "AccommodationSearch", "RestaurantSearch", "AttractionSearch",
    "CitySearch", "NotebookWrite", "Planner",
)  # fmt: skip

INSTRUCTION = """Gather the information needed to plan the trip in the query, one step at a time: each step \
is a Thought (your reasoning about what you know and what is still missing) followed by an Action, after \
which you receive an Observation. Collect valid information on transportation, meals, attractions and \
accommodation. Everything you want to use must be saved in the Notebook, because the Planner only sees the \
Notebook. Tools cannot be nested inside one another. There are 8 kinds of Action:
(1) FlightSearch[Departure City, Destination City, Date]:
Description: Looks up flights.
Parameters:
Departure City: where the flight leaves from.
Destination City: where the flight goes.
Date: the day of travel, written YYYY-MM-DD.
Example: FlightSearch[Boston, Denver, 2022-04-12] lists the flights from Boston to Denver on April 12, 2022.

(2) GoogleDistanceMatrix[Origin, Destination, Mode]:
Description: Gives the distance, travel time and cost of a trip by road between two cities.
Parameters:
Origin: the city the drive starts from.
Destination: the city the drive ends in.
Mode: how you travel, either 'self-driving' or 'taxi'.
Example: GoogleDistanceMatrix[Austin, Dallas, taxi] gives the distance, time and cost of a taxi from Austin \
to Dallas.

(3) AccommodationSearch[City]:
Description: Lists the places to stay in a city.
Parameter: City - the city you need accommodation in.
Example: AccommodationSearch[Portland] lists the rooms available in Portland.

(4) RestaurantSearch[City]:
Description: Lists the restaurants of a city.
Parameter: City - the city you want to eat in.
Example: RestaurantSearch[Chicago] lists the restaurants in Chicago.

(5) AttractionSearch[City]:
Description: Lists the attractions of a city.
Parameter: City - the city you want to visit.
Example: AttractionSearch[Miami] lists the attractions in Miami.

(6) CitySearch[State]
Description: Lists the cities of a state.
Parameter: State - the state whose cities you want.
Example: CitySearch[Texas] lists the cities in Texas.

(7) NotebookWrite[Short Description]
Description: Saves the result of the last FlightSearch, AccommodationSearch, AttractionSearch, \
RestaurantSearch or GoogleDistanceMatrix in the Notebook under a short label; call it right after each of \
those. The Planner sees only what is in the Notebook, so save everything you will need.
Parameters: Short Description - a short label for the saved data; the data itself is saved for you, so \
the label need not repeat it.
Example: NotebookWrite[Flights from Boston to Denver on 2022-04-12] saves the flights just found from \
Boston to Denver on 2022-04-12.

(8) Planner[Query]
Description: Writes a detailed trip plan from the query and everything saved in the Notebook.
Parameters:
Query: the user's query.
Example: Planner[Plan a 3-day trip from Boston to Denver] returns a 3-day trip plan.
Take as many steps as you need to gather enough information before you call the Planner.

Each Action calls exactly one tool, once, with nothing else on its line."""

#: How the agent writes one step (ours: the official agent asks for the thought and the action separately).
REPLY_FORMAT = (
    "Reply with the next step only: one line 'Thought: <your reasoning>' and then one line "
    "'Action: <one action>'."
)


def render_react_prompt(query: str, scratchpad: str = "") -> str:
    """The observation of a collecting step: instruction, the query, the steps so far, the reply format."""
    return f"{INSTRUCTION}\n\nQuery: {query}{scratchpad}\n\n{REPLY_FORMAT}"
