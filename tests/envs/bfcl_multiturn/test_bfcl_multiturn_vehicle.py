"""VehicleControlAPI backend of BFCL multi-turn: defaults, engine rules, seeded draws, safety."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.long_context import filler
from genenv_gym.envs.bfcl_multiturn.vehicle_control import VehicleControlAPI


def _car(long_context: bool = False, **config: object) -> VehicleControlAPI:
    car = VehicleControlAPI()
    car._load_scenario(dict(config), long_context=long_context)
    return car


def test_defaults_and_config_keys() -> None:
    car = _car()
    assert car.engine_state == "stopped" and car.remainingUnlockedDoors == 4
    assert car.displayCarStatus("fuel") == {"fuelLevel": 0.0}
    doors = {"driver": "locked", "passenger": "locked", "rear_left": "unlocked", "rear_right": "locked"}
    car = _car(engineState="running", doorStatus=doors, remainingUnlockedDoors=4, parkingBrakeForce=3.0)
    assert car.engine_state == "running" and car.remainingUnlockedDoors == 1
    assert car.displayCarStatus("parkingBrake")["parkingBrakeForce"] == 3.0
    car.lockDoors(False, ["rear_left"])
    assert doors["rear_left"] == "unlocked"  # the config is copied
    assert set(VehicleControlAPI.STATE_ATTRIBUTES) == {k for k in vars(car) if not k.startswith("_")}


def test_engine_start_rules() -> None:
    car = _car(fuelLevel=10.0)
    assert car.startEngine("START")["error"].endswith("driver, passenger, rear_left, rear_right")
    assert car.lockDoors(False, ["driver", "passenger", "rear_left", "rear_right"]) == {
        "lockStatus": "locked",
        "remainingUnlockedDoors": 0,
    }
    assert car.startEngine("START") == {"error": "Brake pedal needs to be pressed when starting the engine."}
    car.pressBrakePedal(0.5)
    assert car.startEngine("START") == {"error": "Must press the brake fully before starting the engine."}
    car.pressBrakePedal(1)
    assert car.startEngine("GO") == {"error": "Invalid ignition mode."}
    assert car.startEngine("START") == {"engineState": "running", "fuelLevel": 10.0, "batteryVoltage": 12.6}
    assert car.setCruiseControl(62, True, 40) == {"error": "Invalid speed"}
    assert car.distanceToNextVehicle == 40.0  # stored before the speed check, as officially
    assert car.setCruiseControl(65, True, 40)["cruiseStatus"] == "active"


def test_other_methods() -> None:
    car = _car(fuelLevel=45.0)
    assert car.fillFuelTank(10) == {"error": "Cannot fill gas above the tank capacity."}
    assert car.fillFuelTank(5) == {"fuelLevel": 50.0}
    assert car.adjustClimateControl(77, "fahrenheit")["currentACTemperature"] == 77
    assert car.acTemperature == 25.0
    assert car.estimate_distance("74532", "83214") == {"distance": 750.0}
    assert car.estimate_distance("83214", "83214") == {"error": "distance not found in database."}
    assert car.get_zipcode_based_on_city("Silverpine") == {"zipcode": "62947"}
    assert car.get_zipcode_based_on_city("Atlantis") == {"zipcode": "00000"}
    assert car.estimate_drive_feasibility_by_mileage(1000) == {"canDrive": True}
    assert car.check_tire_pressure()["healthy_tire_pressure"] is True
    assert car.get_outside_temperature_from_weather_com() == {"error": 404}


def test_seeded_draws_and_long_context() -> None:
    draws = [_car(random_seed=5).get_current_speed()["currentSpeed"] for _ in range(2)]
    assert draws[0] == draws[1] and 0 <= draws[0] <= 120
    assert (
        _car().get_outside_temperature_from_google()
        != _car(random_seed=1).get_outside_temperature_from_google()
    )
    car = _car(long_context=True)
    weather = car.get_outside_temperature_from_google()
    assert list(weather)[-1] == "outsideTemperature" and "-1_day" in weather
    assert "outsideTemperature" not in filler("LONG_WEATHER_EXTENSION")  # no process-wide mutation
    assert car.activateParkingBrake("engage")["parkingBrakeInstruction"] == filler(
        "PARKING_BRAKE_INSTRUCTION"
    )
    assert car.estimate_distance("x", "y")["intermediaryCities"] == filler("INTERMEDIARY_CITIES")
    assert list(car.displayCarStatus("engine")) == ["metadata", "engineState"]


def test_hostile_inputs_are_outcomes() -> None:
    instances = {"VehicleControlAPI": _car()}
    for name, kwargs in [
        ("lockDoors", {"unlock": True, "door": ["trunk"]}),
        ("fillFuelTank", {"fuelAmount": "5"}),
        ("setCruiseControl", {"speed": "fast", "activate": True, "distanceToNextVehicle": 1}),
        ("set_navigation", {"destination": 5}),
        ("_random", {}),
    ]:
        assert execute_call(instances, name, kwargs).startswith("Error during execution: ")
    assert execute_call(instances, "estimate_distance", {"cityA": ["x"], "cityB": {}}) == (
        '{"error": "distance not found in database."}'
    )
    assert execute_call(instances, "display_log", {"messages": ["x" * 100_000]}).startswith('{"log": ["xxx')
