"""TextWorld's ``PddlState`` with the same facts and answers, made cheaper to build and to query.

textworld 1.7.0's ``PddlState`` translates its PDDL problem to SAS twice when it is built (once for play,
once for the planner) and converts every fast-downward atom of the initial state to a Proposition; its
``all_assignments`` (what every ``{... | query}`` of the text grammar and every rule condition asks) sorts the
facts of each queried signature on every call. ``FastPddlState`` takes its translation from a memo (the
planner's only when a plan is asked for), replays the initial facts it computed the first time for the same
translation (in the same order, so the fact sets are built identically), and keeps each signature's facts
sorted until a fact of that signature is added or removed. Only textworld is imported here; the engine
imports this module when it is built.
"""

from __future__ import annotations

import contextlib
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import fast_downward
import textworld.logic
from textworld.envs.pddl import logic as pddl_logic
from textworld.logic import Proposition, Signature, Variable

#: (domain, problem) -> translated task and SAS text; (domain, problem, True) -> the planner's SAS text.
Translate = Callable[..., Any]

#: id(translated task) -> (that task, its initial facts); the task is held so that its id stays its own.
_INITIAL_FACTS: OrderedDict[int, tuple[Any, tuple[tuple[Any, ...], tuple[Any, ...]]]] = OrderedDict()
#: Translations whose initial facts are kept (each holds its translation alive: keep as few as the engine).
INITIAL_FACTS_KEPT = 1


class FastPddlState(pddl_logic.PddlState):
    """textworld 1.7.0's ``PddlState`` (same facts, actions, effects, goal checks and plans), built from a
    memoized translation and answering ``all_assignments`` from per-signature sorted facts.

    Args:
        downward_lib: the fast-downward library the state plays on (loaded with this problem's SAS).
        pddl_problem: the game's PDDL problem.
        logic: the game's parsed ``GameLogic``.
        translate: ``translate(domain, problem)`` -> (task, sas) and ``translate(domain, problem, True)`` ->
            the planner's sas, memoized by the caller (the task object identifies the translation).
    """

    def __init__(self, downward_lib: Any, pddl_problem: str, logic: Any, translate: Translate) -> None:
        self._facts = defaultdict(set)
        self._vars_by_name = {}
        self._vars_by_type = defaultdict(set)
        self._var_counts = Counter()
        self._sorted: dict[Any, tuple[Any, ...]] = {}
        self._by_argument: dict[Any, dict[int, dict[Any, tuple[Any, ...]]]] = {}
        self._subsignatures: dict[Any, list[Any]] = {}
        self._logic = logic
        self.downward_lib = downward_lib
        self.pddl_problem = pddl_problem
        self._translate = translate
        self.task, self.sas = translate(logic.domain, pddl_problem)
        self._actions = {a.name: a for a in self.task.actions}
        for type_ in self.task.types:
            with contextlib.suppress(ValueError):
                logic.types.add(textworld.logic.Type(type_.name, type_.supertype_names))
        self.downward_lib.load_sas(self.sas.encode("utf-8"))
        self.replan_loaded = False  # the planner's own translation is made when a plan is asked for
        self.name2type = {o.name: o.type_name for o in self.task.objects}
        from_problem, from_sas = self._initial_facts()
        self.add_facts(from_problem)
        self.add_facts(from_sas)

    def _initial_facts(self) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """The facts textworld adds at construction: the problem's init atoms, then fast-downward's state
        (negations dropped); computed once per translation, for the last few translations used."""
        key = id(self.task)
        cached = _INITIAL_FACTS.get(key)
        if cached is not None and cached[0] is self.task:
            _INITIAL_FACTS.move_to_end(key)
            return cached[1]
        from_problem = tuple(fact for fact in map(self._to_proposition, self.task.init) if fact is not None)
        atoms = (pddl_logic.Atom * self.downward_lib.get_state_size())()
        self.downward_lib.get_state(atoms)
        from_sas = tuple(
            fact for fact in (atom.get_fact(self.name2type) for atom in atoms) if not fact.is_negation
        )
        _INITIAL_FACTS[key] = (self.task, (from_problem, from_sas))
        _INITIAL_FACTS.move_to_end(key)
        while len(_INITIAL_FACTS) > INITIAL_FACTS_KEPT:
            _INITIAL_FACTS.popitem(last=False)
        return from_problem, from_sas

    def _to_proposition(self, atom: Any) -> Any:
        """textworld's ``_atom2proposition``: a PDDL init atom as a Proposition (None: not a fact)."""
        if isinstance(atom, fast_downward.translate.pddl.conditions.Atom):
            if atom.predicate == "=":
                return None
            return Proposition(atom.predicate, [Variable(a, self.name2type[a]) for a in atom.args])
        if isinstance(atom, fast_downward.translate.pddl.f_expression.Assign):
            if atom.fluent.symbol == "total-cost":
                return None
            name = f"{atom.expression.value}"
            if str.isdigit(name):  # distance relations
                return None
            return Proposition(name, [Variable(a, self.name2type[a]) for a in atom.fluent.args])
        return None

    def replan(self, infos: Any) -> Any:
        """The planner's plan from this state (its translation is loaded on the first call)."""
        if not self.replan_loaded:
            sas_replan = self._translate(self._logic.domain, self.pddl_problem, True)
            self.downward_lib.load_sas_replan(sas_replan.encode("utf-8"))
            self.replan_loaded = True
        return super().replan(infos)

    def add_fact(self, prop: Proposition) -> None:
        self._sorted.pop(prop.signature, None)
        self._by_argument.pop(prop.signature, None)
        super().add_fact(prop)

    def remove_fact(self, prop: Proposition) -> None:
        self._sorted.pop(prop.signature, None)
        self._by_argument.pop(prop.signature, None)
        super().remove_fact(prop)

    def _sorted_facts(self, signature: Any) -> tuple[Any, ...]:
        """``sorted(self.facts_with_signature(signature))``, kept until that signature's facts change."""
        facts = self._sorted.get(signature)
        if facts is None:
            facts = self._sorted[signature] = tuple(sorted(self.facts_with_signature(signature)))
        return facts

    def _candidates(self, signature: Any, pred: Any, mapping: dict[Any, Any]) -> tuple[Any, ...]:
        """The sorted facts of ``signature`` that can match ``pred`` under ``mapping``: those whose argument
        at the first already-mapped parameter is that parameter's variable (the others cannot match)."""
        for position, ph in enumerate(pred.parameters):
            var = mapping.get(ph)
            if var is not None:
                indexes = self._by_argument.setdefault(signature, {})
                index = indexes.get(position)
                if index is None:
                    grouped: dict[Any, list[Any]] = {}
                    for prop in self._sorted_facts(signature):
                        grouped.setdefault(prop.arguments[position], []).append(prop)
                    index = indexes[position] = {key: tuple(props) for key, props in grouped.items()}
                return index.get(var, ())
        return self._sorted_facts(signature)

    def _signatures(self, pred: Any) -> list[Any]:
        """The signatures a predicate matches: its own and those of every combination of subtypes."""
        signatures = self._subsignatures.get(pred.signature)
        if signatures is None:
            types = [self._logic.types.get(t) for t in pred.signature.types]
            signatures = [
                Signature(pred.signature.name, [t.name for t in subtypes])
                for subtypes in self._logic.types.multi_subtypes(types)
            ]
            self._subsignatures[pred.signature] = signatures
        return signatures

    def _all_applicable_assignments(
        self,
        rule: Any,
        mapping: dict[Any, Any],
        used_vars: set[Any],
        new_phs_by_depth: list[list[Any]],
        depth: int,
    ) -> Iterator[Any]:
        """textworld 1.7.0's ``State._all_applicable_assignments`` (same assignments, same order)."""
        new_phs = new_phs_by_depth[depth]
        if depth >= len(rule.preconditions):
            yield from self._all_assignments(new_phs, mapping, used_vars, False)
            return
        pred = rule.preconditions[depth]
        for signature in self._signatures(pred):
            for prop in self._candidates(signature, pred, mapping):
                for ph, var in zip(pred.parameters, prop.arguments, strict=False):
                    existing = mapping.get(ph)
                    if existing is None:
                        if var in used_vars:
                            break
                        mapping[ph] = var
                        used_vars.add(var)
                    elif existing != var:
                        break
                else:
                    yield from self._all_applicable_assignments(
                        rule, mapping, used_vars, new_phs_by_depth, depth + 1
                    )
                for ph in new_phs:  # put the mapping back as it was before this fact
                    used_vars.discard(mapping.pop(ph, None))
