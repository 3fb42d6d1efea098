"""Java and JavaScript answers of BFCL: the tree-sitter decoder and the official type converters.

Reimplements, for ``bfcl-eval==2026.3.23``:

* the prompting decoder for Java / JavaScript: the bracket-wrapped output loses its first and last character,
  the rest is parsed with the tree-sitter Java / JavaScript grammar, any ``ERROR`` node rejects it, and only
  the **first** call is read (Java: the first ``method_invocation`` in pre-order; JavaScript: the first
  ``call_expression`` directly inside a top-level expression statement). Argument values are source text:
  string literals lose their quotes (Java only at the top level; JS when the text starts and ends with the
  same quote), escapes are not processed, and nested Java values are rebuilt from their tokens without the
  whitespace between them (``new int[] {1, 2}`` gives ``new int[]{1,2}``; an anonymous class body is
  dropped, so ``new HashMap<>() {{ put(..); }}`` gives ``new HashMap<>()``). Java text is sliced with
  tree-sitter's *byte* offsets on the Python string, as the official code does, so non-ASCII text shifts
  later values. A repeated argument name, or two positional names, fail; ``a += 1`` counts as ``a=1`` in
  Java. Finding no call at all gives the official ``ast_decoder:decoder_wrong_output_format``;
* ``java_type_converter`` / ``js_type_converter``, which turn those strings into Python values by the
  declared type (and fall back to the string when the text does not fit).

The official converters use regular expressions that backtrack catastrophically on some inputs (the
JavaScript 2-D array pattern is exponential, the Java ``HashMap`` pattern is a high-degree polynomial).
Those patterns are run here by :class:`genenv_gym.envs.bfcl.safe_regex.SafeRegex`, which returns exactly
what ``re`` returns but in time linear in the input for a fixed pattern.

Official parsing recurses over the syntax tree and fails with ``RecursionError`` on very deep trees; this is
emulated by counting the official frames (:data:`FRAME_LIMIT`), so deep input is rejected at about the same
depth. Output over :data:`MAX_SOURCE_CHARS` characters is not parsed (tree-sitter's error recovery makes
long malformed text costly). tree-sitter is imported lazily; the grammars are those of the ``[bfcl]`` extra.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import threading
import warnings
from collections.abc import Callable
from typing import Any, Literal

from genenv_gym.envs.bfcl.decode_errors import WRONG_OUTPUT_FORMAT, DecodeError
from genenv_gym.envs.bfcl.output_text import bracket_wrap, check_output_text
from genenv_gym.envs.bfcl.safe_regex import SafeRegex

__all__ = [
    "FRAME_LIMIT",
    "JAVA_TYPE_CONVERSION",
    "JS_TYPE_CONVERSION",
    "MAX_SOURCE_CHARS",
    "OFFICIAL_GRAMMAR_VERSIONS",
    "decode_java_js",
    "grammar_version",
    "java_type_convert",
    "js_type_convert",
]

#: Python types of the declared Java types (official ``JAVA_TYPE_CONVERSION``).
JAVA_TYPE_CONVERSION: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}
#: Python types of the declared JavaScript types (official ``JS_TYPE_CONVERSION``).
JS_TYPE_CONVERSION: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

#: Grammar versions that ``bfcl-eval==2026.3.23`` pins; other versions recover differently from some
#: syntax errors, so a few malformed outputs get other verdicts (well-formed answers decode the same).
OFFICIAL_GRAMMAR_VERSIONS: dict[str, str] = {"java": "0.21.0", "javascript": "0.21.4"}

#: Python frames the official Java decoder may use before ``RecursionError`` (limit 1000 minus its callers).
FRAME_LIMIT: int = 975

#: Longest Java / JavaScript output that is parsed (the official checker has no limit). tree-sitter's error
#: recovery costs ~5 µs a character (``"f()" * 24000`` took 0.5 s CPU), so longer output is rejected unread
#: with ``ast_decoder:decoder_failed``; the longest real answer (the oracle's) has 340 characters.
MAX_SOURCE_CHARS: int = 20_000

_INSTALL_HINT = "Java / JavaScript BFCL answers need tree-sitter: pip install 'genenv-gym[bfcl]'"

# ----------------------------------------------------------------------------------------------------------
# Java type converter
# ----------------------------------------------------------------------------------------------------------

_J_INT = re.compile(r"^-?\d+$")
_J_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_J_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_J_LONG = re.compile(r"^-?\d+[lL]$")
_J_FLOAT_SUFFIX = re.compile(r"[fF]$")
_J_LONG_SUFFIX = re.compile(r"[lL]$")
_J_ASLIST = SafeRegex(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)")
_J_ADDS = SafeRegex(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", dotall=True)
_J_ADD = SafeRegex(r"add\((.+?)\)")
_J_EMPTY_LIST = re.compile(r"new\s+ArrayList<\w*>\(\)")
_J_ARRAY = SafeRegex(r"new\s+\w+\[\]\s*\{(.*?)\}")
_J_HASHMAP = SafeRegex(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", dotall=True)
_J_PUT = SafeRegex(r"put\(\"(.*?)\",\s*(.*?)\)")
_J_EMPTY_MAP = SafeRegex(r"new\s+HashMap<.*?>\s*\(\)")


def java_type_convert(value: str, expected_type: str, nested_type: str | None = None) -> Any:
    """Convert Java source text to a Python value of the declared type, as the official converter."""
    if expected_type not in JAVA_TYPE_CONVERSION:
        raise ValueError(f"Unsupported type: {expected_type}")
    if expected_type in ("byte", "short", "integer"):
        return int(value) if _J_INT.match(value) else str(value)
    if expected_type == "float":
        return float(_J_FLOAT_SUFFIX.sub("", value)) if _J_FLOAT.match(value) else str(value)
    if expected_type == "double":
        return float(value) if _J_DOUBLE.match(value) else str(value)
    if expected_type == "long":
        return int(_J_LONG_SUFFIX.sub("", value)) if _J_LONG.match(value) else str(value)
    if expected_type == "boolean":
        return value == "true" if value in ("true", "false") else str(value)
    if expected_type == "char":
        return str(value)  # the official char pattern can never match: chars stay strings
    if expected_type == "ArrayList":
        return _java_arraylist(value, nested_type)
    if expected_type == "Array":
        return _java_array(value, nested_type)
    if expected_type == "HashMap":
        return _java_hashmap(value)
    if expected_type in ("Set", "Hashtable", "Queue", "Stack"):
        raise NotImplementedError(f"{expected_type} conversion is not implemented")
    return str(value)  # String, any


def _java_element(text: str, nested_type: str | None) -> Any:
    if nested_type in ("char", "String"):
        return text[1:-1]
    return java_type_convert(text, nested_type) if nested_type else _java_value(text)


def _java_arraylist(text: str, nested_type: str | None) -> Any:
    m = _J_ASLIST.search(text)
    if m:
        return [_java_element(part.strip(), nested_type) for part in (m.group(1) or "").split(",")]
    m = _J_ADDS.search(text)
    if m:
        return [_java_element(v.strip(), nested_type) for v in _J_ADD.findall(m.group(1) or "")]
    if _J_EMPTY_LIST.search(text):
        return []
    return text


def _java_array(text: str, nested_type: str | None) -> Any:
    m = _J_ARRAY.search(text)
    if not m:
        return text
    parts = [x.strip() for x in (m.group(1) or "").split(",") if x.strip()]
    if nested_type:
        return [java_type_convert(x, nested_type) for x in parts]
    return [_java_value(x) for x in parts]


def _java_hashmap(text: str) -> Any:
    m = _J_HASHMAP.search(text)
    if m:
        out: dict[str, Any] = {}
        puts = m.group(1) or ""
        if puts.strip():
            for key, val in _J_PUT.findall(puts):
                out[key] = _java_value(val.strip())
        return out
    if _J_EMPTY_MAP.search(text):
        return {}
    return text


def _java_value(text: str) -> Any:
    """A Java literal of unknown type (official ``parse_java_value``)."""
    if text == "true":
        return True
    if text == "false":
        return False
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _J_LONG.match(text):
        return int(text[:-1])
    if _J_FLOAT.match(text):
        return float(_J_FLOAT_SUFFIX.sub("", text))
    return _int_or_float_or_text(text)


def _int_or_float_or_text(text: str) -> Any:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


# ----------------------------------------------------------------------------------------------------------
# JavaScript type converter
# ----------------------------------------------------------------------------------------------------------

_JS_INT = re.compile(r"^-?\d+$")
_JS_FLOAT = re.compile(r"^-?\d+(\.\d+)?$")
_JS_BIGINT = re.compile(r"^-?\d+n$")
_JS_ARRAY_2D = SafeRegex(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_INNER = SafeRegex(r"\[(.*?)\]")
_JS_ARRAY = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")
_JS_DICT = re.compile(r"\{(.*?)\}")
_JS_PAIRS = SafeRegex(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)")


def _quoted(text: str) -> bool:
    return (text.startswith('"') and text.endswith('"')) or (text.startswith("'") and text.endswith("'"))


def js_type_convert(value: str, expected_type: str, nested_type: str | None = None) -> Any:
    """Convert JavaScript source text to a Python value of the declared type, as the official converter."""
    if expected_type not in JS_TYPE_CONVERSION:
        raise ValueError(f"Unsupported type: {expected_type}")
    if expected_type == "String":
        return value[1:-1] if _quoted(value) else str(value)
    if expected_type == "integer":
        return int(value) if _JS_INT.match(value) else str(value)
    if expected_type == "float":
        return float(value) if _JS_FLOAT.match(value) else str(value)
    if expected_type == "Bigint":
        return int(value[:-1]) if _JS_BIGINT.match(value) else str(value)
    if expected_type == "Boolean":
        return value == "true" if value in ("true", "false") else str(value)
    if expected_type == "dict":
        return _js_dict(value.strip())
    if expected_type == "array":
        return _js_array(value.strip(), nested_type)
    return str(value)  # any


def _js_array(code: str, nested_type: str | None) -> Any:
    try:
        m2 = _JS_ARRAY_2D.match(code)
        if m2:
            rows = []
            for idx, inner in enumerate(_JS_INNER.findall(m2.group(0) or "")):
                inner = inner.strip()
                if idx == 0 and inner.startswith("["):
                    inner = inner[1:]
                rows.append([_js_value(e.strip()) for e in inner.split(",")])
            return rows
        m = _JS_ARRAY.match(code)
        if not m:
            return code
        body = m.group(1) if m.group(1) is not None else m.group(2)
        body = (body or "").strip()
        elements = body.split(",") if body else []
        if nested_type:
            out = []
            for e in elements:
                e = e.strip()
                if e.startswith("'") or e.startswith('"'):
                    out.append(js_type_convert(e, nested_type, "String"))
                else:
                    out.append(js_type_convert(e, nested_type))
            return out
        return [_js_value(e.strip()) for e in elements]
    except Exception:  # the official code returns the text on any error
        return code


def _js_dict(code: str) -> Any:
    if code == "{}":
        return {}
    m = _JS_DICT.match(code)
    if not m:
        return code
    try:
        out: dict[str, Any] = {}
        for key, value in _JS_PAIRS.findall(m.group(1)):
            key = key.strip().strip("'\"")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                out[key] = _js_array(value.strip(), None)
            elif value.startswith("{") and value.endswith("}"):
                out[key] = _js_dict(value.strip())
            else:
                out[key] = _js_value(value.strip("'\""))
        return out
    except Exception:
        return code


def _js_value(text: str) -> Any:
    """A JavaScript literal of unknown type (official ``parse_js_value``)."""
    text = text.strip()
    if text == "true":
        return True
    if text == "false":
        return False
    if _quoted(text):
        return text[1:-1]
    return _int_or_float_or_text(text)


# ----------------------------------------------------------------------------------------------------------
# tree-sitter decoder
# ----------------------------------------------------------------------------------------------------------

_LANGUAGES: dict[str, Any] = {}
_LOCAL = threading.local()
_LOCK = threading.Lock()


def _parser(language: str) -> Any:
    parsers = getattr(_LOCAL, "parsers", None)
    if parsers is None:
        parsers = _LOCAL.parsers = {}
    parser = parsers.get(language)
    if parser is not None:
        return parser
    try:
        import tree_sitter

        grammar = importlib.import_module(
            "tree_sitter_java" if language == "java" else "tree_sitter_javascript"
        )
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    with _LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tree-sitter 0.22-0.24 warn about int language pointers
        lang = _LANGUAGES.get(language)
        if lang is None:
            try:
                lang = tree_sitter.Language(grammar.language())
            except TypeError:  # tree-sitter < 0.22 also wants the name
                lang = tree_sitter.Language(grammar.language(), language)
            _LANGUAGES[language] = lang
        try:
            parser = tree_sitter.Parser(lang)
        except TypeError:  # tree-sitter < 0.22
            parser = tree_sitter.Parser()
            parser.set_language(lang)
    parsers[language] = parser
    _warn_grammar_version(language)
    return parser


_WARNED: set[str] = set()


def grammar_version(language: str) -> str | None:
    """Installed version of the tree-sitter grammar package for ``language`` (None if unknown)."""
    try:
        return importlib.metadata.version(f"tree-sitter-{language}")
    except importlib.metadata.PackageNotFoundError:
        return None


def _warn_grammar_version(language: str) -> None:
    if language in _WARNED:
        return
    _WARNED.add(language)
    version = grammar_version(language)
    official = OFFICIAL_GRAMMAR_VERSIONS[language]
    if version is not None and version != official:
        warnings.warn(
            f"tree-sitter-{language} {version} is installed but the official BFCL checker uses {official}; "
            "a few malformed outputs may get a different verdict (pip install "
            f"'tree-sitter-{language}=={official}')",
            RuntimeWarning,
            stacklevel=4,
        )


def _has_error_node(root: Any) -> bool:
    """Whether the tree holds an ERROR node (only subtrees that hold an error are searched)."""
    if not root.has_error:
        return False
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR":
            return True
        stack.extend(child for child in node.children if child.has_error)
    return False


def decode_java_js(text: str, language: Literal["java", "javascript"]) -> list[dict[str, dict[str, Any]]]:
    """Decode a Java / JavaScript prompting answer the way the official tree-sitter decoder does."""
    if language not in ("java", "javascript"):
        raise ValueError(f"language must be 'java' or 'javascript', got {language!r}")
    text = check_output_text(text)
    if len(text) > MAX_SOURCE_CHARS:
        raise DecodeError(
            f"{language} output is longer than {MAX_SOURCE_CHARS} characters ({len(text)}): not parsed"
        )
    source = bracket_wrap(text)[1:-1]
    try:
        data = source.encode("utf-8")
    except UnicodeEncodeError:
        raise DecodeError("output is not valid Unicode (lone surrogate)") from None
    parser = _parser(language)
    tree = parser.parse(data)
    root = tree.root_node
    if _has_error_node(root):
        raise DecodeError(f"{language} syntax error (tree-sitter ERROR node)")
    try:
        calls = _java_calls(root, source) if language == "java" else _js_calls(root)
    except DecodeError:
        raise
    except (RecursionError, MemoryError):
        raise DecodeError("input too deeply nested") from None
    except Exception as exc:
        raise DecodeError(f"cannot read the call: {type(exc).__name__}: {exc}") from None
    if calls is None:
        raise DecodeError(f"no {language} function call found", WRONG_OUTPUT_FORMAT)
    return calls


def _java_calls(root: Any, source: str) -> list[dict[str, dict[str, Any]]] | None:
    def text(node: Any) -> str:
        if node is None:
            raise DecodeError("malformed call: a required part is missing")
        return source[node.start_byte : node.end_byte]  # byte offsets on a str, as the official code

    # Pre-order search for the first method_invocation; the official search is recursive (one frame a level).
    stack: list[tuple[Any, int]] = [(root, 1)]
    while stack:
        node, frames = stack.pop()
        if frames > FRAME_LIMIT:
            raise DecodeError("input too deeply nested")
        if node.type != "method_invocation":
            stack.extend((child, frames + 1) for child in reversed(node.children))
            continue
        args_node = node.child_by_field_name("arguments")
        if args_node is None:
            continue
        method = text(node.child_by_field_name("name"))
        obj = node.child_by_field_name("object")
        name = f"{text(obj)}.{method}" if obj is not None else method
        args: dict[Any, Any] = {}
        for child in args_node.children:
            if child.type == "assignment_expression":
                parts = child.children
                if len(parts) < 3:
                    raise DecodeError("malformed named argument")
                key: Any = text(parts[0])
                value = _java_value_text(parts[2], False, frames + 2, text)
            elif child.type in ("identifier", "class_literal", "set"):
                key = None
                value = _java_value_text(child, False, frames + 2, text)
            else:
                continue
            if key in args:
                raise DecodeError("Error: Multiple arguments with the same name are not supported.")
            args[key] = value
        return [{name: args}]
    return None


_JAVA_RAW_TYPES = frozenset({"identifier", "class_literal", "type_identifier", "method_invocation"})
_JAVA_PUNCT = frozenset({",", "(", ")"})


def _java_value_text(node: Any, nested: bool, frames: int, text: Callable[[Any], str]) -> str:
    """The official ``traverse_node``: the source text of an argument value, rebuilt from its tokens."""
    # Explicit stack: ("visit", node, nested, frames) or ("join", kind, count, extra).
    results: list[str] = []
    work: list[tuple] = [("visit", node, nested, frames)]
    while work:
        item = work.pop()
        if item[0] == "join":
            _, kind, count, extra = item
            parts = results[len(results) - count :] if count else []
            del results[len(results) - count :]
            if kind == "concat":
                results.append("".join(parts))
            elif kind == "array":
                results.append(f"new {parts[0]}[]{parts[1]}")
            elif kind == "object":
                if extra:
                    results.append(f"new {parts[0]}({', '.join(parts[1:])})")
                else:
                    results.append(f"new {parts[0]}()")
            else:  # set
                results.append("{" + ", ".join(parts) + "}")
            continue
        _, cur, is_nested, depth = item
        if depth > FRAME_LIMIT:
            raise DecodeError("input too deeply nested")
        if cur is None:
            raise DecodeError("malformed value: a required part is missing")
        kind = cur.type
        if kind in ("string_literal", "character_literal"):
            raw = text(cur)
            results.append(raw if is_nested else raw[1:-1])
        elif kind in _JAVA_RAW_TYPES:
            results.append(text(cur))
        elif kind == "array_creation_expression":
            type_node = cur.child_by_field_name("type")
            value_node = cur.child_by_field_name("value")
            if type_node is None or value_node is None:
                raise DecodeError("array creation without an initializer is not supported")
            work.append(("join", "array", 2, None))
            work.append(("visit", value_node, True, depth + 1))
            work.append(("visit", type_node, True, depth + 1))
        elif kind == "object_creation_expression":
            type_node = cur.child_by_field_name("type")
            args_node = cur.child_by_field_name("arguments")
            if type_node is None:
                raise DecodeError("object creation without a type")
            arg_children = (
                [c for c in args_node.children if c.type not in _JAVA_PUNCT] if args_node is not None else []
            )
            work.append(("join", "object", 1 + len(arg_children), args_node is not None))
            for child in reversed(arg_children):
                work.append(("visit", child, True, depth + 1))
            work.append(("visit", type_node, True, depth + 1))
        elif kind == "set":
            items = [c for c in cur.children if c.type not in (",", "set")]
            work.append(("join", "set", len(items), None))
            for child in reversed(items):
                work.append(("visit", child, True, depth + 2))
        elif cur.child_count > 0:
            # Official: "".join(<generator>) costs three Python frames a level in CPython 3.11.
            children = cur.children
            work.append(("join", "concat", len(children), None))
            for child in reversed(children):
                work.append(("visit", child, True, depth + 3))
        else:
            results.append(text(cur))
    return results[0]


def _js_calls(root: Any) -> list[dict[str, dict[str, Any]]] | None:
    if root.type != "program":
        return None
    for stmt in root.children:
        if stmt.type != "expression_statement":
            continue
        for sub in stmt.children:
            if sub.type != "call_expression":
                continue
            children = sub.children
            if len(children) < 2:
                raise DecodeError("malformed call")
            name = children[0].text.decode("utf-8")
            args: dict[Any, Any] = {}
            for child in children[1].children:
                if child.type == "assignment_expression":
                    parts = child.children
                    if len(parts) < 3:
                        raise DecodeError("malformed named argument")
                    key: Any = parts[0].text.decode("utf-8")
                    value = parts[2].text.decode("utf-8")
                    if _quoted(value):
                        value = value[1:-1]
                elif child.type in ("identifier", "true"):
                    key = None
                    value = child.text.decode("utf-8")
                else:
                    continue
                if key in args:
                    raise DecodeError("Error: Multiple arguments with the same name are not supported.")
                args[key] = value
            return [{name: args}]
    return None
