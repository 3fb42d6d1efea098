"""The sole-planning prompt of TravelPlanner, in our own words, with the official output format.

The official direct planner (OSU-NLP-Group/TravelPlanner ``agents/prompts.py``, ``planner_agent_prompt``)
asks for a day-by-day plan: a ``Day N:`` header, then one ``Field: value`` line for each of Current City,
Transportation, Breakfast, Attraction, Lunch, Dinner and Accommodation; entities written "Name, City";
``-`` for anything not needed; "from A to B" in Current City on a travel day. It shows one worked example
and ends with ``Given information: <reference information>``, ``Query: <query>`` and ``Travel Plan:``.
The instruction and the example below say the same in our words (the example's places are fictional).
"""

from __future__ import annotations

INSTRUCTION = (
    "You are an expert travel planner. Using only the information provided below and the query, write a "
    "detailed travel plan that names concrete flight numbers (such as F0123456), restaurants and "
    "accommodations. Everything in your plan must come from the provided information, the plan must make "
    "common sense, and it must follow the format of the example exactly. Write '-' for anything that is "
    "not needed; for instance, nothing has to be planned once you are back in the departure city. On a "
    "day when you travel from one city to another, write the Current City as 'from A to B', as the "
    "example does."
)

EXAMPLE = """***** Example *****
Query: Please plan a 3-day trip for 2 people from Oakridge to Lakeside, March 2nd to March 4th, 2022, \
with a budget of $2,400.
Travel Plan:
Day 1:
Current City: from Oakridge to Lakeside
Transportation: Flight Number: F1234567, from Oakridge to Lakeside, Departure Time: 07:15, \
Arrival Time: 09:05
Breakfast: -
Attraction: Lakeside Botanical Garden, Lakeside;
Lunch: The Blue Heron Diner, Lakeside
Dinner: Saffron Table, Lakeside
Accommodation: Bright Studio by the Pier, Lakeside

Day 2:
Current City: Lakeside
Transportation: -
Breakfast: Morning Crumb Bakery, Lakeside
Attraction: Lakeside Maritime Museum, Lakeside;Harbor Lighthouse, Lakeside;
Lunch: Noodle Yard, Lakeside
Dinner: Ember & Oak Grill, Lakeside
Accommodation: Bright Studio by the Pier, Lakeside

Day 3:
Current City: from Lakeside to Oakridge
Transportation: Flight Number: F7654321, from Lakeside to Oakridge, Departure Time: 18:40, \
Arrival Time: 20:30
Breakfast: Pier Side Cafe, Lakeside
Attraction: Old Town Square, Lakeside;
Lunch: Little Lisbon Kitchen, Lakeside
Dinner: -
Accommodation: -
***** Example Ends *****"""


def render_prompt(reference_information: str, query: str) -> str:
    """The observation: instruction, example, then the reference information and the query."""
    given = f"Given information: {reference_information}\nQuery: {query}\nTravel Plan:"
    return f"{INSTRUCTION}\n\n{EXAMPLE}\n\n{given}"
