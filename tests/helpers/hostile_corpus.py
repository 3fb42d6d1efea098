"""A fixed corpus of hostile actions: long runs, deep nesting, huge numbers, and every action format's slots
(BFCL calls, API-Bank calls, JSON tool calls, Search-R1 tags, ALFWorld commands, TravelPlanner tools and
plans) filled with them. Each action is at most 100,000 characters (the action spaces' limit)."""

from __future__ import annotations

SIZE = 90_000  # a filler's length: every action below stays under 100,000 characters

FILLERS = {
    "run": "a" * SIZE,
    "digits": "9" * SIZE,
    "dots": ("a." * (SIZE // 2))[:SIZE],
    "brackets": "[" * (SIZE // 2) + "]" * (SIZE // 2),
    "parens": "(" * SIZE,
    "braces": "{" * (SIZE // 2) + "}" * (SIZE // 2),
    "calls": ("f()" * (SIZE // 3))[:SIZE],
    "quotes": ("a='" * (SIZE // 3))[:SIZE],
    "keys": ("a=[" * (SIZE // 3))[:SIZE],
    "tags": ("<answer>" * (SIZE // 8))[:SIZE],
    "unicode": ("—侓\u202e\ud800\x00" * (SIZE // 5))[:SIZE],
}

#: Action formats, ``{}`` being the slot.
FORMATS = (
    "{}",
    "[f(a={})]",
    "[f(a='{}')]",
    "[QueryBalance({})]",
    "[SendEmail(receiver='{}@', subject='s', content='c')]",
    '[{"name": "f", "arguments": {"a": "{}"}}]',
    "<search>{}</search>",
    "<answer>{}</answer>",
    "<answer>{}",
    "go to {}",
    "Thought: {}\nAction: FlightSearch[{}]",
    "Day 1:\nCurrent City: {}\nTransportation: {}",
)

HUGE_NUMBERS = (
    "[cd(folder=(10**4000)*(10**4000)*(10**4000))]",
    "[f(a=" + "9" * 50_000 + ")]",
    "[f(a=1e999999, b=-1e999999, c=" + "1" * 5_000 + ".5)]",
    '[{"name": "f", "arguments": {"a": ' + "9" * 50_000 + "}}]",
    "[f(a=" + "[" * 20_000 + "1" + "]" * 20_000 + ")]",
)


def hostile_actions() -> list[tuple[str, str]]:
    """``(name, action)`` pairs: every filler in every format (fillers cut so the action fits), then the
    huge numbers and nestings."""
    actions = []
    for filler_name, filler in FILLERS.items():
        for number, template in enumerate(FORMATS):
            slots = template.count("{}")
            room = (99_000 - len(template)) // slots
            actions.append((f"{filler_name}/{number}", template.replace("{}", filler[:room])))
    actions.extend((f"numbers/{i}", action) for i, action in enumerate(HUGE_NUMBERS))
    return actions
