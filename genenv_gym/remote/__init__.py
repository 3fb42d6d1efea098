"""The client side of ``genenv serve``: ``GenEnv-Remote-v0``, a Gymnasium env whose episodes run on one
server of a pool. Needs ``websockets`` for the WebSocket transport (the ``serve`` extra); plain HTTP needs
nothing beyond the standard library."""
