"""Replies of an LLM writing BFCL tasks, for the LLM simulator's tests: well-formed ones and the functions
they use."""

import json

WEATHER = {
    "name": "weather.get_current",
    "description": "Get the current weather in a city.",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string", "description": "Name of the city."},
            "unit": {"type": "string", "description": "Temperature unit.", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
}
CONVERT = {
    "name": "finance.convert_currency",
    "description": "Convert an amount between currencies.",
    "parameters": {
        "type": "dict",
        "properties": {
            "amount": {"type": "float", "description": "Amount to convert."},
            "from_currency": {"type": "string", "description": "ISO code to convert from."},
            "to_currency": {"type": "string", "description": "ISO code to convert to."},
        },
        "required": ["amount", "from_currency", "to_currency"],
    },
}


def reply(category="simple_python", question=None, functions=None, ground_truth="default", **extra):
    data = {
        "category": category,
        "question": question or "What is the weather like in Lisbon right now, in celsius?",
        "functions": functions if functions is not None else [WEATHER],
        "ground_truth": (
            [{"weather.get_current": {"city": ["Lisbon"], "unit": ["celsius"]}}]
            if ground_truth == "default"
            else ground_truth
        ),
        **extra,
    }
    return json.dumps(data)


GOOD = [
    reply(),
    reply(
        "parallel",
        "Convert 250 US dollars to euros, and also 80 British pounds to Japanese yen.",
        [CONVERT],
        [
            {
                "finance.convert_currency": {
                    "amount": [250.0],
                    "from_currency": ["USD"],
                    "to_currency": ["EUR"],
                }
            },
            {
                "finance.convert_currency": {
                    "amount": [80.0],
                    "from_currency": ["GBP"],
                    "to_currency": ["JPY"],
                }
            },
        ],
    ),
    # A factual question: a request for a poem or a story, valid as an irrelevance question, reads as a
    # request for something other than the task to the off-task screen (docs/training_llm_simulator.md).
    reply("irrelevance", "How tall is the highest mountain in Africa, in metres?", [CONVERT], None),
    reply(
        "multiple",
        "I am flying to Reykjavik tomorrow; how cold is it there in fahrenheit?",
        [CONVERT, WEATHER],
        [{"weather.get_current": {"city": ["Reykjavik"], "unit": ["fahrenheit"]}}],
    ),
]
