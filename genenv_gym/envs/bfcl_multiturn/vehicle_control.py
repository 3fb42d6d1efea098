"""VehicleControlAPI: BFCL multi-turn's car-control backend, with the official behaviour.

State: fuel, battery, engine, doors, climate, lights, brakes, cruise control, navigation and
tyre pressures, loaded (deep-copied) from an ``initial_config`` entry with the official
defaults and key names (``engineState``, ``parkingBrakeForce``, ``slopeAngle`` and
``brakePedalForce`` load into ``engine_state`` and the private forces/angle;
``remainingUnlockedDoors`` is always recomputed from ``doorStatus``). The outside
temperature and the current speed are drawn from ``random.Random(random_seed)`` (official
default seed 141053), so they equal the official values call for call. In long-context mode
answers carry the filler (weather history, car metadata, brake instructions, cities).
"""

from __future__ import annotations

import random
from copy import deepcopy
from typing import Any

from genenv_gym.envs.bfcl_multiturn.long_context import filler
from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

MAX_FUEL_LEVEL = 50
MIN_FUEL_LEVEL = 0.0
MILE_PER_GALLON = 20.0
DEFAULT_SEED = 141053
DEFAULT_DOORS = {
    "driver": "unlocked",
    "passenger": "unlocked",
    "rear_left": "unlocked",
    "rear_right": "unlocked",
}

# attribute -> (initial_config key, default)
_LOADED: dict[str, tuple[str, Any]] = {
    "fuelLevel": ("fuelLevel", 0.0),
    "batteryVoltage": ("batteryVoltage", 12.6),
    "engine_state": ("engineState", "stopped"),
    "doorStatus": ("doorStatus", DEFAULT_DOORS),
    "acTemperature": ("acTemperature", 25.0),
    "fanSpeed": ("fanSpeed", 50),
    "acMode": ("acMode", "auto"),
    "humidityLevel": ("humidityLevel", 50.0),
    "headLightStatus": ("headLightStatus", "off"),
    "parkingBrakeStatus": ("parkingBrakeStatus", "released"),
    "_parkingBrakeForce": ("parkingBrakeForce", 0.0),
    "_slopeAngle": ("slopeAngle", 0.0),
    "brakePedalStatus": ("brakePedalStatus", "released"),
    "_brakePedalForce": ("brakePedalForce", 0.0),
    "distanceToNextVehicle": ("distanceToNextVehicle", 50.0),
    "cruiseStatus": ("cruiseStatus", "inactive"),
    "destination": ("destination", "None"),
    "frontLeftTirePressure": ("frontLeftTirePressure", 32.0),
    "frontRightTirePressure": ("frontRightTirePressure", 32.0),
    "rearLeftTirePressure": ("rearLeftTirePressure", 30.0),
    "rearRightTirePressure": ("rearRightTirePressure", 30.0),
}

# unordered zipcode pairs -> distance (km)
_DISTANCES = {
    frozenset(("83214", "74532")): 750.0,
    frozenset(("56108", "62947")): 320.0,
    frozenset(("71354", "83462")): 450.0,
    frozenset(("47329", "52013")): 290.0,
    frozenset(("69238", "51479")): 630.0,
    frozenset(("94016", "83214")): 980.0,
    frozenset(("94016", "94704")): 600.0,
    frozenset(("94704", "08540")): 2550.0,
    frozenset(("94016", "08540")): 1950.0,
    frozenset(("62947", "47329")): 1053.0,
    frozenset(("94016", "62947")): 780.0,
    frozenset(("74532", "94016")): 880.0,
}
_ZIPCODES = {
    "Rivermist": "83214",
    "Stonebrook": "74532",
    "Maplecrest": "56108",
    "Silverpine": "62947",
    "Shadowridge": "71354",
    "Sunset Valley": "83462",
    "Oakendale": "47329",
    "Willowbend": "52013",
    "Crescent Hollow": "69238",
    "Autumnville": "51479",
    "San Francisco": "94016",
}


class VehicleControlAPI:
    """The vehicle backend: engine, fuel, doors, climate, lights, brakes, cruise, navigation."""

    METHODS = (
        "startEngine",
        "fillFuelTank",
        "lockDoors",
        "adjustClimateControl",
        "get_outside_temperature_from_google",
        "get_outside_temperature_from_weather_com",
        "setHeadlights",
        "displayCarStatus",
        "activateParkingBrake",
        "pressBrakePedal",
        "releaseBrakePedal",
        "setCruiseControl",
        "get_current_speed",
        "display_log",
        "estimate_drive_feasibility_by_mileage",
        "liter_to_gallon",
        "gallon_to_liter",
        "estimate_distance",
        "get_zipcode_based_on_city",
        "set_navigation",
        "check_tire_pressure",
        "find_nearest_tire_shop",
    )
    # the public attributes, which the official state checker compares
    STATE_ATTRIBUTES = (
        *(name for name in _LOADED if not name.startswith("_")),
        "remainingUnlockedDoors",
        "long_context",
    )

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._load_scenario(scenario or {}, long_context=long_context)
        self._api_description = (
            "This tool belongs to the vehicle control system, which allows users to control various "
            "aspects of the car such as engine, doors, climate control, lights, and more."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Load state from an ``initial_config`` entry, defaulting missing keys."""
        self._random = random.Random(scenario.get("random_seed", DEFAULT_SEED))
        loaded = copy_state({name: scenario.get(key, default) for name, (key, default) in _LOADED.items()})
        for attribute, value in loaded.items():
            setattr(self, attribute, value)
        self.remainingUnlockedDoors = 4 - len([1 for d in self.doorStatus if self.doorStatus[d] == "locked"])
        self.long_context = long_context

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VehicleControlAPI):
            return False
        return all(getattr(self, a) == getattr(other, a) for a in vars(self) if not a.startswith("_"))

    __hash__ = None  # type: ignore[assignment]

    def startEngine(self, ignitionMode: str) -> dict:
        """Start (``START``) or stop (``STOP``) the engine; doors locked and brake fully pressed."""
        if ignitionMode == "STOP":
            self.engine_state = "stopped"
        if self.remainingUnlockedDoors > 0:
            unlocked = [door for door, status in self.doorStatus.items() if status == "unlocked"]
            return {
                "error": "All doors must be locked before starting the engine. Here are the unlocked doors: "
                + ", ".join(unlocked)
            }
        if self.brakePedalStatus != "pressed":
            return {"error": "Brake pedal needs to be pressed when starting the engine."}
        if self._brakePedalForce != 1000.0:
            return {"error": "Must press the brake fully before starting the engine."}
        if self.fuelLevel < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty."}
        if ignitionMode != "START":
            return {"error": "Invalid ignition mode."}
        self.engine_state = "running"
        return {
            "engineState": self.engine_state,
            "fuelLevel": self.fuelLevel,
            "batteryVoltage": self.batteryVoltage,
        }

    def fillFuelTank(self, fuelAmount: float) -> dict:
        """Add ``fuelAmount`` gallons (tank holds 50)."""
        if fuelAmount < 0:
            return {"error": "Fuel amount cannot be negative."}
        if self.fuelLevel + fuelAmount > MAX_FUEL_LEVEL:
            return {"error": "Cannot fill gas above the tank capacity."}
        if self.fuelLevel + fuelAmount < MIN_FUEL_LEVEL:
            return {"error": "Fuel tank is empty. Min fuel level is 0 gallons."}
        self.fuelLevel += fuelAmount
        return {"fuelLevel": self.fuelLevel}

    def lockDoors(self, unlock: bool, door: list[str]) -> dict:
        """Lock (``unlock`` false) or unlock the listed doors."""
        target = "unlocked" if unlock else "locked"
        for d in door:
            if self.doorStatus[d] == target:
                continue
            self.doorStatus[d] = target
            self.remainingUnlockedDoors += 1 if unlock else -1
        return {"lockStatus": target, "remainingUnlockedDoors": self.remainingUnlockedDoors}

    def adjustClimateControl(
        self,
        temperature: float,
        unit: str = "celsius",
        fanSpeed: int = 50,
        mode: str = "auto",
    ) -> dict:
        """Set the AC temperature (Fahrenheit converted), fan speed (0-100) and mode."""
        if not (0 <= fanSpeed <= 100):
            return {"error": "Fan speed must be between 0 and 100."}
        self.acTemperature = temperature
        if unit == "fahrenheit":
            self.acTemperature = (temperature - 32) * 5 / 9
        self.fanSpeed = fanSpeed
        self.acMode = mode
        return {"currentACTemperature": temperature, "climateMode": mode, "humidityLevel": self.humidityLevel}

    def get_outside_temperature_from_google(self) -> dict:
        """A random outside temperature in [-10, 40] (plus weather history in long context)."""
        temperature = self._random.uniform(-10.0, 40.0)
        if self.long_context:
            return {**deepcopy(filler("LONG_WEATHER_EXTENSION")), "outsideTemperature": temperature}
        return {"outsideTemperature": temperature}

    def get_outside_temperature_from_weather_com(self) -> dict:
        """Always the official ``{"error": 404}``."""
        return {"error": 404}

    def setHeadlights(self, mode: str) -> dict:
        """Headlights ``on``, or ``off``/``auto`` (both switch them off)."""
        if mode not in ["on", "off", "auto"]:
            return {"error": "Invalid headlight mode."}
        self.headLightStatus = "on" if mode == "on" else "off"
        return {"headlightStatus": self.headLightStatus}

    def displayCarStatus(self, option: str) -> dict:
        """The part of the status named by ``option`` (fuel, battery, doors, climate, ...)."""
        status: dict[str, Any] = {}
        if self.long_context:
            status["metadata"] = filler("CAR_STATUS_METADATA_EXTENSION")
        if option == "fuel":
            status["fuelLevel"] = self.fuelLevel
        elif option == "battery":
            status["batteryVoltage"] = self.batteryVoltage
        elif option == "doors":
            status["doorStatus"] = self.doorStatus
        elif option == "climate":
            status["currentACTemperature"] = self.acTemperature
            status["fanSpeed"] = self.fanSpeed
            status["climateMode"] = self.acMode
            status["humidityLevel"] = self.humidityLevel
        elif option == "headlights":
            status["headlightStatus"] = self.headLightStatus
        elif option == "parkingBrake":
            status["parkingBrakeStatus"] = self.parkingBrakeStatus
            status["parkingBrakeForce"] = self._parkingBrakeForce
            status["slopeAngle"] = self._slopeAngle
        elif option == "brakePedal":
            status["brakePedalStatus"] = self.brakePedalStatus
            status["brakePedalForce"] = self._brakePedalForce
        elif option == "engine":
            status["engineState"] = self.engine_state
        else:
            status["error"] = "Invalid option"
        return status

    def activateParkingBrake(self, mode: str) -> dict:
        """Engage (500 N) or release the parking brake; the slope angle becomes 10."""
        if mode not in ["engage", "release"]:
            return {"error": "Invalid mode"}
        engaged = mode == "engage"
        self.parkingBrakeStatus = "engaged" if engaged else "released"
        self._parkingBrakeForce = 500.0 if engaged else 0.0
        self._slopeAngle = 10.0
        result = {
            "parkingBrakeStatus": self.parkingBrakeStatus,
            "_parkingBrakeForce": self._parkingBrakeForce,
            "_slopeAngle": 10.0,
        }
        if self.long_context:
            return {"parkingBrakeInstruction": filler("PARKING_BRAKE_INSTRUCTION"), **result}
        return result

    def pressBrakePedal(self, pedalPosition: float) -> dict:
        """Press the brake pedal to a position in [0, 1] (force = 1000 N x position)."""
        if not (0 <= pedalPosition <= 1):
            return {"error": "Pedal position must be between 0 and 1."}
        if pedalPosition == 0:
            self.brakePedalStatus = "released"
            self._brakePedalForce = 0.0
            return {"brakePedalStatus": "released", "brakePedalForce": 0.0}
        force = pedalPosition * 1000
        self.brakePedalStatus = "pressed"
        self._brakePedalForce = force
        return {"brakePedalStatus": "pressed", "brakePedalForce": float(force)}

    def releaseBrakePedal(self) -> dict:
        """Release the brake pedal."""
        self.brakePedalStatus = "released"
        self._brakePedalForce = 0.0
        return {"brakePedalStatus": "released", "brakePedalForce": 0.0}

    def setCruiseControl(self, speed: float, activate: bool, distanceToNextVehicle: float) -> dict:
        """(De)activate cruise control; needs a running engine and, to activate, a speed
        0-120 that is a multiple of 5 (the distance is stored even for an invalid speed)."""
        distanceToNextVehicle = float(distanceToNextVehicle)
        speed = float(speed)
        if self.engine_state == "stopped":
            return {"error": "Start the engine before activating the cruise control."}
        self.distanceToNextVehicle = distanceToNextVehicle
        if activate:
            if speed < 0 or speed > 120 or speed % 5 != 0:
                return {"error": "Invalid speed"}
            self.cruiseStatus = "active"
        else:
            self.cruiseStatus = "inactive"
        return {
            "cruiseStatus": self.cruiseStatus,
            "currentSpeed": speed,
            "distanceToNextVehicle": distanceToNextVehicle,
        }

    def get_current_speed(self) -> dict:
        """A random current speed in [0, 120]."""
        return {"currentSpeed": self._random.uniform(0.0, 120.0)}

    def display_log(self, messages: list[str]) -> dict:
        """Echo the log messages."""
        return {"log": messages}

    def estimate_drive_feasibility_by_mileage(self, distance: float) -> dict:
        """Whether the fuel (20 miles per gallon) covers ``distance`` miles."""
        return {"canDrive": not self.fuelLevel * MILE_PER_GALLON < distance}

    def liter_to_gallon(self, liter: float) -> dict:
        """Liters to gallons."""
        return {"gallon": liter * 0.264172}

    def gallon_to_liter(self, gallon: float) -> dict:
        """Gallons to liters."""
        return {"liter": gallon * 3.78541}

    def estimate_distance(self, cityA: str, cityB: str) -> dict:
        """The distance between two known zipcodes (either order)."""
        key = frozenset((cityA, cityB)) if isinstance(cityA, str) and isinstance(cityB, str) else None
        if key in _DISTANCES and cityA != cityB:
            distance: dict[str, Any] = {"distance": _DISTANCES[key]}
        else:
            distance = {"error": "distance not found in database."}
        if self.long_context:
            distance["intermediaryCities"] = filler("INTERMEDIARY_CITIES")
        return distance

    def get_zipcode_based_on_city(self, city: str) -> dict:
        """The zipcode of a known city, else ``"00000"``."""
        return {"zipcode": _ZIPCODES.get(city, "00000") if isinstance(city, str) else "00000"}

    def set_navigation(self, destination: str) -> dict:
        """Set the navigation destination."""
        self.destination = destination
        return {"status": "Navigating to " + destination}

    def check_tire_pressure(self) -> dict:
        """The four tyre pressures and whether their mean is within 30-35 psi."""
        mean = (
            self.frontLeftTirePressure
            + self.frontRightTirePressure
            + self.rearLeftTirePressure
            + self.rearRightTirePressure
        ) / 4
        return {
            "frontLeftTirePressure": self.frontLeftTirePressure,
            "frontRightTirePressure": self.frontRightTirePressure,
            "rearLeftTirePressure": self.rearLeftTirePressure,
            "rearRightTirePressure": self.rearRightTirePressure,
            "healthy_tire_pressure": 30 <= mean <= 35,
            "car_info": filler("CAR_STATUS_METADATA_EXTENSION") if self.long_context else {},
        }

    def find_nearest_tire_shop(self) -> dict:
        """The official fixed tyre-shop address."""
        return {"shopLocation": "456 Oakwood Avenue, Rivermist, 83214"}
