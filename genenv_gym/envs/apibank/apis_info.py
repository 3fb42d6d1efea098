"""Simulated information APIs: calculator, wiki, search, dictionary, translation, media, documents, misc.

Dictionary and Translate call the internet officially and ToolSearcher ranks APIs with a sentence-embedding
model: here they replay the outputs recorded in the dialogues, after reading their parameters as the
official code does before it goes online (Dictionary: ``replace('_', ' ').strip().lower()`` on the keyword;
Translate: the language parameters lower-cased and read as googletrans codes, English when no target is
given, the text as it is), so a call the official API would send as a recorded one gets the recorded
reply. Other inputs get a deterministic answer (see docs/apibank.md): Dictionary ``Failed.`` (the official
not-found answer), Translate ``Language not supported.`` where the official code says so before going
online, else an exception saying no translation is recorded, ToolSearcher the BM25 (bm25s) best match over
the APIs' names and descriptions. SearchEngine replays recorded queries (compared as the official code
reads them, ``keyword.lower().strip()``) and ranks others with BM25 over the database's documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from genenv_gym.envs.apibank.retrieval import cached_index, search_text
from genenv_gym.envs.apibank.signatures import SIGNATURES
from genenv_gym.envs.apibank.translate_languages import UnsupportedLanguage, language_code
from genenv_gym.envs.apibank.world import ApiException, World, recording_key

_OPERATORS = "+-*/"


def _valid_formula(formula: str) -> bool:
    if not formula or any(c not in "0123456789+-*/()" for c in formula):
        return False
    if formula.count("(") != formula.count(")"):
        return False
    operators = sum(formula.count(op) for op in _OPERATORS)
    return operators != 0 and operators + 1 != len(formula)


def _tokens(formula: str) -> list:
    tokens: list = []
    number = ""
    for c in formula:
        if c.isdigit():
            number += c
            continue
        if number:
            tokens.append(float(number))
            number = ""
        tokens.append(c)
    if number:
        tokens.append(float(number))
    return tokens


def _apply(left: Any, operator: str, right: Any) -> Any:
    if operator == "+":
        return left + right
    if operator == "-":
        return left - right
    if operator == "*":
        return left * right
    return left / right


def _reduce(tokens: list) -> Any:
    """The official order: the span from the first '(' to the first ')' first, then ``*/``, then ``+-``."""
    while "(" in tokens:
        left, right = tokens.index("("), tokens.index(")")
        tokens[left : right + 1] = [_reduce(tokens[left + 1 : right])]
    for group in ("*/", "+-"):
        while any(op in tokens for op in group):
            i = min(tokens.index(op) for op in group if op in tokens)
            tokens[i - 1 : i + 2] = [_apply(tokens[i - 1], tokens[i], tokens[i + 1])]
    return tokens[0]


def calculator(w: World, formula: Any) -> Any:
    formula = formula.replace(" ", "")
    if not _valid_formula(formula):
        raise ApiException("invalid formula")
    return _reduce(_tokens(formula))


def wiki(w: World, keyword: Any) -> Any:
    keyword = keyword.replace("_", " ").strip().lower()
    table = w.table("Wiki")
    if keyword not in table:
        raise ApiException("Keyword not found.")
    return {"url": table[keyword]["url"], "summary": table[keyword]["summary"]}


def _replayed(w: World, api_name: str, inputs: Any) -> Any:
    recorded = w.recordings.get(recording_key(api_name, inputs))
    if recorded is None:
        return None
    if recorded["exception"] is not None:
        raise ApiException(recorded["exception"])
    return recorded


def search_engine(w: World, keyword: Any) -> Any:
    query = keyword.lower().strip()
    for inputs, recorded in _recorded_calls(w, "SearchEngine"):
        if inputs["keyword"].lower().strip() == query:
            return _reply(recorded)
    documents = w.table("SearchEngine").get("raw_documents", [])
    if not documents:
        return []
    texts = tuple(f"{d.get('title', '')} {d.get('abstract', '')}" for d in documents)
    return [documents[i] for i in cached_index(texts).best(query, 2)]


def _recorded_calls(w: World, api_name: str) -> Iterator[tuple[dict, dict]]:
    """(recorded input, recorded reply) of every recording of ``api_name``."""
    for key, recorded in w.recordings.items():
        if key.startswith(api_name + "{"):
            yield json.loads(key[len(api_name) :]), recorded


def _reply(recorded: dict) -> Any:
    if recorded["exception"] is not None:
        raise ApiException(recorded["exception"])
    return recorded["output"]


def dictionary_word(keyword: Any) -> Any:
    """The word the official Dictionary looks up for ``keyword``."""
    return keyword.replace("_", " ").strip().lower()


def dictionary(w: World, keyword: Any) -> Any:
    word = dictionary_word(keyword)
    for inputs, recorded in _recorded_calls(w, "Dictionary"):
        if dictionary_word(inputs["keyword"]) == word:
            return _reply(recorded)
    raise ApiException("Failed.")


def translation_request(src: Any, **kwargs: Any) -> tuple[Any, str | None, str]:
    """(text, source code or None, target code) as the official Translate sends them; raises its
    ``Language not supported.`` (or the error of a parameter that is not text) before going online."""
    source = kwargs["src_lang"].lower() if "src_lang" in kwargs else None
    target = kwargs["tgt_lang"].lower() if "tgt_lang" in kwargs else None
    return src, None if source is None else language_code(source), language_code(target)


def translate(w: World, src: Any, **kwargs: Any) -> Any:
    request = translation_request(src, **kwargs)
    for inputs, recorded in _recorded_calls(w, "Translate"):
        try:
            recorded_request = translation_request(**inputs)
        except (UnsupportedLanguage, AttributeError, TypeError):  # a recording the API would refuse
            continue
        if recorded_request == request:
            return _reply(recorded)
    raise ApiException("Failed: no recorded translation for this text and these languages (offline replay).")


def image_caption(w: World, url: Any) -> Any:
    url = url.strip()
    if not url.endswith((".jpg", ".jpeg", ".png")):
        raise ApiException("The url should end with .jpg, .jpeg or .png.")
    for item in w.table("ImageCaptioning"):
        if item["url"] == url:
            return item["caption"]
    raise ApiException("The image of this url failed to be processed.")


def speech_recognition(w: World, url: Any) -> Any:
    url = url.strip()
    if not url.endswith(".wav"):
        raise ApiException("The url should end with .wav.")
    table = w.table("SpeechRecognition")
    if url in table:
        return table[url]
    raise ApiException("The audio of this url failed to be processed.")


def document_qa(w: World, url: Any, question: Any) -> Any:
    url, question = url.strip(), question.strip()
    if question == "":
        raise ApiException("The question is empty.")
    table = w.table("QuestionAnswering")
    if url not in table:
        raise ApiException("The document of this url failed to be processed.")
    if question not in table[url]:  # officially a list of {question, answer}: a bare string never matches
        return "The question is too difficult to answer."
    return table[url][question]


def history_date(date: Any) -> Any:
    """The official ``m-d`` normalisation of a QueryHistoryToday date, or the parsing exception."""
    import datetime

    from genenv_gym.envs.apibank.apis_services import pad_year

    date = pad_year(date.strip())
    for fmt in ("%Y-%m-%d", "%m-%d"):
        try:
            return datetime.datetime.strptime(date, fmt).strftime("%m-%d")
        except Exception as error:
            last = error
    return last


def query_history_today(w: World, date: Any) -> Any:
    date = history_date(date)
    if isinstance(date, ValueError):
        raise date
    table = w.table("History")
    if date not in table:
        raise ApiException("The date is not in the database.")
    return [
        f"Title: {e['Title'].strip()}, Date: {e['Date'].strip()}, Description: {e['Description'].strip()}"
        for e in table[date]
    ]


def get_today(w: World, **kwargs: Any) -> Any:
    return "2023-03-31"


def play_music(w: World, music_name: Any) -> Any:
    music_name = music_name.lower().strip()
    if music_name == "":
        raise ApiException("The music name cannot be empty.")
    return f"music://{music_name}"


#: The official address pattern ``^[a-z0-9]+[\._]?[a-z0-9]+[@]\w+[.]\w{2,3}$``, written so that it
#: accepts the same strings in linear time (the official form backtracks quadratically on a long name).
EMAIL_PATTERN = r"^(?:[a-z0-9]+[._][a-z0-9]+|[a-z0-9]{2,})@\w+\.\w{2,3}$"
_EMAIL = re.compile(EMAIL_PATTERN)


def send_email(w: World, receiver: Any, subject: Any, content: Any) -> Any:
    if not _EMAIL.match(receiver.strip()):
        raise ApiException("Email address of the receiver is invalid.")
    if subject.strip() == "":
        raise ApiException("Subject cannot be empty.")
    if content.strip() == "":
        raise ApiException("Content cannot be empty.")
    return "success"


def tool_searcher(w: World, keywords: Any) -> Any:
    recorded = _replayed(w, "ToolSearcher", {"keywords": keywords})
    if recorded is not None:
        return recorded["output"]
    names = tuple(n for n in SIGNATURES if n != "ToolSearcher")
    texts = tuple(search_text(n, SIGNATURES[n].description) for n in names)
    best = SIGNATURES[names[cached_index(texts).best(str(keywords), 1)[0]]]
    if "token" in best.param_names:
        return [SIGNATURES["GetUserToken"].describe(), best.describe()]
    return best.describe()
