"""Does a BFCL task mean what its reference answer does? The meaning check on LLM-written tasks.

Three tests, each measured on the official records (``benchmarks/semantic_screen.py``):

- values (``grounding``): every required argument's value is stated or implied in the question, and no
  argument's enum value is contradicted by it;
- use: the question asks for what the called function does: when several functions are offered, the
  called one must not meet the question's words (four-letter stems) clearly less often than another
  offered function does (its name, description and parameters; a call to the wrong one). A lone
  function meeting none of the question's words is not rejected: the official records ask for
  currency conversions in words no description uses ("How many Canadian dollars ...");
- order: two arguments of one call whose values are each written right after the other's name in the
  question ("base 5 and height 10" for ``base=10, height=5``) are swapped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from genenv_gym.envs.bfcl.grounding import ungrounded_arguments
from genenv_gym.llm_simulator.unicode_skeleton import skeleton
from genenv_gym.text.polarity import asserted_text, competing_values
from genenv_gym.text.stop_words import FUNCTION_WORDS

_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STOP = FUNCTION_WORDS | frozenset(
    [
        "about",
        "all",
        "also",
        "any",
        "based",
        "calculate",
        "calculates",
        "can",
        "compute",
        "computes",
        "could",
        "default",
        "did",
        "do",
        "does",
        "each",
        "else",
        "every",
        "fetch",
        "fetches",
        "find",
        "finds",
        "get",
        "gets",
        "given",
        "had",
        "has",
        "have",
        "how",
        "i",
        "if",
        "into",
        "list",
        "lists",
        "may",
        "me",
        "might",
        "my",
        "no",
        "not",
        "one",
        "optional",
        "our",
        "over",
        "parameter",
        "parameters",
        "please",
        "provided",
        "required",
        "retrieve",
        "retrieves",
        "return",
        "returns",
        "should",
        "some",
        "specific",
        "specified",
        "than",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "those",
        "two",
        "type",
        "under",
        "us",
        "use",
        "used",
        "using",
        "we",
        "what",
        "when",
        "where",
        "whether",
        "which",
        "who",
        "will",
        "would",
        "yes",
        "you",
        "your",
    ]
)
#: Words of a name or description that a question must meet (stems of this many letters).
_STEM = 4
#: A called function meeting the question in fewer stems than the best offered one by more than this
#: is the wrong function for it.
_MARGIN = 1


def content_stems(text: str) -> set[str]:
    """The content words of ``text`` as stems (identifiers split at dots, underscores and camel case)."""
    text = _CAMEL.sub(" ", skeleton(text[:20_000]))
    return {w[:_STEM] for w in _SPLIT.split(text.lower()) if len(w) >= 3 and w not in _STOP}


def use_problems(question: str, functions: Sequence[Mapping[str, Any]], called: Sequence[str]) -> list[str]:
    """The called function, when another offered one matches the question clearly better."""
    words = content_stems(question)
    overlap = {
        str(f.get("name")): len(content_stems(f"{f.get('name', '')} {f.get('description', '')}") & words)
        for f in functions
        if isinstance(f, Mapping)
    }
    best = max(overlap.values(), default=0)
    problems = []
    for name in dict.fromkeys(called):
        score = overlap.get(name)
        if score is None or len(set(called)) != 1:
            continue
        if best - score > _MARGIN or (best >= 2 and best > 2 * score):
            better = max(overlap, key=lambda n: overlap[n])
            problems.append(f"the question asks for what {better} does, not {name}")
            continue
        rival = _named_rival(name, [n for n in overlap if overlap[n] > score], words)
        if rival is not None:
            problems.append(f"the question names what {rival} does, not {name}")
    return problems


def _named_rival(name: str, names: Sequence[str], words: set[str]) -> str | None:
    """Another offered function whose own name words (those the called one's name lacks) the question
    uses while it uses none of the called one's own (``stats.median`` asked, ``stats.mean`` called);
    ``names``: the functions that meet the question more than the called one."""
    mine = content_stems(name)
    for other in names:
        if other == name:
            continue
        theirs = content_stems(other)
        if (theirs - mine) & words and not (mine - theirs) & words:
            return other
    return None


def _positions(norm: str, needle: str) -> list[int]:
    return [m.start() for m in re.finditer(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", norm)]


def _value_text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return str(int(value)) if float(value).is_integer() else f"{value:g}"
    if isinstance(value, str) and len(value) > 1:
        return " ".join(_SPLIT.split(skeleton(value).lower())).strip() or None
    return None


def _nearest(positions: Sequence[int], at: int) -> int:
    return min(abs(p - at) for p in positions)


def swap_problems(question: str, ground_truth: Sequence[Mapping[str, Any]]) -> list[str]:
    """Pairs of arguments whose values the question attaches to each other's names."""
    norm = " ".join(_SPLIT.split(skeleton(question[:20_000]).lower().replace(",", "")))
    problems = []
    several = len(ground_truth) > 1  # values of other calls repeat: each value must occur once
    for call in ground_truth:
        if not isinstance(call, Mapping):
            continue
        for function, params in call.items():
            if not isinstance(params, Mapping):
                continue
            named: dict[str, tuple[int, list[int]]] = {}
            for param, allowed in params.items():
                options = allowed if isinstance(allowed, list) else [allowed]
                value = next((_value_text(o) for o in options if _value_text(o)), None)
                label = " ".join(_SPLIT.split(str(param).lower())).strip()
                if value is None or not label:
                    continue
                at_name, at_value = _positions(norm, label), _positions(norm, value)
                if len(at_name) == 1 and 1 <= len(at_value) <= (1 if several else 8):
                    named[param] = (at_name[0], at_value)
            params_named = list(named)
            for i, a in enumerate(params_named):
                for b in params_named[i + 1 :]:
                    (na, va), (nb, vb) = named[a], named[b]
                    if set(va) & set(vb):
                        continue
                    own = _nearest(va, na) + _nearest(vb, nb)
                    crossed_a, crossed_b = _nearest(va, nb), _nearest(vb, na)
                    if crossed_a < 40 and crossed_b < 40 and (crossed_a + crossed_b) * 3 < own:
                        problems.append(f"the question gives {function}'s {a} and {b} each other's values")
    return problems


def task_problems(
    category: str, question: str, functions: Sequence[Mapping[str, Any]], ground_truth: Any
) -> list[str]:
    """Every meaning problem of a BFCL task's content (see the module docstring)."""
    if not isinstance(ground_truth, list) or not ground_truth:
        return []
    problems = []
    missing = ungrounded_arguments(asserted_text(question), ground_truth, functions)
    if missing:
        problems.append(f"the question does not state the value of {', '.join(missing[:4])}")
    called = [str(name) for call in ground_truth if isinstance(call, Mapping) for name in call]
    problems += use_problems(question, functions, called)
    problems += swap_problems(question, ground_truth)
    used = {
        str(value)
        for call in ground_truth
        if isinstance(call, Mapping)
        for params in call.values()
        if isinstance(params, Mapping)
        for allowed in params.values()
        for value in (allowed if isinstance(allowed, list) else [allowed])
    }
    if others := competing_values(question, used):
        problems.append(f"the question also names {others[0]!r}, which no call uses: which one is meant?")
    return problems
