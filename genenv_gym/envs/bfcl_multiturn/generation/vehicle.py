"""How the generator uses ``VehicleControlAPI``: its docs, call samplers and a random car (fuel, doors,
climate, lights)."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import (
    ARRAY,
    BOOLEAN,
    FLOAT,
    INTEGER,
    STRING,
    ClassSpec,
    FunctionDoc,
)
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, make_step, pick

_DOORS = ("driver", "passenger", "rear_left", "rear_right")


_DOCS: dict[str, FunctionDoc] = {
    "fillFuelTank": ("Add fuel in gallons (the tank holds 50).", (("fuelAmount", FLOAT, "Gallons.", True),)),
    "lockDoors": (
        "Lock or unlock doors.",
        (
            ("unlock", BOOLEAN, "True to unlock, False to lock.", True),
            ("door", ARRAY, "Doors: driver, passenger, rear_left, rear_right.", True),
        ),
    ),
    "adjustClimateControl": (
        "Set the air conditioning.",
        (
            ("temperature", FLOAT, "Temperature.", True),
            ("unit", STRING, "'celsius' or 'fahrenheit'.", False),
            ("fanSpeed", INTEGER, "Fan speed 0-100.", False),
            ("mode", STRING, "'auto', 'cool', 'heat' or 'defrost'.", False),
        ),
    ),
    "setHeadlights": ("Set the headlights.", (("mode", STRING, "'on', 'off' or 'auto'.", True),)),
    "displayCarStatus": (
        "Show part of the car's status.",
        (
            (
                "option",
                STRING,
                "fuel, battery, doors, climate, headlights, parkingBrake, brakePedal, engine.",
                True,
            ),
        ),
    ),
    "check_tire_pressure": ("The tire pressures.", ()),
    "pressBrakePedal": ("Press the brake pedal.", (("pedalPosition", FLOAT, "Position 0-1.", True),)),
    "activateParkingBrake": (
        "Engage or release the parking brake.",
        (("mode", STRING, "'engage' or 'release'.", True),),
    ),
    "gallon_to_liter": ("Convert gallons to liters.", (("gallon", FLOAT, "Gallons.", True),)),
    "liter_to_gallon": ("Convert liters to gallons.", (("liter", FLOAT, "Liters.", True),)),
}


def _samplers() -> list[Sampler]:
    def fuel(car, rng):
        room = int(50 - car.fuelLevel)
        if room < 1:
            return None
        return make_step(
            "fillFuelTank",
            {"fuelAmount": float(rng.integers(1, room + 1))},
            "add {fuelAmount} gallons of fuel",
            "add some fuel",
            "amount in gallons",
        )

    def lock(car, rng):
        doors = sorted(str(d) for d in rng.choice(_DOORS, int(rng.integers(1, 5)), replace=False))
        unlock = bool(rng.integers(2))
        kwargs = {"unlock": unlock, "door": doors}
        verb = "unlock" if unlock else "lock"
        return make_step(
            "lockDoors", kwargs, f"{verb} these doors: {{door}}", f"{verb} some doors", "list of doors"
        )

    def climate(car, rng):
        kwargs = {
            "temperature": float(rng.integers(16, 29)),
            "unit": "celsius",
            "fanSpeed": int(rng.integers(1, 11)) * 10,
        }
        return make_step(
            "adjustClimateControl",
            kwargs,
            "set the air conditioning to {temperature} degrees {unit} with the fan at {fanSpeed}",
            "set the air conditioning to {temperature} degrees {unit} with the fan at the speed I like",
            "fan speed",
        )

    def lights(car, rng):
        return make_step("setHeadlights", {"mode": pick(rng, ("on", "off"))}, "switch the headlights {mode}")

    def status(car, rng):
        option = pick(rng, ("fuel", "battery", "doors", "climate", "headlights", "engine"))
        return make_step("displayCarStatus", {"option": option}, "show the car's {option} status")

    def tires(car, rng):
        return make_step("check_tire_pressure", {}, "check the tire pressure")

    def brake(car, rng):
        return make_step(
            "pressBrakePedal",
            {"pedalPosition": float(rng.integers(1, 11)) / 10},
            "press the brake pedal to position {pedalPosition}",
        )

    def parking(car, rng):
        return make_step(
            "activateParkingBrake", {"mode": pick(rng, ("engage", "release"))}, "{mode} the parking brake"
        )

    def gallons(car, rng):
        return make_step(
            "gallon_to_liter",
            {"gallon": float(rng.integers(1, 40))},
            "convert {gallon} gallons to liters",
            "convert my gallons to liters",
            "number of gallons",
        )

    def liters(car, rng):
        return make_step(
            "liter_to_gallon", {"liter": float(rng.integers(1, 150))}, "convert {liter} liters to gallons"
        )

    return [fuel, lock, climate, lights, status, tires, brake, parking, gallons, liters]


def _config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    return {
        "fuelLevel": float(rng.integers(0, 40)),
        "batteryVoltage": 12.6,
        "engineState": "stopped",
        "doorStatus": {d: pick(rng, ("locked", "unlocked")) for d in _DOORS},
        "acTemperature": float(rng.integers(18, 27)),
        "fanSpeed": int(rng.integers(0, 11)) * 10,
        "acMode": "auto",
        "humidityLevel": 50.0,
        "headLightStatus": pick(rng, ("on", "off")),
        "random_seed": int(rng.integers(1, 10**6)),
    }


SPEC = ClassSpec(
    "VehicleControlAPI",
    "This tool belongs to a car's control system.",
    _DOCS,
    _config,
    _samplers(),
)
