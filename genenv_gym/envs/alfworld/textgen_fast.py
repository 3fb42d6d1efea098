"""TextWorld's PDDL text generation (``textgen``), computing the same text without copying or re-parsing.

textworld 1.7.0's ``ContextSensitiveGrammar.derive`` deep-copies every symbol and every generation context
(the entity infos of its variables included) each time it expands one, and parses every start string and
every conjunctive query with TatSu each time it meets them. Nothing in a derivation ever changes a context
after it is made, so ``derive`` here shares contexts instead of copying them, reads the parsed symbols
without copying them, and parses each start string, query and eval expression once per process. The
expansion order, the first-applicable-rule choice, the list rendering and the eval namespace are textgen's
own; ``tests/envs/alfworld/test_alfworld_engine.py`` and ``benchmarks/alfworld_throughput.py`` check the
output against textgen's, byte for byte.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from textworld.envs.pddl import textgen
from textworld.logic import Rule

_TERMINAL = textgen.TerminalSymbol
_NONTERMINAL = textgen.NonterminalSymbol
_CONDITIONAL = textgen.ConditionalSymbol
_EVAL = textgen.EvalSymbol
_LIST = textgen.ListSymbol
_EVAL_GLOBALS = vars(textgen)  # textgen evaluates ``{expression}``s in its own module's globals


@lru_cache(maxsize=8192)
def parsed_symbols(start: str) -> tuple[Any, ...]:
    """textgen's parse of a start string (a template, a rule's right-hand side, ``#rule#``); never mutated."""
    return tuple(textgen._parse_and_convert(start, rule_name="symbols"))


@lru_cache(maxsize=4096)
def conjunctive_query(expression: str) -> Any:
    """``Rule.parse_conjunctive_query(expression)``, parsed once (all_assignments only reads the rule)."""
    return Rule.parse_conjunctive_query(expression)


@lru_cache(maxsize=4096)
def _compiled(expression: str) -> Any:
    return compile(expression, "<string>", "eval")


def clear_parse_caches() -> None:
    """Forget every parsed start string, query and expression (for cold-start measurements)."""
    parsed_symbols.cache_clear()
    conjunctive_query.cache_clear()
    _compiled.cache_clear()


def derive(grammar: Any, start: str, context: dict[str, Any]) -> str:
    """What ``grammar.derive(start, context)`` returns in textworld 1.7.0 (``grammar`` is its
    ``ContextSensitiveGrammar``; ``context`` holds state, facts, variables, mapping and entity_infos)."""
    rules = grammar._rules
    derived: list[str] = []
    stack: list[tuple[Any, dict[str, Any]]] = [(item, context) for item in reversed(parsed_symbols(start))]
    pop, push = stack.pop, stack.append
    while stack:
        symbol, ctx = pop()
        if isinstance(symbol, _TERMINAL):
            derived.append(str(symbol.symbol))
        elif isinstance(symbol, _NONTERMINAL):
            for item in reversed(_first_applicable_rule(rules, symbol, ctx).rhs):
                push((item, ctx))
        elif isinstance(symbol, _CONDITIONAL):
            stack.extend(reversed(_conditional(symbol, ctx)))
        elif isinstance(symbol, _EVAL):
            derived.append(str(_evaluate(symbol, ctx)))
        elif isinstance(symbol, _LIST):
            stack.extend(reversed(_display_list(_expand(symbol.symbol, ctx), ctx)))
        else:
            raise NotImplementedError(f"Unknown symbol: {type(symbol)}")
    return "".join(derived)


def _first_applicable_rule(rules: Any, symbol: Any, ctx: dict[str, Any]) -> Any:
    """The first production of ``symbol`` whose condition holds in the context's state (textgen's choice)."""
    candidates = rules.get(str(symbol))
    if not candidates:
        raise textgen.CSGUnknownSymbolError(symbol)
    for rule in candidates:
        if not rule.condition:
            return rule
        query = conjunctive_query(rule.condition)
        if next(iter(ctx["state"].all_assignments(query, ctx["mapping"])), None) is not None:
            return rule
    raise IndexError("list index out of range")  # textgen's rules[0] on no applicable production


def _conditional(symbol: Any, ctx: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    """A ``{expression | given}`` symbol: its expression once per match of ``given`` (once if none given)."""
    contexts = _query(symbol.given, ctx) if symbol.given else [ctx]
    return [(symbol.expression, context) for context in contexts]


def _expand(symbol: Any, ctx: dict[str, Any]) -> list[tuple[Any, dict[str, Any]]]:
    """What ``symbol.derive()`` gives inside a list symbol (textgen only lists conditional symbols)."""
    if isinstance(symbol, _CONDITIONAL):
        return _conditional(symbol, ctx)
    if isinstance(symbol, _EVAL):
        return [(_TERMINAL(_evaluate(symbol, ctx)), ctx)]
    if isinstance(symbol, _LIST):
        return _display_list(_expand(symbol.symbol, ctx), ctx)
    raise AttributeError(f"{type(symbol).__name__} object has no attribute 'derive'")


def _display_list(items: list[tuple[Any, dict[str, Any]]], ctx: dict[str, Any]) -> list[tuple[Any, Any]]:
    """textgen's ``display_list``: empty, one item, or items joined by the grammar's separators."""
    if not items:
        return [(_NONTERMINAL("list_empty"), ctx)]
    if len(items) == 1:
        return items
    separator, last = (_NONTERMINAL("list_separator"), ctx), (_NONTERMINAL("list_last_separator"), ctx)
    joined = [items[0]]
    for item in items[1:-1]:
        joined += [separator, item]
    return [*joined, last, items[-1]]


def _query(expression: str, ctx: dict[str, Any]) -> list[dict[str, Any]]:
    """textgen's ``query``: one context per assignment of the query's placeholders in the state."""
    entity_infos = ctx["entity_infos"]
    contexts = []
    for mapping in ctx["state"].all_assignments(conjunctive_query(expression), ctx["mapping"]):
        variables = dict(ctx["variables"])
        variables.update({ph.name: entity_infos[var.name] for ph, var in mapping.items()})
        merged = dict(ctx["mapping"])
        merged.update(mapping)
        contexts.append({**ctx, "variables": variables, "mapping": merged})
    return contexts


def _evaluate(symbol: Any, ctx: dict[str, Any]) -> Any:
    """An ``{expression}``'s value, in the namespace textgen's ``EvalSymbol.derive`` gives it: the context's
    variables, then that frame's own locals (``self``, ``context``) over them, ``value`` not yet bound."""
    namespace = dict(ctx["variables"])
    namespace["self"] = symbol
    namespace["context"] = ctx
    namespace.pop("value", None)
    return eval(_compiled(symbol.expression), _EVAL_GLOBALS, namespace)
