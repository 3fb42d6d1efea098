"""The vector modes every id is played in (tests/envs/test_vector_modes.py; README quotes the count)."""

MODES = {
    "sync": ("sync", {}),
    "async_shared_memory": ("async", {"shared_memory": True}),
    "async_no_shared_memory": ("async", {"shared_memory": False}),
}
