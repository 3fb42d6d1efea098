"""k-hop questions over the synthetic world: a relation chain, its question, answer and oracle searches."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from genenv_gym.envs.bamboogle.world import ATTRIBUTES, RELATIONS, World
from genenv_gym.suggest import check_choice

ANSWER_TYPES = ("entity", "date", "number", "yesno")
MAX_HOPS = 4

#: relation -> noun-phrase templates (first: plain wording, second: paraphrase)
_PHRASES = {
    "founder": ("the founder of {p}", "the person who founded {p}"),
    "headquarters": ("the city where {p} has its headquarters", "the headquarters city of {p}"),
    "birthplace": ("the birthplace of {p}", "the city where {p} was born"),
    "country": ("the country of {p}", "the country in which {p} lies"),
    "capital": ("the capital of {p}", "the capital city of {p}"),
}
_ATTRIBUTE_QUESTIONS = {
    "birth_year": ("In what year was {p} born?", "What is the birth year of {p}?"),
    "founding_year": ("In what year was {p} founded?", "What year was {p} established in?"),
    "population": ("What is the population of {p}?", "How many people live in {p}?"),
    "area": ("What is the area of {p} in square kilometres?", "How many square kilometres does {p} cover?"),
}
#: words of an entity's passage that name the fact a hop reads (added to the oracle's query)
_QUERY_WORDS = {
    "founder": "founded",
    "headquarters": "headquarters",
    "birthplace": "born",
    "country": "city",
    "capital": "capital",
    "birth_year": "born",
    "founding_year": "founded",
    "population": "population",
    "area": "square kilometres",
}
#: relation pairs that always lead straight back to where they started (a country's capital's country);
#: a city's country's capital is another city unless the city is the capital (chains revisiting an entity
#: are resampled)
_CYCLES = {("capital", "country")}


@dataclass(frozen=True)
class Chain:
    """A start entity and the relations (then possibly one attribute) applied to it."""

    start: str
    steps: tuple[str, ...]
    answer_type: str
    candidate: str | None = None  # the entity a yes/no question compares the answer with


def resolve(world: World, chain: Chain) -> tuple[list[str], str]:
    """The entities visited by each hop (the start first) and the chain's answer, read from the world.

    Raises KeyError when a step does not apply (an unknown entity or a relation its kind lacks).
    """
    visited = [chain.start]
    current = world.entities[chain.start]
    for step in chain.steps:
        if step in ATTRIBUTES:
            value = current.attributes[step]
            return visited, str(value)
        current = world.entities[current.relations[step]]
        visited.append(current.name)
    answer = current.name
    if chain.answer_type == "yesno":
        return visited, "yes" if chain.candidate == answer else "no"
    return visited, answer


def question_text(chain: Chain, paraphrase: bool, kind_of_answer: str) -> str:
    """The question for a chain (``paraphrase`` picks the second wording of every template)."""
    form = int(paraphrase)
    phrase = chain.start
    last = chain.steps[-1]
    for step in chain.steps:
        if step in ATTRIBUTES:
            return _ATTRIBUTE_QUESTIONS[step][form].format(p=phrase)
        phrase = _PHRASES[step][form].format(p=phrase)
    if chain.answer_type == "yesno":
        return (f"Is {chain.candidate} {phrase}?", f"Is it true that {phrase} is {chain.candidate}?")[form]
    who = "Who" if RELATIONS[last][1] == "person" else "What"
    return (f"{who} is {phrase}?", f"Can you name {phrase}?")[form]


def oracle_queries(world: World, chain: Chain) -> list[str]:
    """One search per hop: the entity the hop starts from, and the word its passage uses for the fact."""
    visited, _ = resolve(world, chain)
    return [f"{name} {_QUERY_WORDS[step]}" for name, step in zip(visited, chain.steps, strict=False)]


def answer_types_for(hops: int) -> tuple[str, ...]:
    """The answer types a ``hops``-step chain can end in (no relation leads to a person or organisation
    after the first hop, so dates, which only people and organisations have, need at most 2 hops)."""
    return ANSWER_TYPES if hops <= 2 else tuple(t for t in ANSWER_TYPES if t != "date")


def sample_chain(world: World, hops: int, answer_type: str, rng: np.random.Generator) -> Chain:
    """A random chain of ``hops`` steps ending in an answer of ``answer_type``, from a real entity."""
    if not 1 <= hops <= MAX_HOPS:
        raise ValueError(f"hops must be in 1..{MAX_HOPS}, got {hops}")
    check_choice("answer_type", answer_type, ANSWER_TYPES)
    want = {"date": "date", "number": "number"}.get(answer_type)
    for _ in range(200):
        kind = str(rng.choice(["organisation", "person", "city", "country"]))
        steps: list[str] = []
        for _ in range(hops - 1):
            options = [r for r, (s, _) in RELATIONS.items() if s == kind]
            options = [r for r in options if not steps or (steps[-1], r) not in _CYCLES]
            if not options:
                break
            step = str(rng.choice(options))
            steps.append(step)
            kind = RELATIONS[step][1]
        if len(steps) != hops - 1:
            continue
        if want is not None:
            final = [a for a, (s, t) in ATTRIBUTES.items() if s == kind and t == want]
        else:
            final = [
                r
                for r, (s, _) in RELATIONS.items()
                if s == kind and (not steps or (steps[-1], r) not in _CYCLES)
            ]
        if not final:
            continue
        steps.append(str(rng.choice(final)))
        starts = world.real(_start_kind(steps))
        start = starts[int(rng.integers(len(starts)))].name
        visited, _ = resolve(world, Chain(start, tuple(steps), "entity"))
        if len(set(visited)) != len(visited):
            continue
        candidate = None
        if answer_type == "yesno":
            _, answer = resolve(world, Chain(start, tuple(steps), "entity"))
            if rng.random() < 0.5:
                candidate = answer
            else:
                pool = [e.name for e in world.real(world.entities[answer].kind) if e.name != answer]
                candidate = pool[int(rng.integers(len(pool)))]
        return Chain(start, tuple(steps), answer_type, candidate)
    raise RuntimeError(f"no {hops}-hop chain with a {answer_type} answer found in 200 tries")


def _start_kind(steps: list[str]) -> str:
    first = steps[0]
    return RELATIONS[first][0] if first in RELATIONS else ATTRIBUTES[first][0]
