"""Calls on an entry's backends: ground-truth call strings, decoded model calls, fresh instances.

Nothing here executes text. A ground-truth string (``"cd(folder='document')"``,
``"sort('final_report.pdf')"``) is read by a strict pattern when its arguments are plain literals, else
parsed with :mod:`ast` and its arguments read with :func:`ast.literal_eval` (the same result either way);
positional arguments are bound to the method's parameter names. Model output is
decoded by the single-turn BFCL decoder (:func:`genenv_gym.envs.bfcl.decode.decode_python`, the official
prompting decoder's results without ``eval``) and each call is then run as the official loop runs the
string it rebuilds from the decoded form (``parse_nested_value``): a dict argument whose values are all
dicts is a nested call (the official ``eval`` calls that backend method and passes its return value), other
dict keys become strings, an empty dict argument fails to decode, and the names ``kill``, ``exit``,
``quit``, ``remove``, ``unlink``, ``popen``, ``Popen``, ``run`` are refused.

With ``action_format="json"`` model output is JSON tool calls (``[{"name": "cd", "arguments": {"folder":
"lab"}}]``), decoded by the single-turn JSON decoder
(:func:`genenv_gym.envs.bfcl.decode.decode_json_calls`); as in the official FC path, which rebuilds each call
as ``name(k=repr(v))``, argument values are taken as they are (a dict is a dict, never a nested call).
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from keyword import iskeyword
from typing import Any

from genenv_gym.envs.bfcl.decode import decode_json_calls, decode_python, is_empty_output
from genenv_gym.envs.bfcl.decode_errors import DecodeError
from genenv_gym.envs.bfcl_multiturn.executor import execute_call, find_method, format_result
from genenv_gym.envs.bfcl_multiturn.gorilla_file_system import GorillaFileSystem
from genenv_gym.envs.bfcl_multiturn.math_api import MathAPI
from genenv_gym.envs.bfcl_multiturn.message_api import MessageAPI
from genenv_gym.envs.bfcl_multiturn.module_calls import ModuleCallError, call_module_function
from genenv_gym.envs.bfcl_multiturn.module_calls import resolve as resolve_module_function
from genenv_gym.envs.bfcl_multiturn.posting_api import TwitterAPI
from genenv_gym.envs.bfcl_multiturn.ticket_api import TicketAPI
from genenv_gym.envs.bfcl_multiturn.trading_bot import TradingBot
from genenv_gym.envs.bfcl_multiturn.travel_api import TravelAPI
from genenv_gym.envs.bfcl_multiturn.vehicle_control import VehicleControlAPI
from genenv_gym.suggest import check_choice, unknown_choice

#: Backend class name (as in ``involved_classes``) -> our class.
BACKENDS: dict[str, type] = {
    "GorillaFileSystem": GorillaFileSystem,
    "MathAPI": MathAPI,
    "MessageAPI": MessageAPI,
    "TwitterAPI": TwitterAPI,
    "TicketAPI": TicketAPI,
    "TradingBot": TradingBot,
    "TravelAPI": TravelAPI,
    "VehicleControlAPI": VehicleControlAPI,
}
#: Classes the official loop never loads a scenario into.
STATELESS: frozenset[str] = frozenset({"MathAPI"})
#: Names the official loop refuses to call.
REFUSED_NAMES: frozenset[str] = frozenset(
    {"kill", "exit", "quit", "remove", "unlink", "popen", "Popen", "run"}
)


@dataclass(frozen=True)
class Call:
    """One call: a method name and its keyword arguments (``args``: positional, ground truth only)."""

    name: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class FailedCall:
    """A model's call string that the official loop's ``eval`` fails on before any call runs (a syntax
    error, an unknown name as an argument); ``result`` is what the loop records."""

    result: str


@dataclass(frozen=True)
class NestedCall:
    """A decoded argument that the official loop evaluates as a call of a backend method."""

    call: Call


def make_instances(
    involved_classes: Sequence[str], initial_config: Mapping[str, Any], long_context: bool
) -> dict[str, Any]:
    """Fresh backends of an entry, each loaded from its ``initial_config`` part (every backend's
    ``_load_scenario`` copies what it keeps, so the config is never aliased)."""
    instances: dict[str, Any] = {}
    for name in involved_classes:
        if name not in BACKENDS:
            raise ValueError(unknown_choice("BFCL multi-turn backend class", name, BACKENDS))
        if name in STATELESS:
            instances[name] = BACKENDS[name]()
        else:
            instances[name] = BACKENDS[name](dict(initial_config.get(name, {})), long_context=long_context)
    return instances


#: ``name(arguments)`` whose arguments are plain literals: quoted strings without escapes, decimal numbers,
#: True, False, None, and flat lists of those, passed by position or keyword. That is the shape of nearly
#: every ground-truth call, read here without compiling it; anything else (or any doubt: non-ASCII names,
#: other whitespace, keywords as names) takes the ``ast`` path.
_SIMPLE_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)", re.DOTALL)
_SCALAR = (
    r"""'[^'\\\n\r\x00\ud800-\udfff]*'|"[^"\\\n\r\x00\ud800-\udfff]*"|"""
    r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?|True|False|None"
)
#: (Each run of blanks can be matched one way only: the patterns stay linear on hostile text.)
_LIST = rf"\[[ \t]*(?:(?:{_SCALAR})[ \t]*,[ \t]*)*(?:(?:{_SCALAR})[ \t]*(?:,[ \t]*)?)?\]"
_ARGUMENT = rf"[ \t]*(?:([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*)?({_SCALAR}|{_LIST})[ \t]*"
#: The whole argument list: arguments separated by commas, an optional trailing comma.
_SIMPLE_ARGUMENTS = re.compile(rf"(?:{_ARGUMENT},)*(?:{_ARGUMENT},?)?")
_ARGUMENT_ITEM = re.compile(_ARGUMENT)
_SCALAR_ITEM = re.compile(_SCALAR)
_CONSTANTS = {"True": True, "False": False, "None": None}


def _simple_call(text: str) -> Call | None:
    """The call read by the patterns above, or None when ``text`` is not that simple."""
    match = _SIMPLE_CALL.fullmatch(text)
    if match is None or iskeyword(match.group(1)) or match.group(1) == "__debug__":
        return None
    arguments = match.group(2)
    if _SIMPLE_ARGUMENTS.fullmatch(arguments) is None:
        return None
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for name, literal in _ARGUMENT_ITEM.findall(arguments):
        if not name:
            if kwargs:  # a positional argument after a keyword one: a syntax error
                return None
            args.append(_literal(literal))
        elif iskeyword(name) or name == "__debug__":
            return None
        else:
            kwargs[name] = _literal(literal)
    return Call(match.group(1), kwargs, tuple(args))


def _literal(text: str) -> Any:
    """The value of a literal matched by ``_SCALAR`` or ``_LIST``."""
    if text[0] == "[":
        return [_literal(item) for item in _SCALAR_ITEM.findall(text)]
    if text[0] in "'\"":
        return text[1:-1]
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    return float(text) if "." in text else int(text)


def parse_call_string(text: str) -> Call:
    """A ground-truth call string as a Call; ValueError when it is not ``name(literal arguments)``."""
    simple = _simple_call(text.strip())
    if simple is not None:
        return simple
    return _parse_with_ast(text)


def _parse_with_ast(text: str) -> Call:
    """``parse_call_string`` through :mod:`ast` (any call shape)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise ValueError(f"not a call: {text[:80]!r} ({type(error).__name__})") from None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call of a plain name: {text[:80]!r}")
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg is not None}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as error:
        raise ValueError(f"arguments are not literals: {text[:80]!r} ({type(error).__name__})") from None
    return Call(node.func.id, kwargs, args)


def parse_model_call(text: str) -> Call | FailedCall:
    """A model's call string (as the official result files hold them) as the call the official loop's
    ``eval`` would make; never raises, never evaluates.

    Read with :func:`compile` to an AST only: a call of a plain or dotted name whose arguments are
    literals or nested calls. A syntax error is the error ``eval`` reports; a bare name as an
    argument is ``name '<x>' is not defined``; any other expression is not run (a documented
    difference).
    """
    try:
        tree = compile(text.strip(), "<string>", "eval", ast.PyCF_ONLY_AST)
    except SyntaxError as error:
        return FailedCall(f"Error during execution: {error}")
    except (ValueError, RecursionError, MemoryError) as error:
        return FailedCall(f"Error during execution: {type(error).__name__}: {error}")
    try:
        return _model_call(tree.body)
    except _NotRun as error:
        return FailedCall(f"Error during execution: {error}")
    except (RecursionError, MemoryError) as error:
        return FailedCall(f"Error during execution: {type(error).__name__}: {error} (not run here)")


class _NotRun(Exception):
    """A call string part that the loop's ``eval`` would fail on, or that is not run here."""


def _call_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    raise _NotRun(f"the expression {ast.unparse(node)[:80]!r} is not a call that is run here")


def _model_call(node: ast.expr) -> Call:
    if not isinstance(node, ast.Call):
        raise _NotRun(f"the expression {ast.unparse(node)[:80]!r} is not a call that is run here")
    name = _call_name(node.func)
    args = tuple(_model_argument(a) for a in node.args)
    kwargs = {}
    for keyword in node.keywords:
        if keyword.arg is None:
            raise _NotRun("**-arguments are not run here")
        kwargs[keyword.arg] = _model_argument(keyword.value)
    return Call(name, kwargs, args)


def _model_argument(node: ast.expr) -> Any:
    if isinstance(node, ast.Call):
        return NestedCall(_model_call(node))
    if isinstance(node, ast.Name):
        raise _NotRun(f"name '{node.id}' is not defined")
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError) as error:
        raise _NotRun(f"the argument {ast.unparse(node)[:80]!r} is not a literal ({error})") from None


def keyword_call(instances: Mapping[str, Any], call: Call) -> Call:
    """``call`` with its positional arguments bound to the method's parameter names (when possible)."""
    if not call.args:
        return call
    method = find_method(instances, call.name)
    if method is None:
        return call
    try:
        bound = _signature(method).bind_partial(*call.args, **call.kwargs)
    except TypeError:
        return call
    return Call(call.name, dict(bound.arguments))


def _signature(method: Any) -> inspect.Signature:
    """The signature of a backend method (of a bound method: computed once per function)."""
    function = getattr(method, "__func__", None)
    if function is None:
        return inspect.signature(method)
    signature = _SIGNATURES.get(function)
    if signature is None:
        signature = _SIGNATURES[function] = inspect.signature(method)
    return signature


#: Function of a bound backend method -> the bound method's signature (the same for every instance).
_SIGNATURES: dict[Any, inspect.Signature] = {}


def run_call(instances: Mapping[str, Any], call: Call | FailedCall) -> str:
    """Execute one call on the instances, rendered as the official loop records its result."""
    if isinstance(call, FailedCall):
        return call.result
    base = call.name.split(".")[1] if "." in call.name else call.name
    if base in REFUSED_NAMES:
        return f"Error during execution: Function call {base} is not allowed."
    if "." in call.name:
        try:
            return format_result(_run_module_call(instances, call))
        except (ModuleCallError, _NestedFailure) as error:
            return f"Error during execution: {error}"
    if call.args:
        call = keyword_call(instances, call)
    method = find_method(instances, call.name)
    if method is None:  # eval resolves the name before it evaluates any argument
        return f"Error during execution: name '{call.name}' is not defined"
    try:
        kwargs = {k: _evaluate(instances, v) for k, v in call.kwargs.items()}
        args = tuple(_evaluate(instances, v) for v in call.args)
    except _NestedFailure as failure:
        return f"Error during execution: {failure}"
    if args:
        try:
            return format_result(method(*args, **kwargs))
        except Exception as error:
            return f"Error during execution: {error}"
    return execute_call(instances, call.name, kwargs)


def _run_module_call(instances: Mapping[str, Any], call: Call) -> Any:
    """A dotted call's raw return value: the name resolved first, then the arguments evaluated (as
    ``eval`` does), then the emulated function run (see :mod:`.module_calls`)."""
    function = resolve_module_function(call.name)
    kwargs = {k: _evaluate(instances, v) for k, v in call.kwargs.items()}
    args = tuple(_evaluate(instances, v) for v in call.args)
    return call_module_function(function, args, kwargs)


class _NestedFailure(Exception):
    """A nested call in an argument failed; the whole call fails with its message."""


def _evaluate(instances: Mapping[str, Any], value: Any) -> Any:
    """An argument's runtime value: nested calls run (their raw return value), containers recursed."""
    if isinstance(value, NestedCall):
        call = value.call
        if call.name in REFUSED_NAMES:
            raise _NestedFailure(f"name '{call.name}' is not defined")
        if "." in call.name:
            try:
                return _run_module_call(instances, call)
            except ModuleCallError as error:
                raise _NestedFailure(str(error)) from None
        method = find_method(instances, call.name)
        if method is None:
            raise _NestedFailure(f"name '{call.name.split('.')[0]}' is not defined")
        kwargs = {k: _evaluate(instances, v) for k, v in call.kwargs.items()}
        try:
            return method(**kwargs)
        except Exception as error:
            raise _NestedFailure(str(error)) from None
    if type(value) is str:
        return as_rebuilt(value)
    if isinstance(value, dict):
        return {as_rebuilt(k) if type(k) is str else k: _evaluate(instances, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_evaluate(instances, v) for v in value]
    return value


#: ``_process_method_calls``' pattern: a name followed by ``(``, anywhere in the rebuilt call string.
_NAME_BEFORE_PARENTHESIS = re.compile(r"\b([a-zA-Z_]\w*)\s*(?=\()")


def as_rebuilt(text: str) -> str:
    """A text argument as the official loop's ``eval`` receives it: the call is rebuilt as source with
    ``repr`` of each value, and the regex that prefixes method names with their instance replaces every
    ``name (`` in it, string literals included, by the bare name: ``'average (MA50)'`` arrives as
    ``'average(MA50)'``. (A backend method's own name in a literal also gets an instance prefix that
    depends on the model's name; that part is not reproduced.)"""
    if "(" not in text:
        return text
    source = repr(text)
    rebuilt = _NAME_BEFORE_PARENTHESIS.sub(r"\1", source)
    return text if rebuilt == source else ast.literal_eval(rebuilt)


def _as_argument(value: Any) -> Any:
    """A decoded argument as the official re-serialisation makes it (see the module docstring)."""
    if isinstance(value, dict):
        if all(isinstance(v, dict) for v in value.values()):
            if not value:
                raise DecodeError("an empty dict argument cannot be rebuilt as a call (as officially)")
            name, args = next(iter(value.items()))
            return NestedCall(Call(str(name), {str(k): _as_argument(v) for k, v in args.items()}))
        return {str(k): _as_argument(v) for k, v in value.items()}
    return value


#: The action formats: BFCL's prompting format ``[f(a=1)]`` and JSON tool calls.
ACTION_FORMATS: tuple[str, ...] = ("python", "json")


def check_action_format(action_format: str) -> str:
    """``action_format`` when it is one of :data:`ACTION_FORMATS`, else ValueError."""
    check_choice("action_format", action_format, ACTION_FORMATS)
    return action_format


def decode_calls(text: Any, action_format: str = "python") -> list[Call]:
    """Model text -> the calls the official loop would execute; DecodeError when it decodes to none.

    An empty list (``[]``) means the text decoded to no call (the model's turn ends, as a decode failure
    does). ``action_format="json"`` reads JSON tool calls, whose argument values are used as they are.
    """
    if check_action_format(action_format) == "json":
        decoded = decode_json_calls(text)
        if is_empty_output(decoded):
            return []
        return _rebuildable([Call(str(name), dict(args)) for item in decoded for name, args in item.items()])
    decoded = decode_python(text)
    if is_empty_output(decoded):
        return []
    calls = []
    for item in decoded:
        for name, args in item.items():
            calls.append(Call(str(name), {str(k): _as_argument(v) for k, v in args.items()}))
    return _rebuildable(calls)


def _rebuildable(calls: list[Call]) -> list[Call]:
    """``calls``, or DecodeError when one cannot be written back as text (an integer over Python's 4,300
    digits, say): the official loop rebuilds every call as a string before running any, and a failure
    there is its decode failure."""
    for call in calls:
        try:
            render_call(call)
        except (ValueError, RecursionError) as error:
            raise DecodeError(f"the call {call.name!r} cannot be rebuilt as text: {error}") from None
    return calls


def render_call(call: Call) -> str:
    """A call as model output text (keyword arguments, literal values)."""
    arguments = ", ".join(f"{k}={v!r}" for k, v in call.kwargs.items())
    return f"{call.name}({arguments})"


def render_calls(calls: Sequence[Call], action_format: str = "python") -> str:
    """Calls as one step of model output: ``[f(a=1), g()]`` or a JSON list of ``{"name", "arguments"}``."""
    if check_action_format(action_format) == "json":
        return json.dumps([{"name": c.name, "arguments": dict(c.kwargs)} for c in calls], ensure_ascii=False)
    return "[" + ", ".join(render_call(call) for call in calls) + "]"
