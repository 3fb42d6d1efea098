"""Whether a text is English: every benchmark with a task writer is English, so generated text in another
language is not a task of the domain (and is how an instruction slips past checks that read English).

Two tests per sentence, outside short quoted spans (a quoted title or name may be in any language):

- script: a word of two or more letters from a script other than Latin (Cyrillic, Han, Arabic, ...);
  a word that mixes Latin and Cyrillic letters is a look-alike disguise and fails too;
- function words: a sentence of five or more lower-case words of which fewer than one in eight is an
  English function word (English prose runs near one in two), whatever the language;
- a Latin-script sentence whose closed-class words (articles, pronouns, prepositions,
  conjunctions, auxiliaries) are more French, German, Spanish, Italian, Portuguese, Dutch, Turkish,
  Polish or Indonesian than English, counting words with diacritics as evidence for the foreign side.

Function words are a closed class of a language, not a list of bad phrases: any sentence in those
languages uses them, whatever it says.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_ENGLISH_WORDS = """
the a an of to in for on with at by from and or but is are was were be been being am this that these
those what which who whom whose how when where why i you he she it we they me him her us them my your
his its our their can could will would shall should may might must do does did have has had not no all
any each every some if then than there here into onto about after before between during under over also
just only very more most such as so up out off please yes like per via within without including across
along among toward towards upon against through throughout near since until while whether either neither
both because although though etc using given based according
"""
#: English function words (articles, pronouns, prepositions, conjunctions, auxiliaries, a few adverbs).
ENGLISH = frozenset(_ENGLISH_WORDS.split())
FOREIGN: dict[str, frozenset[str]] = {
    language: frozenset(words.split()) - ENGLISH
    for language, words in {
        "French": "le la les des du et est une un vous nous pour dans que qui pas sur avec ce cette sont "
        "être "
        "il elle ils au aux mais ou où votre vos tous toutes tout ne plus comme cet ces donc leur sans je tu "
        "mon ma mes ton ta tes se lui ont avez sommes été",
        "German": "der die das und ist nicht ein eine einen einem dem den des zu mit für auf sich ich du sie "
        "wir ihr alle allen von im sind oder aber wie bitte diese dieser dieses nach bei nur auch noch wird "
        "werden kein keine mein dein ihre unsere euch uns hat haben war",
        "Spanish": "el la los las del que y en un una es por para con se su sus lo al todas todos esta "
        "este usted tu mi pero como más muy son ser está estas estos ni nos les tus",
        "Italian": "il lo la gli le di che e è un una per con non sono del della dei delle tutte tutti "
        "questo questa ma anche come più nel nella al alla sei siamo hai ha io tu noi voi loro",
        "Portuguese": "o os as do da dos das que e em um uma para com não por é são todas todos você "
        "seu sua suas seus minhas nossa mas como mais na nos nas ao às esta este isso isto",
        "Dutch": "de het een en van dat die niet te op voor met zijn ook maar alle je jij u wij ze naar dit "
        "deze wordt worden geen ik hij zij ons jullie",
        "Turkish": "ve bir bu için ile da de değil çok tüm sen ben olarak gibi ama veya şu o biz siz ne",
        "Polish": "i w z na się nie do to że jest jak co ten ta wszystkie jesteś dla od po ale czy ja ty",
        "Indonesian": "dan yang di ini itu dengan untuk tidak dari ke semua anda adalah akan saya kamu kami",
        "Swedish": "och att det som en ett är på för med av till den har inte jag du vi ni de alla vad ska",
        "Vietnamese": "và của các là có được cho không những một này với trong đó để người khi hãy dù gì "
        "tất cả",
    }.items()
}
#: A sentence of this many lower-case words is prose: in English at least one in eight is a function word.
MIN_PROSE_WORDS = 5
#: A quoted span of at most this many words may be in another language (a title, a name).
MAX_QUOTED_WORDS = 8

_QUOTED = re.compile(
    r"\"[^\"\n]{0,200}\"|“[^”\n]{0,200}”|«[^»\n]{0,200}»|„[^“”\n]{0,200}[“”]|(?<!\w)'[^'\n]{0,200}'(?!\w)"
)
_SENTENCE = re.compile(r"[^.!?;\n。！？]+")
_EDGE = "\"'()[]{},;:!?«»“”„-"
_WORD = re.compile(r"[^\W\d_]+")


def language_problem(text: str, prose: bool = True) -> str | None:
    """Why ``text`` is not English (the first sentence that is not, and what it looks like), or None.

    ``prose=False`` (world-state data such as a file's content or a list of tags) skips the one test that
    needs sentences, English function words among five or more words; scripts, mixed Latin/Cyrillic words
    and the other languages' function words are still tested."""
    text = _QUOTED.sub(lambda m: " " if _short(m.group(0)) else m.group(0), text)
    for sentence in _SENTENCE.findall(text):
        words = _WORD.findall(sentence)
        if not words:
            continue
        for word in words:
            scripts = _scripts(word)
            foreign = scripts - {"LATIN", "COMMON"}
            if "CYRILLIC" in scripts and "LATIN" in scripts:
                return f"word {word[:30]!r} mixes Latin and Cyrillic letters"
            if (foreign - {"GREEK"} and len(word) >= 2) or (scripts == {"GREEK"} and len(word) >= 3):
                return f"{'/'.join(sorted(foreign)).title()} text {sentence.strip()[:60]!r}"
        lowered = [w.lower() for w in words if len(w) > 1]
        common = _prose_words(sentence)
        if (
            prose
            and len(common) >= MIN_PROSE_WORDS
            and sentence.count(",") * 4 < len(common)
            and sum(w.lower() in ENGLISH for w in sentence.split()) * 8 <= len(common)
        ):
            return f"text without English function words {sentence.strip()[:60]!r}"
        english = sum(w in ENGLISH for w in lowered)
        accented = sum(not w.isascii() for w in lowered)
        for language, function_words in FOREIGN.items():
            hits = sum(w in function_words for w in lowered)
            if (
                (hits >= 2 and hits > english)
                or (hits + accented >= 3 and hits + accented > english)
                or (english == 0 and hits + accented >= 2 and len(lowered) >= 4)
            ):
                return f"{language} text {sentence.strip()[:60]!r}"
    return None


def _prose_words(sentence: str) -> list[str]:
    """The lower-case words of a sentence, leaving out identifiers, numbers and codes."""
    out = []
    for token in sentence.split():
        word = token.strip(_EDGE)
        if len(word) > 1 and word.isalpha() and word.islower():
            out.append(word)
    return out


def _short(quoted: str) -> bool:
    return len(quoted.split()) <= MAX_QUOTED_WORDS


def _scripts(word: str) -> set[str]:
    return {_script(c) for c in word}


@lru_cache(maxsize=4096)
def _script(char: str) -> str:
    if char.isascii():
        return "LATIN"
    name = unicodedata.name(char, "")
    first = name.split(" ", 1)[0]
    if first in ("LATIN", "MODIFIER", "SUPERSCRIPT", "SUBSCRIPT", "MICRO", "FEMININE", "MASCULINE"):
        return "LATIN" if first == "LATIN" else "COMMON"
    if first in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "IDEOGRAPHIC"):
        return "CJK"
    return first or "UNKNOWN"
