"""How the generator uses ``MathAPI``: its docs and call samplers (it has no state to configure)."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import ARRAY, FLOAT, INTEGER, ClassSpec, FunctionDoc
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, make_step

_DOCS: dict[str, FunctionDoc] = {
    "add": ("a + b.", (("a", FLOAT, "First number.", True), ("b", FLOAT, "Second number.", True))),
    "subtract": ("a - b.", (("a", FLOAT, "First number.", True), ("b", FLOAT, "Second number.", True))),
    "multiply": ("a * b.", (("a", FLOAT, "First number.", True), ("b", FLOAT, "Second number.", True))),
    "divide": ("a / b.", (("a", FLOAT, "Dividend.", True), ("b", FLOAT, "Divisor.", True))),
    "mean": ("The mean of numbers.", (("numbers", ARRAY, "Numbers.", True),)),
    "max_value": ("The largest of numbers.", (("numbers", ARRAY, "Numbers.", True),)),
    "min_value": ("The smallest of numbers.", (("numbers", ARRAY, "Numbers.", True),)),
    "percentage": (
        "part as a percentage of whole.",
        (("part", FLOAT, "Part.", True), ("whole", FLOAT, "Whole.", True)),
    ),
    "round_number": (
        "Round a number.",
        (
            ("number", FLOAT, "Number.", True),
            ("decimal_places", INTEGER, "Decimal places (default 0).", False),
        ),
    ),
}


def _samplers() -> list[Sampler]:
    def number(rng) -> float:
        return float(rng.integers(1, 500)) / 4

    def binary(name: str, words: str):
        def sample(api, rng):
            kwargs = {"a": number(rng), "b": number(rng)}
            return make_step(name, kwargs, words, words.replace("{b}", "my other number"), "other number")

        return sample

    def listed(name: str, words: str):
        def sample(api, rng):
            return make_step(name, {"numbers": [number(rng) for _ in range(int(rng.integers(3, 6)))]}, words)

        return sample

    def percentage(api, rng):
        whole = number(rng) + 200
        return make_step(
            "percentage", {"part": number(rng), "whole": whole}, "what percentage of {whole} is {part}"
        )

    def rounding(api, rng):
        kwargs = {"number": float(rng.integers(1, 10**5)) / 1000, "decimal_places": int(rng.integers(0, 3))}
        return make_step("round_number", kwargs, "round {number} to {decimal_places} decimal places")

    return [
        binary("add", "add {a} and {b}"),
        binary("subtract", "subtract {b} from {a}"),
        binary("multiply", "multiply {a} by {b}"),
        binary("divide", "divide {a} by {b}"),
        listed("mean", "compute the mean of {numbers}"),
        listed("max_value", "find the largest of {numbers}"),
        listed("min_value", "find the smallest of {numbers}"),
        percentage,
        rounding,
    ]


SPEC = ClassSpec(
    "MathAPI",
    "This tool belongs to a math toolbox.",
    _DOCS,
    None,
    _samplers(),
    array_items=FLOAT,
)
