"""The backend classes entries are generated over, by class name (``TravelAPI`` is not generated)."""

from __future__ import annotations

from typing import Any

from genenv_gym.envs.bfcl_multiturn.generation import (
    file_system,
    math,
    message,
    posting,
    ticket,
    trading,
    vehicle,
)
from genenv_gym.envs.bfcl_multiturn.generation.class_spec import ClassSpec

CLASSES: dict[str, ClassSpec] = {
    spec.name: spec
    for spec in (
        file_system.SPEC,
        ticket.SPEC,
        vehicle.SPEC,
        trading.SPEC,
        message.SPEC,
        posting.SPEC,
        math.SPEC,
    )
}


def class_docs(class_name: str) -> list[dict[str, Any]]:
    """The function docs of a class's generated methods (BFCL's JSON schema format)."""
    return CLASSES[class_name].function_docs()
