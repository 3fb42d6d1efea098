"""Does a Sim-Bamboogle question ask what its chain resolves? The meaning check on LLM-written questions.

The question must name its start entity and no other entity of the world but a yes/no question's
candidate (naming a hop's entity or the answer gives the search away, or asks about something else); it
must not contain its answer (normalised, digits without thousands separators); every hop of the chain
must be worded in it (``founder``: founded, established, ...; ``birth_year``: born or birth), and no
relation or attribute outside the chain may be (``capital`` in a question whose chain has none). The
kind of question must fit the chain's end: a year for a date, a count or size for a number, a yes/no
form for ``yesno``, and a ``who`` question for a person.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from genenv_gym.envs.bamboogle.metrics import normalize_answer
from genenv_gym.envs.bamboogle.world import ATTRIBUTES, RELATIONS
from genenv_gym.text.polarity import asserted_text

#: step -> the words that ask for it (regex on lower-case text).
STEP_WORDS = {
    "founder": r"found\w*|establish\w*|creat\w*|start\w*|set up|originat\w*",
    "headquarters": r"headquarter\w*|hq|based|head office|main office|seat",
    "birthplace": r"born|birth\w*|native|hometown|home town",
    "country": r"country|countries|nation\w*|lies|located|situated|lie|sits|part of|belong\w*",
    "capital": r"capital\w*",
    "birth_year": r"born|birth\w*",
    "founding_year": r"found\w*|establish\w*|creat\w*|start\w*|set up|formed|inception|incorporat\w*",
    "population": r"population|populat\w*|inhabitants|residents|people live|live|living|populous|people",
    "area": r"area|square|km|kilomet\w*|size|large|big|cover\w*|span\w*|extent",
}
#: words that ask for one relation family only: a question using them must have one of the steps.
_EXCLUSIVE = {
    r"\bcapital\w*\b": ("capital",),
    r"\b(?:born|birth\w*|native|hometown)\b": ("birthplace", "birth_year"),
    r"\b(?:headquarter\w*|head office|hq)\b": ("headquarters",),
    r"\b(?:found\w*|establish\w*)\b": ("founder", "founding_year"),
    r"\b(?:population|inhabitants|residents|populous)\b": ("population",),
    r"\b(?:square kilomet\w*|area|km2|sq km)\b": ("area",),
}
_YEAR_ASK = re.compile(r"\b(?:year|when|date)\b")
_COUNT_ASK = re.compile(
    r"\b(?:how many|how much|how large|how big|what is the (?:population|area|size)|"
    r"number of|population|area|size)\b"
)
_YESNO_FORM = re.compile(
    r"^\s*(?:is|was|are|were|does|did|do|has|had)\b|\bis it (?:true|the case|correct)\b|"
    r"\btrue or false\b|\byes or no\b|\bwhether\b"
)
_WHO = re.compile(
    r"^\s*who\b|\bwho (?:is|was|founded|established|started|created)\b|\bwhich person\b|"
    r"\bwhose\b"
)
_DIGITS = re.compile(r"(?<=\d)[,\s](?=\d{3}\b)")


def _final_kind(steps: list[str]) -> str:
    last = steps[-1]
    if last in ATTRIBUTES:
        return ATTRIBUTES[last][1]
    return RELATIONS[last][1] if last in RELATIONS else ""


def _named(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", text) is not None


def question_problems(
    question: str,
    chain: Mapping,
    answer: str,
    entity_names: Iterable[str] = (),
) -> list[str]:
    """Where the question does not ask what its chain resolves (see the module docstring)."""
    text = " ".join(asserted_text(str(question)[:5000]).lower().split())
    start, steps = str(chain.get("start", "")), [str(s) for s in chain.get("steps") or ()]
    answer_type, candidate = str(chain.get("answer_type", "")), chain.get("candidate")
    problems: list[str] = []
    if not _named(text, start):
        problems.append(f"the question does not name its start entity {start!r}")
    allowed = {start.lower()} | ({str(candidate).lower()} if candidate else set())
    masked = text
    for name in sorted(allowed, key=len, reverse=True):
        masked = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", masked)
    others = sorted(n for n in entity_names if n.lower() not in allowed and _named(masked, n))
    if others:
        problems.append(f"the question names {others[0]!r}, which is not its start entity {start!r}")
    if answer_type != "yesno" and answer:
        plain = normalize_answer(_DIGITS.sub("", text))
        wanted = normalize_answer(_DIGITS.sub("", str(answer)))
        if wanted and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", plain):
            problems.append("the question contains its answer")
    for step in steps:
        words = STEP_WORDS.get(step)
        if words and not re.search(rf"\b(?:{words})\b", masked):
            problems.append(f"the question does not ask for the {step.replace('_', ' ')} hop of its chain")
    for words, owners in _EXCLUSIVE.items():
        if not set(owners) & set(steps) and re.search(words, masked):
            problems.append(
                f"the question asks for the {owners[0].replace('_', ' ')}, which its chain has not"
            )
    if steps:
        problems += _kind_problems(masked, steps, answer_type)
    return problems


def _kind_problems(text: str, steps: list[str], answer_type: str) -> list[str]:
    kind = _final_kind(steps)
    yesno = bool(_YESNO_FORM.search(text))
    if answer_type == "yesno" and not yesno:
        return ["the question is not a yes/no question, its answer is yes or no"]
    if answer_type != "yesno" and yesno and not re.match(r"\s*(?:can|could|would|will)\b", text):
        return [f"the question asks yes or no, its answer is a {kind}"]
    if answer_type == "yesno":
        return []
    if kind == "date" and not _YEAR_ASK.search(text):
        return ["the question does not ask for a year, its answer is one"]
    if kind != "date" and re.search(r"\byears?\b|^\s*when\b", text):
        return [f"the question asks for a year, its answer is a {kind}"]
    if kind == "number" and not _COUNT_ASK.search(text):
        return ["the question does not ask for a number, its answer is one"]
    if kind == "person" and not _WHO.search(text) and "person" not in text and "founder" not in text:
        return ["the question does not ask who, its answer is a person"]
    if kind not in ("person", "") and re.match(r"\s*who\b", text):
        return [f"the question asks who, its answer is a {kind}"]
    return []
