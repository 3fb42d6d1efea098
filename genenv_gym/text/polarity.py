"""What a request asserts: its text with the values it rules out or takes back blanked out.

A value a user names only to exclude it (``Denver, not Reykjavik``; ``instead of 498``; ``anything but
Paris``) or to take it back (``at 7 pm, sorry, I mean 8 pm``; ``zucchini... scratch that, eggplant``) is
not a value the request asks for. ``asserted_text`` blanks those spans so that a check reading values
back from a text (is the reference's value stated?) sees only the values the text asks for. Two kinds
of span, both read from the text's own grammar, not from a list of examples:

- excluded: the words after a contrastive cue (``, not``, ``(not``, ``rather than``, ``instead of``,
  ``other than``, ``except``, ``excluding``, ``apart from``, ``but not``, ``definitely not``,
  ``anything but``) up to the next clause boundary; a plain ``not`` inside a clause (``not far from``)
  is left alone;
- retracted: the few words before a self-correction (``sorry``, ``I mean``, ``no wait``, ``scratch that``,
  ``correction:``, ``make that``, ``or rather``), back to the previous clause boundary.
"""

from __future__ import annotations

import re

_EXCLUDE = re.compile(
    r"(?:,|\(|\bbut|\bdefinitely|\bcertainly|\bobviously|\bspecifically|\bjust)\s*not\b"
    r"|\b(?:rather\s+than|instead\s+of|other\s+than|except(?:\s+for)?|excluding|apart\s+from|anything\s+but|"
    r"as\s+opposed\s+to|in\s+place\s+of)\b",
    re.IGNORECASE,
)
_RETRACT = re.compile(
    r"(?:,|\.\.\.|…|;|\s-|—|\()\s*(?:sorry|oops|no\s+wait|wait\s+no|scratch\s+that|correction|i\s+mean|"
    r"make\s+(?:that|it)|or\s+rather|actually\s+no|my\s+mistake|strike\s+that)\b",
    re.IGNORECASE,
)
#: Where a span ends: punctuation that closes a clause, or a conjunction that starts another.
_BOUNDARY = re.compile(
    r"[,.;:!?](?=\s|$)|[)\]\n]|\s(?:and|but|so|then|while|with|for|on|at|to|from)\s", re.IGNORECASE
)
#: Where a retracted span starts, looking back: a clause boundary or a preposition before the value.
_BACK_BOUNDARY = re.compile(
    r"[,.;:!?](?=\s)|[(\n]|\b(?:at|on|for|to|in|of|from|is|be|about|use|that)\b", re.IGNORECASE
)
#: The most words a span covers.
MAX_SPAN_WORDS = 6


def excluded_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every value the text rules out or takes back."""
    spans = []
    for match in _EXCLUDE.finditer(text):
        start = match.end()
        stop = _BOUNDARY.search(text, start + 1)
        end = stop.start() if stop else len(text)
        spans.append((start, _clip_words(text, start, end, forward=True)))
    for match in _RETRACT.finditer(text):
        end = match.start()
        before = [m.end() for m in _BACK_BOUNDARY.finditer(text[:end])]
        start = before[-1] if before else 0
        spans.append((_clip_words(text, start, end, forward=False), end))
    return sorted(spans)


def asserted_text(text: str) -> str:
    """``text`` with every excluded or retracted span replaced by spaces (same length, same offsets)."""
    chars = list(text)
    for start, end in excluded_spans(text):
        for i in range(start, end):
            if not chars[i].isspace():
                chars[i] = " "
    return "".join(chars)


def _clip_words(text: str, start: int, end: int, forward: bool) -> int:
    """The span's far end after at most ``MAX_SPAN_WORDS`` words from its near end."""
    words = list(re.finditer(r"\S+", text[start:end]))
    if len(words) <= MAX_SPAN_WORDS:
        return end if forward else start
    if forward:
        return start + words[MAX_SPAN_WORDS - 1].end()
    return start + words[-MAX_SPAN_WORDS].start()


#: Values whose written form says what they are: a date, a date and time, a code such as a flight number.
_SHAPED = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?\b|\b[A-Z]{2}\d{2,4}\b",
)


def competing_values(text: str, used: set[str]) -> list[str]:
    """Values the text asserts (``asserted_text``) of a shape one of ``used`` has (a date, a date and time,
    a code) that none of ``used`` is: a request naming two dates where its reference uses one leaves the
    reader to guess which (``Set it for 2023-07-04. Last time it was 2023-04-20.``)."""
    used_shapes = {_shape(v) for v in used if _SHAPED.fullmatch(v)}
    found = []
    for match in _SHAPED.finditer(asserted_text(text)):
        value = match.group(0)
        if _shape(value) in used_shapes and not any(value in u or u in value for u in used):
            found.append(value)
    return list(dict.fromkeys(found))


def _shape(value: str) -> str:
    if value[:1].isalpha():
        return "code"
    return "datetime" if len(value) > 10 else "date"
