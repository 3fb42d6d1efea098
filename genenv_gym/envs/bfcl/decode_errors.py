"""The error every BFCL decoder raises, its official error types, and the bounded ``repr`` messages quote."""

from __future__ import annotations

import reprlib

__all__ = ["DECODER_FAILED", "WRONG_OUTPUT_FORMAT", "DecodeError", "short_repr"]

DECODER_FAILED = "ast_decoder:decoder_failed"
WRONG_OUTPUT_FORMAT = "ast_decoder:decoder_wrong_output_format"


class DecodeError(ValueError):
    """The output could not be decoded into function calls; ``str(e)`` says why."""

    def __init__(self, message: str, error_type: str = DECODER_FAILED) -> None:
        super().__init__(message)
        self.error_type: str = error_type


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = 200
_REPR.maxlong = 60


def short_repr(value: object, limit: int = 80) -> str:
    """A bounded ``repr`` for messages (cheap on huge values, never raises)."""
    kind = type(value)
    text = None
    if kind is str:
        if len(value) <= _REPR.maxstring:  # type: ignore[arg-type]
            text = repr(value)
            if len(text) > _REPR.maxstring:  # reprlib shortens it
                text = None
    elif kind is float or kind is bool or value is None:
        text = repr(value)  # short: reprlib keeps it as it is
    elif kind is int and value.bit_length() <= _SHORT_INT_BITS:  # type: ignore[union-attr]
        text = repr(value)
    if text is None:
        try:
            text = _REPR.repr(value)
        except Exception:  # e.g. an int too long to print
            text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: Integers this large at most have a ``repr`` that reprlib keeps as it is (under ``maxlong`` characters).
_SHORT_INT_BITS = 150
