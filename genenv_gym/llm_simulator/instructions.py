"""Text that addresses the agent, the grader or a role instead of stating a task: the structural rules.

Generated task text is data. It is rejected (kind ``instruction``, or ``encoded``) when it

- carries chat-template control tokens (``<|im_start|>``, ``[INST]``, ``<tool_call>``, ...; kind
  ``control_token``): a tokenizer would turn them into real turn boundaries;
- has turn or document structure no task text has: a role label starting a line or a sentence
  (``Human:``, ``### Instruction:``, ``[system]``, ``<assistant>``, ``Note to the grader:``), a markdown
  header, a code fence;
- refers to its own frame: the grading (grader, evaluator, reward, "full credit", "mark this answer as
  correct"), the model itself ("as an AI", "you are now", "the assistant"), the conversation ("the
  previous instructions", "this prompt", "system prompt");
- overrides instructions ("ignore the previous instructions", paraphrased);
- hides a payload: a base64 or hex run that decodes to text, a sentence that reads as English only
  after ROT13 or reversed.

Every pattern is matched on the text's reading forms (``unicode_skeleton.reading_forms``: look-alike
letters folded, letters spelled out one by one joined, leetspeak read as letters) and on its compact form
(letters only), so ``1gn0r3``, ``i g n o r e`` and ``dis-re-gard`` read as the words they spell.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re

from genenv_gym.llm_simulator.language import ENGLISH
from genenv_gym.llm_simulator.unicode_skeleton import deleet, reading_forms

CONTROL_TOKEN = re.compile(
    r"<\|[^|<>\n]{1,40}\|>|<｜[^｜<>\n]{1,40}｜>|\[/?INST\]|<</?SYS>>|</?s>|<(?:start|end)_of_turn>"
    r"|</?tool_call>|</?tool_response>|</?think>|<\|?(?:eot_id|endoftext|im_start|im_end)\|?>",
    re.IGNORECASE,
)
_OVERRIDE = (
    r"ignore|disregard|forget|skip|bypass|override|overrule|abandon|discard|drop|set\s+aside|"
    r"pay\s+no\s+(?:attention|heed|mind)\s+to|do\s+not\s+(?:follow|obey|heed)|don'?t\s+(?:follow|obey|heed)|"
    r"stop\s+(?:following|obeying)|never\s+mind|no\s+longer\s+(?:follow|obey)"
)
_QUALIFIER = (
    r"all|any|the|your|my|these|those|previous|prior|above|earlier|preceding|original|initial|system|"
    r"developer|existing|given|other|old|former|every|each|of"
)
_TEMPORAL = r"previous|prior|above|earlier|preceding|system|original|initial"
_TARGET = (
    r"instructions?|prompts?|rules?|guidelines?|directions?|directives?|guidance|constraints?|polic(?:y|ies)|"
    r"system\s+message|task\s+description"
)
_WEAK_TARGET = r"messages?|context|orders?|commands?|text|content"
_INJECTION = re.compile(
    # an override verb aimed at the instructions: "please pay no attention to the guidance above"
    rf"\b(?:{_OVERRIDE})\W+(?:\w+\W+)?(?:(?:{_QUALIFIER})\W+){{1,4}}(?:\w+\W+)?(?:{_TARGET})\b"
    rf"|\b(?:{_OVERRIDE})\W+(?:\w+\W+)?(?:(?:{_QUALIFIER})\W+){{0,3}}(?:{_TEMPORAL})\W+(?:{_WEAK_TARGET})\b"
    rf"|\b(?:{_OVERRIDE})\W+(?:everything|anything|all)\W+(?:\w+\W+){{0,2}}?(?:above|before|earlier|so\s+far)"
    r"|\b(?:ignore|disregard|forget)\W+(?:what|whatever)\W+you\W+(?:were|have\s+been|are)\W+(?:told|given|asked)"
    # the instructions declared void: "the instructions above no longer apply"
    rf"|\b(?:{_QUALIFIER})\W+(?:\w+\W+){{0,2}}?(?:{_TARGET})\W+(?:\w+\W+){{0,3}}?"
    r"(?:no\s+longer\s+(?:apply|applies|hold|matter|valid|in\s+effect)|(?:are|is)\s+(?:now\s+)?"
    r"(?:void|obsolete|cancell?ed|revoked|outdated|superseded|lifted|suspended))"
    r"|(?:new|updated|override|real|actual|true)\s+(?:system\s+)?instructions?\s*:"
    # a new identity or a forced reply
    r"|\bsystem\s+prompt\b|\byou\s+are\s+now\b|\bfrom\s+now\s+on\b|\bjailbreak|\bdeveloper\s+mode\b"
    r"|\b(?:act|behave|respond)\s+as\s+(?:if\s+you\s+(?:are|were)|an?\s+(?:unrestricted|different|new))"
    r"|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)|\brole[\s-]?play\s+(?:as|that)\b|\bplay\s+the\s+role\s+of\b"
    r"|\byour\s+new\s+(?:task|role|instructions?|goal|persona)\b"
    r"|\b(?:respond|reply|answer|say|output)\s+(?:only|just|exactly)\s+(?:with|the\s+word)\b"
    # leaking or gaming the grader
    r"|\b(?:reveal|print|show|repeat|output|leak|disclose|tell\s+me)\W+(?:\w+\W+){0,3}?"
    r"(?:system|hidden|secret|initial|original|developer)\W+(?:prompt|instructions?|message|rules)"
    r"|\b(?:mark|grade|score|rate|count)\s+(?:this|it|the|my)(?:\s+(?:answer|response|task|reply|one))?\s+as\s+"
    r"(?:correct|passed|right|successful|solved)"
    r"|(?:^|\n)[^\S\n]{0,8}(?:system|assistant|developer)\s*:",
    re.IGNORECASE,
)
_ROLE = (
    r"system|user|human|assistant|ai|bot|chatbot|model|developer|instructions?|grader|evaluator|judge|"
    r"admin(?:istrator)?|operator|moderator|reviewer|inst|sys|gpt|llm"
)
_STRUCTURE = re.compile(
    # a role label where a line or a sentence starts: "Human:", "### Instruction:", "[system]", "**AI**:"
    rf"(?:^|[\n.!?)\]][^\S\n]{{0,8}})(?:#{{1,6}}[^\S\n]{{0,4}}|>[^\S\n]{{0,4}}|\*\*|__)?[\[(<{{]?[^\S\n]{{0,4}}(?:{_ROLE})[^\S\n]{{0,4}}[\])>}}]?[^\S\n]{{0,4}}(?:\*\*|__)?[^\S\n]{{0,4}}:"
    rf"|[\[<{{]\s*/?\s*(?:{_ROLE})\s*[\]>}}]"
    r"|\bnote\s+(?:to|for)\s+(?:the\s+)?(?:ai|assistant|model|grader|evaluator|judge|reviewer|checker|llm|bot)\b"
    # markdown headers and code fences
    r"|(?:^|\n)[^\S\n]{0,8}#{1,6}[^\S\n]+\S|```|~~~",
    re.IGNORECASE,
)
_SELF = r"ai|a\.i\.|assistant|chat\s?bot|(?:large\s+)?language\s+model|llm|gpt|agent|bot"
_META = re.compile(
    # the grading
    r"\b(?:grader|graders|grading|evaluator|evaluators|auto-?grader|rubric|reward\s+model|"
    r"reward\s+function|checker|verifier)\b"
    r"|\b(?:full|maximum|max|perfect|complete|all\s+the)\s+(?:credit|marks?|points|score|reward)\b"
    r"|\b(?:give|award|grant|assign)\s+(?:\w+\s+){0,4}?(?:credit|reward|points?|marks?|score)\b"
    r"|\bcredit\s+(?:for|to)\s+(?:this|the|any|every)\b"
    r"|\b(?:mark|grade|score|rate|count|treat|consider|accept|judge|evaluate|label|flag)\s+(?:this|that|it|the|my|your|"
    r"any|every|all|each)\s+(?:\w+\s+){0,2}?(?:answer|response|reply|output|solution|submission|attempt|"
    r"result|call|task)s?\s+(?:as|to\s+be)\b"
    r"|\b(?:answers?|response|reply|output|submission)\s+(?:is|are|was|should\s+be|must\s+be|will\s+be)\s+"
    r"(?:marked|graded|scored|considered|treated|accepted|judged|counted)"
    r"|\b(?:correct|expected|reference|gold|golden|true|right)\s+(?:answer|output|call|response)\s+"
    r"(?:is|was|=|:|will\s+be|should\s+be)"
    r"|\b(?:regardless\s+of|no\s+matter)\s+(?:what|the|your|its)\s+(?:\w+\s+)?(?:answer|response|output|says)"
    r"|\b(?:call|use|invoke|make)\s+no\s+(?:\w+\s+)?(?:functions?|tools?|apis?|calls?)\b"
    r"|\b(?:skip|ignore|disregard|bypass|forget)\s+(?:all\s+|the\s+|any\s+|your\s+|this\s+|these\s+)*"
    r"(?:tools?|functions?|api\s+calls?|task|question|request|query)\s*(?:above|before|earlier|previously|and|,|\.|$)"
    # the model itself
    rf"|\b(?:you|u)\s*(?:are|r|'re|were)\s+(?:now\s+|just\s+|an?\s+|the\s+)*(?:\w+\s+)?(?:{_SELF})\b"
    rf"|\bas\s+(?:an?|the)\s+(?:\w+\s+)?(?:{_SELF})\b"
    rf"|\b(?:the|this|an?|dear|hey|hello|hi)\s+(?:ai|assistant|chatbot|language\s+model|llm|gpt)\b"
    r"|\b(?:model|assistant|agent|ai)\s+(?:must|should|shall|will|needs?\s+to)\b"
    r"|\byour\s+(?:training|programming|guidelines|safety|alignment|creators?|developers?)\b"
    # the conversation
    r"|\b(?:this|the|previous|above|prior|earlier|preceding|following|your|my|current)\s+(?:\w+\s+)?"
    r"(?:conversation|prompt|prompts|system\s+message|context\s+window|chat\s+history)\b"
    r"|\b(?:previous|above|prior|earlier|preceding|original|initial|your|system|hidden|secret|these|new)\s+"
    r"(?:instructions?|directives?|guidelines|rules)\b(?!\s+(?:manual|booklet|sheet|page|document|file|book|leaflet|card|pdf))",
    re.IGNORECASE,
)
_OVERRIDE_COMPACT = re.compile(
    r"(?:ignore|disregard|forget|bypass|override|overrule|abandon|discard)"
    r"(?:all|any|the|your|my|previous|prior|above|earlier|preceding|of|these|system|original|every){1,4}"
    r"(?:instruction|prompt|rule|guideline|direction|directive|guidance|constraint|polic)"
    r"|fullcredit|fullmarks|maximumscore|perfectscore|systemprompt|youarenow|developermode|jailbreak"
    r"|markthis(?:answer|response)?ascorrect|grader|evaluator|languagemodel|asanai(?!r)"
)
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2}[\s:,]?){8,}")
_WORDS = re.compile(r"[a-z]+")
_PUNCTUATION = "\"'()[]{},;:"
_SEGMENT = re.compile(r"[^.!?\n]+")


def structure_problem(text: str) -> str | None:
    """A role label, markdown header or code fence in ``text`` (what and where), or None."""
    for form in reading_forms(text):
        if match := _STRUCTURE.search(form):
            return f"turn or document structure {match.group(0).strip()[:60]!r}"
    return None


def address_problem(text: str) -> str | None:
    """Words addressed to the agent, the grader or a role rather than stating a task, or None."""
    forms = reading_forms(text)
    for form in forms:
        if match := _INJECTION.search(form):
            return f"instruction aimed at the model: {match.group(0).strip()[:80]!r}"
        if match := _META.search(form):
            return f"refers to the grading, the model or the conversation: {match.group(0).strip()[:80]!r}"
    compact = re.sub(r"[^a-z]", "", deleet(forms[-1]))
    if match := _OVERRIDE_COMPACT.search(compact):
        return f"spelled-out instruction {match.group(0)!r}"
    return None


def encoded_problem(text: str) -> str | None:
    """A base64 or hex run that decodes to text, or a sentence that is English only after ROT13 or
    reversal (what was found), or None."""
    for run in _BASE64.findall(text):
        if any(c.isdigit() or c.isupper() for c in run) and (decoded := _b64_text(run)):
            return f"base64 payload {run[:24]!r} decodes to {decoded[:40]!r}"
    for run in _HEX.findall(text):
        digits = re.sub(r"[\s:,]", "", run)
        if (decoded := _as_text(binascii.unhexlify(digits[: len(digits) // 2 * 2]))) is not None:
            return f"hex payload {run[:24]!r} decodes to {decoded[:40]!r}"
    for segment in _SEGMENT.findall(text.lower()):
        tokens = (t.strip(_PUNCTUATION) for t in segment.split())
        words = [w for w in tokens if len(w) >= 2 and w.isascii() and w.isalpha() and w not in ENGLISH]
        for name, decode in (("ROT13", lambda w: codecs.encode(w, "rot13")), ("reversed", lambda w: w[::-1])):
            decoded = [w for w in words if decode(w) in ENGLISH]
            if len(set(decoded)) >= 3:
                return f"{name} text: {' '.join(decoded[:6])!r} reads {' '.join(map(decode, decoded[:6]))!r}"
            if len(words) >= 2 and (
                found := _INJECTION.search(decode(segment)) or _META.search(decode(segment))
            ):
                return f"{name} text: {found.group(0).strip()[:80]!r}"
    return None


def _b64_text(run: str) -> str | None:
    try:
        data = base64.b64decode(run.replace("-", "+").replace("_", "/") + "=" * (-len(run) % 4))
    except (binascii.Error, ValueError):
        return None
    return _as_text(data)


def _as_text(data: bytes) -> str | None:
    """``data`` as text when it reads as words (UTF-8, mostly letters and spaces, two or more words)."""
    text = data.decode("utf-8", errors="replace")
    if len(text) < 8 or " " not in text.strip():
        return None
    readable = sum(c.isalpha() or c == " " for c in text)
    return text if readable >= 0.8 * len(text) else None
