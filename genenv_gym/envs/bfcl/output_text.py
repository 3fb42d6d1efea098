"""A model's raw output before a BFCL decoder reads it: the length limit and the official bracket wrap."""

from __future__ import annotations

from genenv_gym.envs.bfcl.decode_errors import DecodeError

__all__ = ["MAX_OUTPUT_CHARS", "bracket_wrap", "check_output_text"]

#: Outputs longer than this are rejected with a :class:`DecodeError` and never parsed.
MAX_OUTPUT_CHARS: int = 100_000


def check_output_text(text: object) -> str:
    """``text`` itself if it is a string of at most :data:`MAX_OUTPUT_CHARS` characters, else DecodeError."""
    if not isinstance(text, str):
        raise DecodeError(f"output must be a string, got {type(text).__name__}")
    if len(text) > MAX_OUTPUT_CHARS:
        raise DecodeError(f"output is longer than {MAX_OUTPUT_CHARS} characters ({len(text)})")
    return text


def bracket_wrap(text: str) -> str:
    """The official pre-processing: strip `````, newline and space from both ends, add missing ``[`` ``]``."""
    text = text.strip("`\n ")
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text
