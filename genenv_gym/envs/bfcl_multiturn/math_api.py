"""MathAPI: BFCL multi-turn's stateless math backend, with the official return values.

Each method returns ``{"result": ...}`` or ``{"error": message}`` exactly as BFCL's
``MathAPI`` does (same messages, same checks, same numeric types: ``logarithm`` returns an
mpmath number, ``square_root`` a ``Decimal``). Unlike the official class, precision is set
in a local context, so one call never changes the precision seen by another; ``logarithm``'s number
still prints at the call's precision, as the official one does right after the call (it sets
``mpmath.mp.dps`` for the whole process): ``mpf('1.3027')``, not ``mpf('1.302734375')``.
"""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache
from typing import Any

_TO_METERS = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001, "um": 1e-6, "nm": 1e-9}
_FROM_METERS = {unit: 1 / factor for unit, factor in _TO_METERS.items()}
_IMPERIAL = {
    "cm_to_in": 0.393701,
    "in_to_cm": 2.54,
    "m_to_ft": 3.28084,
    "ft_to_m": 0.3048,
    "m_to_yd": 1.09361,
    "yd_to_m": 0.9144,
    "km_to_miles": 0.621371,
    "miles_to_km": 1.60934,
    "kg_to_lb": 2.20462,
    "lb_to_kg": 0.453592,
    "celsius_to_fahrenheit": 1.8,
    "fahrenheit_to_celsius": 5 / 9,
}
_BOTH = "Both inputs must be numbers"
_ALL = "All elements in the list must be numbers"


def _number(x: Any) -> bool:
    """True for the values the official ``isinstance(x, (int, float))`` checks accept."""
    return isinstance(x, (int, float))


def _printed_at(number: Any, dps: Any) -> Any:
    """``number`` (an mpmath real or complex) as a number of the same kind that prints at ``dps`` digits."""
    kind = _printed_kinds().get(type(number))
    if kind is None:
        return number
    printed = kind(number)
    printed.dps = dps
    return printed


@lru_cache(maxsize=1)
def _printed_kinds() -> dict[type, type]:
    """mpmath's mpf and mpc -> subclasses whose ``repr`` uses their own ``dps`` (built on first use)."""
    import mpmath

    def printed(base: type) -> type:
        def __repr__(self: Any) -> str:
            with mpmath.workdps(self.dps):
                return base.__repr__(self)

        return type(base.__name__, (base,), {"__repr__": __repr__, "__str__": base.__str__})

    return {mpmath.mpf: printed(mpmath.mpf), mpmath.mpc: printed(mpmath.mpc)}


class MathAPI:
    """The Math API backend: arithmetic, statistics, and unit conversions. Holds no state."""

    METHODS = (
        "logarithm",
        "mean",
        "standard_deviation",
        "si_unit_conversion",
        "imperial_si_conversion",
        "add",
        "subtract",
        "multiply",
        "divide",
        "power",
        "square_root",
        "absolute_value",
        "round_number",
        "percentage",
        "min_value",
        "max_value",
        "sum_values",
    )

    def __init__(self) -> None:
        """Create the backend; it has no configuration."""
        self._api_description = (
            "This tool belongs to the Math API, which provides various mathematical operations."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Accept an ``initial_config`` entry; MathAPI has no state to load."""

    def logarithm(self, value: float, base: float, precision: int) -> dict[str, Any]:
        """Logarithm of ``value`` in ``base`` with ``precision`` decimal digits (mpmath)."""
        try:
            import mpmath

            with mpmath.workdps(precision):
                return {"result": _printed_at(mpmath.log(value) / mpmath.log(base), precision)}
        except Exception as e:  # the official method reports any failure as its message
            return {"error": str(e)}

    def mean(self, numbers: list[float]) -> dict[str, Any]:
        """Arithmetic mean of a list."""
        if not numbers:
            return {"error": "Cannot calculate mean of an empty list"}
        try:
            return {"result": sum(numbers) / len(numbers)}
        except TypeError:
            return {"error": _ALL}

    def standard_deviation(self, numbers: list[float]) -> dict[str, Any]:
        """Population standard deviation of a list."""
        if not numbers:
            return {"error": "Cannot calculate standard deviation of an empty list"}
        try:
            mean = sum(numbers) / len(numbers)
            variance = sum((x - mean) ** 2 for x in numbers) / len(numbers)
            return {"result": math.sqrt(variance)}
        except TypeError:
            return {"error": _ALL}

    def si_unit_conversion(self, value: float, unit_in: str, unit_out: str) -> dict[str, Any]:
        """Convert a length between km, m, cm, mm, um and nm."""
        if not _number(value):
            return {"error": "Value must be a number"}
        if unit_in not in _TO_METERS or unit_out not in _FROM_METERS:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            return {"result": value * _TO_METERS[unit_in] * _FROM_METERS[unit_out]}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def imperial_si_conversion(self, value: float, unit_in: str, unit_out: str) -> dict[str, Any]:
        """Convert between imperial and SI units (lengths, mass, temperature)."""
        if not _number(value):
            return {"error": "Value must be a number"}
        if unit_in == unit_out:
            return {"result": value}
        key = f"{unit_in}_to_{unit_out}"
        if key not in _IMPERIAL:
            return {"error": f"Conversion from '{unit_in}' to '{unit_out}' is not supported"}
        try:
            if unit_in == "celsius" and unit_out == "fahrenheit":
                result = value * _IMPERIAL[key] + 32
            elif unit_in == "fahrenheit" and unit_out == "celsius":
                result = (value - 32) * _IMPERIAL[key]
            else:
                result = value * _IMPERIAL[key]
            return {"result": result}
        except OverflowError:
            return {"error": "Conversion resulted in a value too large to represent"}

    def add(self, a: float, b: float) -> dict[str, Any]:
        """a + b."""
        try:
            return {"result": a + b}
        except TypeError:
            return {"error": _BOTH}

    def subtract(self, a: float, b: float) -> dict[str, Any]:
        """a - b."""
        try:
            return {"result": a - b}
        except TypeError:
            return {"error": _BOTH}

    def multiply(self, a: float, b: float) -> dict[str, Any]:
        """a * b (both must be int or float)."""
        if not _number(a) or not _number(b):
            return {"error": _BOTH}
        return {"result": a * b}

    def divide(self, a: float, b: float) -> dict[str, Any]:
        """a / b."""
        try:
            if b == 0:
                return {"error": "Cannot divide by zero"}
            return {"result": a / b}
        except TypeError:
            return {"error": _BOTH}

    def power(self, base: float, exponent: float) -> dict[str, Any]:
        """base ** exponent; numeric overflow raises, as in the official method."""
        try:
            return {"result": base**exponent}
        except TypeError:
            return {"error": _BOTH}

    def square_root(self, number: float, precision: int) -> dict[str, Any]:
        """Square root with ``precision`` significant digits (decimal)."""
        try:
            if number < 0:
                return {"error": "Cannot calculate square root of a negative number"}
            with localcontext() as ctx:
                ctx.prec = precision
                return {"result": Decimal(number).sqrt()}
        except (TypeError, InvalidOperation):
            return {"error": "Input must be a number or computation resulted in an invalid operation"}

    def absolute_value(self, number: float) -> dict[str, Any]:
        """|number|."""
        try:
            return {"result": abs(number)}
        except TypeError:
            return {"error": "Input must be a number"}

    def round_number(self, number: float, decimal_places: int = 0) -> dict[str, Any]:
        """Round to ``decimal_places`` places."""
        try:
            return {"result": round(number, decimal_places)}
        except TypeError:
            return {"error": "First input must be a number, second input must be an integer"}

    def percentage(self, part: float, whole: float) -> dict[str, Any]:
        """100 * part / whole."""
        try:
            if whole == 0:
                return {"error": "Whole value cannot be zero"}
            return {"result": (part / whole) * 100}
        except TypeError:
            return {"error": _BOTH}

    def min_value(self, numbers: list[float]) -> dict[str, Any]:
        """Smallest value of a list."""
        if not numbers:
            return {"error": "Cannot find minimum of an empty list"}
        try:
            return {"result": min(numbers)}
        except TypeError:
            return {"error": _ALL}

    def max_value(self, numbers: list[float]) -> dict[str, Any]:
        """Largest value of a list."""
        if not numbers:
            return {"error": "Cannot find maximum of an empty list"}
        try:
            return {"result": max(numbers)}
        except TypeError:
            return {"error": _ALL}

    def sum_values(self, numbers: list[float]) -> dict[str, Any]:
        """Sum of a list."""
        if not numbers:
            return {"error": "Cannot calculate sum of an empty list"}
        try:
            return {"result": sum(numbers)}
        except TypeError:
            return {"error": _ALL}
