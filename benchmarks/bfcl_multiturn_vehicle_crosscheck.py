"""Compare our VehicleControlAPI with the official bfcl-eval class on random call sequences.

Usage: python benchmarks/bfcl_multiturn_vehicle_crosscheck.py \
           PATH/TO/func_source_code/vehicle_control.py [BFCL_DATA_DIR]

Both backends load the same real ``initial_config`` (or the defaults, or a custom seed),
half of the sequences in long-context mode (ours then uses the official filler), and get
the same seeded calls; after every call the rendered results and all state attributes
(public and the private forces/angle) must be equal.
"""

from __future__ import annotations

import random

from bfcl_multiturn_official import SequenceCheck, attribute_diff, rng_only

from genenv_gym.envs.bfcl_multiturn.vehicle_control import VehicleControlAPI

PRIVATE = ("_parkingBrakeForce", "_slopeAngle", "_brakePedalForce")
DOORS = ["driver", "passenger", "rear_left", "rear_right"]
CITIES = ["Rivermist", "Stonebrook", "Silverpine", "San Francisco", "Nowhere"]
ZIPS = ["83214", "74532", "56108", "62947", "94016", "94704", "08540", "00000", "47329"]


def _random_call(rng: random.Random) -> tuple[str, dict]:
    """One random call with plausible and implausible arguments."""
    number = rng.choice([0, 0.5, 1, 2, -1, 10.0, 25, 45, 100, 1.5])
    calls = [
        ("startEngine", {"ignitionMode": rng.choice(["START", "STOP", "GO"])}),
        ("fillFuelTank", {"fuelAmount": number}),
        ("lockDoors", {"unlock": rng.choice([True, False]), "door": rng.sample(DOORS, rng.randint(0, 4))}),
        ("lockDoors", {"unlock": False, "door": DOORS}),
        ("adjustClimateControl", {"temperature": number, "unit": rng.choice(["celsius", "fahrenheit"]),
                                  "fanSpeed": rng.choice([0, 50, 100, 150]),
                                  "mode": rng.choice(["auto", "cool"])}),
        ("adjustClimateControl", {"temperature": 20}),
        ("get_outside_temperature_from_google", {}),
        ("get_outside_temperature_from_weather_com", {}),
        ("setHeadlights", {"mode": rng.choice(["on", "off", "auto", "blink"])}),
        ("displayCarStatus", {"option": rng.choice(["fuel", "battery", "doors", "climate", "headlights",
                                                    "parkingBrake", "brakePedal", "engine", "x"])}),
        ("activateParkingBrake", {"mode": rng.choice(["engage", "release", "hold"])}),
        ("pressBrakePedal", {"pedalPosition": rng.choice([0, 0.5, 1, 1.0, 2, -0.1])}),
        ("releaseBrakePedal", {}),
        ("setCruiseControl", {"speed": rng.choice([0, 35, 60, 61, 125, "65"]),
                              "activate": rng.choice([True, False]),
                              "distanceToNextVehicle": rng.choice([10, 50.5, "80"])}),
        ("get_current_speed", {}),
        ("display_log", {"messages": ["a", "b"]}),
        ("estimate_drive_feasibility_by_mileage", {"distance": rng.choice([10, 100, 500, 1000])}),
        ("liter_to_gallon", {"liter": number}),
        ("gallon_to_liter", {"gallon": number}),
        ("estimate_distance", {"cityA": rng.choice(ZIPS), "cityB": rng.choice(ZIPS)}),
        ("get_zipcode_based_on_city", {"city": rng.choice(CITIES)}),
        ("set_navigation", {"destination": rng.choice(["2107 Channing Way, Berkeley, CA", "Home"])}),
        ("check_tire_pressure", {}),
        ("find_nearest_tire_shop", {}),
    ]  # fmt: skip
    return rng.choice(calls)


CHECK = SequenceCheck(
    VehicleControlAPI,
    rng_only(_random_call),
    configs=[{}, {"random_seed": 7, "fuelLevel": 49.0, "engineState": "running"}],
    real_configs=True,
    long_context=True,
    state_diff=attribute_diff(VehicleControlAPI.STATE_ATTRIBUTES + PRIVATE),
    public_attributes=True,
)

if __name__ == "__main__":
    CHECK.cli()
