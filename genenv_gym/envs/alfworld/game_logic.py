"""TextWorld's ``GameLogic`` for an ALFWorld game, with each grammar rule's text parsed once per process.

Every ALFWorld game carries its own copy of the same text grammar (only the task line differs), and
textworld 1.7.0 parses each rule's right-hand side with TatSu for every game it loads: about a second per
new game. ``game_logic`` builds the same ``GameLogic`` (same actions, same rules in the same order) but
takes each right-hand side's parse from ``textgen_fast.parsed_symbols``, shared by every game. The parsed
symbols are never modified (``textgen_fast.derive`` only reads them). Only textworld is imported here; the
engine imports this module when it is built.
"""

from __future__ import annotations

import json
from typing import Any

import textworld.logic
from textworld.envs.pddl import logic as pddl_logic
from textworld.envs.pddl import textgen
from textworld.envs.pddl.logic import model as logic_model

from genenv_gym.envs.alfworld.textgen_fast import parsed_symbols


class _SharedRulesConverter(pddl_logic._ModelConverter):
    """textworld 1.7.0's ``_ModelConverter`` whose grammar reuses parsed right-hand sides."""

    def walk_PddlDocumentNode(self, node: Any) -> tuple[dict[str, Any], Any]:
        actions: dict[str, Any] = {}
        rules: dict[str, Any] = {}
        for part in node.parts:
            if isinstance(part, logic_model.ActionTypeNode):
                action = self.walk(part)
                actions[action.name.lower()] = action
                lines = action.grammar.split("\n")
                rules.update(
                    json.loads("\n".join(line for line in lines if not line.lstrip().startswith("#")))
                )
            elif isinstance(part, logic_model.ActionGrammarNode):
                rules.update(json.loads(self._unescape_block(part.code)))
        return actions, _grammar(json.loads(json.dumps(rules)))


def _grammar(rules: dict[str, list[dict[str, Any]]]) -> Any:
    """``ContextSensitiveGrammar.parse`` of the rules (as its JSON text), right-hand sides parsed once."""
    grammar = textgen.ContextSensitiveGrammar()
    for name, productions in rules.items():
        for rule in productions:
            grammar.add_rule(
                textgen.ProductionRule(
                    lhs=name,
                    rhs=list(parsed_symbols(rule["rhs"])),
                    weight=rule.get("weight", 1),
                    condition=rule.get("condition", ""),
                )
            )
    return grammar


def game_logic(domain: str, grammar: str) -> Any:
    """What ``textworld.envs.pddl.logic.GameLogic(domain=domain, grammar=grammar)`` builds."""
    logic = pddl_logic.GameLogic.__new__(pddl_logic.GameLogic)
    logic.domain = domain
    logic.grammar = textgen.ContextSensitiveGrammar()
    logic.actions = {}
    logic.types = textworld.logic.TypeHierarchy()
    actions, parsed_grammar = _SharedRulesConverter().walk(
        pddl_logic._PARSER.parse(grammar, rule_name="pddlStart")
    )
    logic.actions.update(actions)
    logic.grammar.update(parsed_grammar)
    return logic
