"""Compare our MathAPI with the official bfcl-eval ``MathAPI`` on a grid of calls.

Usage: python benchmarks/bfcl_multiturn_math_crosscheck.py PATH/TO/func_source_code/math_api.py

The official file is read from an unpacked bfcl-eval wheel outside the repository (it needs
mpmath). Each call's rendered result (as the official loop records it) must be identical, byte for
byte, ``logarithm``'s included (the official one prints at the precision it sets process-wide; ours
prints at the call's precision without changing the process's).
"""

from __future__ import annotations

import itertools

import mpmath
from bfcl_multiturn_official import load_official, render, run_cli

from genenv_gym.envs.bfcl_multiturn.math_api import MathAPI

VALUES = [0, 1, -3, 2.5, 1e308, "x", [1, 2, 3], [], [1, "a"], None]
UNITS = ["km", "m", "cm", "celsius", "fahrenheit", "kg", "lb", "in", "zz"]


def _calls() -> list[tuple[str, dict]]:
    """A grid of calls covering every method, normal and hostile arguments."""
    out: list[tuple[str, dict]] = []
    for a, b in itertools.product(VALUES, VALUES):
        for name in ["add", "subtract", "multiply", "divide", "percentage"]:
            keys = ("part", "whole") if name == "percentage" else ("a", "b")
            out.append((name, dict(zip(keys, (a, b), strict=True))))
        out.append(("power", {"base": a, "exponent": b}))
    for v in VALUES:
        for name in ["mean", "standard_deviation", "min_value", "max_value", "sum_values"]:
            out.append((name, {"numbers": v}))
        out.append(("absolute_value", {"number": v}))
        out.append(("round_number", {"number": v, "decimal_places": 2}))
        out.append(("square_root", {"number": v, "precision": 8}))
        for u, w in itertools.product(UNITS, UNITS):
            out.append(("si_unit_conversion", {"value": v, "unit_in": u, "unit_out": w}))
            out.append(("imperial_si_conversion", {"value": v, "unit_in": u, "unit_out": w}))
    for value, base in itertools.product([8, 10, 0.5, 8.5, 100, -2, 0, 1e308, "x", None], [2, 5, 10, 1, 0.5]):
        for precision in [1, 4, 12, 30, 0, -3, "x", 2.5]:
            out.append(("logarithm", {"value": value, "base": base, "precision": precision}))
    return out


def main(path: str) -> int:
    """Run the grid on both classes; print the mismatches and return their count."""
    official, ours = load_official(path).MathAPI(), MathAPI()
    calls = _calls()
    bad = 0
    for name, kwargs in calls:
        mpmath.mp.dps = 15  # ours must not lean on the precision the official call leaves behind
        b = render(ours, name, kwargs)
        a = render(official, name, kwargs)
        if a != b:
            bad += 1
            print(f"MISMATCH {name}({kwargs}): official={a!r} ours={b!r}")
    print(f"{len(calls) - bad}/{len(calls)} calls identical")
    return bad


if __name__ == "__main__":
    run_cli(main, 1)
