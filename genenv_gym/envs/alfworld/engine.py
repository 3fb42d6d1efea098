"""The real ALFWorld engine: TextWorld's PDDL backend with ALFWorld's wrappers, reusing parsed games.

This is the stack ``AlfredTWEnv.init_env`` builds (``PddlEnv`` + ``AlfredDemangler(shuffle=False)`` +
``AlfredInfos``), driven one game at a time. Caches make it faster than the raw stack without changing
what it computes: the PDDL-to-SAS translation of a problem (textworld translates the whole problem twice on
every ``reset``, once for play and once for its planner; the planner's is made only when a plan is asked
for), the parsed grammar of a game, and the parse of each text template the grammar derives (textworld
re-parses every command template at every step). ``tests/test_alfworld_engine.py`` checks that the
transcripts are identical to the raw stack's. textworld and alfworld are imported only when an engine is
built.

The expert: alfworld 0.4.2's ``AlfredTWEnv`` ignores ``expert_type`` and its ``AlfredExpert`` always builds
the hand-coded expert, which needs ``traj_data.json``. This engine uses neither: the expert is the game's
stored walkthrough, and ``plan()`` asks fast-downward directly (what ALFWorld's planner expert reads as
``policy_commands``).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import os
import sys
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

INSTALL_HINT = (
    'ALFWorld needs the real engine: pip install "genenv-gym[alfworld]" '
    "(textworld[pddl]==1.7.0, alfworld==0.4.2)"
)
#: Translated problems kept per process (each holds fast-downward's translated task, about 1 MB).
TRANSLATION_CACHE_SIZE = 64


@dataclass(frozen=True)
class EngineState:
    """What the engine says after a reset or a step."""

    feedback: str
    admissible_commands: tuple[str, ...]
    won: bool
    moved: bool = True


def require_engine() -> None:
    """Raise ImportError with install instructions when textworld[pddl] or alfworld is missing."""
    try:
        _engine_classes()
    except ImportError as error:
        raise ImportError(f"{INSTALL_HINT} ({error})") from error


@lru_cache(maxsize=1)
def _engine_classes() -> dict[str, Any]:
    """Import the engine once and build the caching subclasses of its PDDL backend."""
    import fast_downward
    import textworld
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
    from textworld.core import GameState
    from textworld.envs.pddl import PddlEnv, textgen
    from textworld.envs.pddl import logic as pddl_logic

    translate = _memoized_translation(fast_downward.pddl2sas)

    class MemoGrammar(textgen.ContextSensitiveGrammar):
        """textworld 1.7.0's ``ContextSensitiveGrammar.derive``; each start string is parsed once."""

        def derive(self, start: str, context: Any = None) -> str:
            context = {} if context is None else context
            derivation = copy.deepcopy(_parse_symbols(textgen._parse_and_convert, start))[::-1]
            for symbol in derivation:
                symbol.context = textgen.copy_context(context)
            derived = []
            while derivation:
                symbol = derivation.pop()
                if isinstance(symbol, textgen.TerminalSymbol):
                    derived.append(symbol)
                elif isinstance(symbol, textgen.NonterminalSymbol):
                    derivation += self.replace(symbol)[::-1]
                elif isinstance(symbol, (textgen.ConditionalSymbol, textgen.EvalSymbol, textgen.ListSymbol)):
                    derivation += symbol.derive()[::-1]
                else:
                    raise NotImplementedError(f"Unknown symbol: {type(symbol)}")
            return "".join(map(str, derived))

    class CachedPddlState(pddl_logic.PddlState):
        """textworld 1.7.0's ``PddlState.__init__``, with its PDDL-to-SAS translation memoized, and the
        planner's translation deferred to the first ``replan`` (most episodes never plan)."""

        def __init__(self, downward_lib: Any, pddl_problem: str, logic: Any) -> None:
            from collections import Counter, defaultdict

            from textworld.logic import Proposition, Variable

            self._facts = defaultdict(set)
            self._vars_by_name = {}
            self._vars_by_type = defaultdict(set)
            self._var_counts = Counter()
            self._logic = logic
            self.downward_lib = downward_lib
            self.pddl_problem = pddl_problem
            self.task, self.sas = translate(logic.domain, pddl_problem)
            self._actions = {a.name: a for a in self.task.actions}
            for type_ in self.task.types:
                with contextlib.suppress(ValueError):
                    logic.types.add(textworld.logic.Type(type_.name, type_.supertype_names))
            self.downward_lib.load_sas(self.sas.encode("utf-8"))
            self.replan_loaded = False  # the planner's own translation is made when a plan is asked for
            self.name2type = {o.name: o.type_name for o in self.task.objects}

            def to_proposition(atom: Any) -> Any:
                if isinstance(atom, fast_downward.translate.pddl.conditions.Atom):
                    if atom.predicate == "=":
                        return None
                    return Proposition(atom.predicate, [Variable(a, self.name2type[a]) for a in atom.args])
                if isinstance(atom, fast_downward.translate.pddl.f_expression.Assign):
                    if atom.fluent.symbol == "total-cost":
                        return None
                    name = f"{atom.expression.value}"
                    if str.isdigit(name):
                        return None
                    return Proposition(name, [Variable(a, self.name2type[a]) for a in atom.fluent.args])
                return None

            self.add_facts([fact for fact in map(to_proposition, self.task.init) if fact is not None])
            atoms = (pddl_logic.Atom * self.downward_lib.get_state_size())()
            self.downward_lib.get_state(atoms)
            facts = [atom.get_fact(self.name2type) for atom in atoms]
            self.add_facts([fact for fact in facts if not fact.is_negation])

        def replan(self, infos: Any) -> Any:
            if not self.replan_loaded:
                sas_replan = translate(self._logic.domain, self.pddl_problem, True)
                self.downward_lib.load_sas_replan(sas_replan.encode("utf-8"))
                self.replan_loaded = True
            return super().replan(infos)

    class CachedPddlEnv(PddlEnv):
        """``PddlEnv`` whose ``load`` and ``reset`` reuse the parsed grammar and the translated problem."""

        def load(self, filename_or_data: Any) -> None:
            data = filename_or_data
            self._game_file = None
            if not isinstance(data, Mapping):
                self._game_file = str(filename_or_data)
                from genenv_gym.envs.alfworld.data import read_game

                data = read_game(filename_or_data)
            self._game_data = data
            self.walkthrough = data.get("walkthrough", None)
            self._logic = _game_logic(pddl_logic.GameLogic, data["pddl_domain"], data["grammar"])
            self._logic.grammar.__class__ = MemoGrammar  # same rules, parsed start strings reused
            self._pddl_state = CachedPddlState(self.downward_lib, data["pddl_problem"], self._logic)
            self._entity_infos = self._get_entity_infos()

        def reset(self) -> Any:
            """textworld 1.7.0's ``PddlEnv.reset``, building the state from the memoized translation."""
            self._pddl_state = CachedPddlState(
                self.downward_lib, self._game_data["pddl_problem"], self._logic
            )
            self.prev_state = None
            self.state = GameState()
            self._last_action = None
            self._moves = 0
            context = {
                "state": self._pddl_state,
                "facts": list(self._pddl_state.facts),
                "variables": {},
                "mapping": {},
                "entity_infos": self._entity_infos,
            }
            self.state.feedback = self._logic.grammar.derive("#intro#", context)
            self.state.raw = self.state.feedback
            self._gather_infos()
            if "walkthrough" in self.request_infos.extras:
                self.state["extra.walkthrough"] = self.walkthrough or self._pddl_state.replan(
                    self._entity_infos
                )
            return self.state

    return {
        "textworld": textworld,
        "CachedPddlEnv": CachedPddlEnv,
        "RawPddlEnv": PddlEnv,
        "AlfredDemangler": AlfredDemangler,
        "AlfredInfos": AlfredInfos,
    }


_TRANSLATIONS: OrderedDict[tuple[str, bool], Any] = OrderedDict()


def _memoized_translation(pddl2sas: Callable[..., Any]) -> Callable[[str, str, bool], Any]:
    """fast-downward's translation of (domain, problem), plain or ``optimize``-d for the planner, kept in an
    LRU cache; sys.argv, which pddl2sas overwrites for fast-downward's option parser, is put back."""

    def translate(domain: str, problem: str, optimize: bool = False) -> Any:
        key = (hashlib.sha1(f"{domain}\0{problem}".encode()).hexdigest(), optimize)
        if key in _TRANSLATIONS:
            _TRANSLATIONS.move_to_end(key)
            return _TRANSLATIONS[key]
        argv = list(sys.argv)
        try:
            result = pddl2sas(
                domain, problem, verbose=bool(os.environ.get("TW_PDDL_DEBUG")), optimize=optimize
            )
        finally:
            sys.argv[:] = argv
        _TRANSLATIONS[key] = result if not optimize else result[1]
        if len(_TRANSLATIONS) > TRANSLATION_CACHE_SIZE:
            _TRANSLATIONS.popitem(last=False)
        return _TRANSLATIONS[key]

    return translate


def clear_caches() -> None:
    """Forget every parsed game and translation of this process (for cold-start measurements)."""
    _TRANSLATIONS.clear()
    _LOGIC_CACHE.clear()
    _parse_symbols.cache_clear()


@lru_cache(maxsize=4096)
def _parse_symbols(parse: Callable[..., Any], start: str) -> Any:
    """textgen's parse of a start string (a command template or ``#rule#``), kept: the parser is slow."""
    return parse(start, rule_name="symbols")


_LOGIC_CACHE: OrderedDict[str, Any] = OrderedDict()


def _game_logic(game_logic_class: type, domain: str, grammar: str) -> Any:
    """The parsed GameLogic of a (domain, grammar) pair, parsed once per process (LRU of 32)."""
    key = hashlib.sha1(f"{domain}\0{grammar}".encode()).hexdigest()
    if key not in _LOGIC_CACHE:
        _LOGIC_CACHE[key] = game_logic_class(domain=domain, grammar=grammar)
        if len(_LOGIC_CACHE) > 32:
            _LOGIC_CACHE.popitem(last=False)
    _LOGIC_CACHE.move_to_end(key)
    return _LOGIC_CACHE[key]


class AlfredEngine:
    """One ALFWorld game at a time on the real engine: ``load``, ``reset``, ``step`` commands, ``plan``.

    Args:
        cached: reuse translations and parsed grammars (default). ``False`` runs textworld's own ``PddlEnv``
            unchanged (the raw engine, for comparisons).
    """

    def __init__(self, cached: bool = True) -> None:
        require_engine()
        classes = _engine_classes()
        infos = classes["textworld"].EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
        backend = classes["CachedPddlEnv" if cached else "RawPddlEnv"](infos)
        self._backend = backend
        self._env = classes["AlfredInfos"](classes["AlfredDemangler"](backend, shuffle=False))
        self._loaded: str | None = None
        self._has_game = False
        self._state: Any = None

    def load(self, game: str | os.PathLike | Mapping[str, Any], key: str | None = None) -> None:
        """Load a game file or game data; reloading the game already loaded is free (``key`` names data)."""
        key = key or (str(game) if not isinstance(game, Mapping) else None)
        if key is not None and key == self._loaded:
            return
        self._env.load(game if isinstance(game, Mapping) else str(game))
        self._loaded = key
        self._has_game = True
        self._state = None

    def reset(self) -> EngineState:
        """Start the loaded game from its initial state."""
        if not self._has_game:
            raise RuntimeError("load a game before reset()")
        self._state = self._env.reset()
        return self._snapshot(moved=True)

    def step(self, command: str) -> EngineState:
        """Send one command; an inadmissible one gives the engine's "Nothing happens." and changes nothing."""
        if self._state is None:
            raise RuntimeError("reset() the engine before step()")
        self._state, _, _ = self._env.step(command)
        return self._snapshot(moved=self._state.get("_last_action") is not None)

    def plan(self) -> list[str]:
        """The PDDL planner's (fast-downward) plan from the current state; empty when none is found."""
        if self._state is None:
            raise RuntimeError("reset() the engine before plan()")
        backend = self._backend
        argv = list(sys.argv)
        try:
            return list(backend._pddl_state.replan(backend._entity_infos))
        finally:
            sys.argv[:] = argv

    @property
    def state(self) -> EngineState:
        """The current state (after the last reset or step)."""
        if self._state is None:
            raise RuntimeError("reset() the engine first")
        return self._snapshot(moved=self._state.get("_last_action") is not None)

    def facts(self) -> list[Any]:
        """The current PDDL facts (textworld Propositions over the game's internal names)."""
        return list(self._backend._pddl_state.facts)

    def _snapshot(self, moved: bool) -> EngineState:
        state = self._state
        return EngineState(
            feedback=str(state["feedback"]),
            admissible_commands=tuple(state["admissible_commands"]),
            won=bool(state["won"]),
            moved=moved,
        )

    def close(self) -> None:
        self._env.close()
