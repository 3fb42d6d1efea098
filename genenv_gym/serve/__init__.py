"""``genenv serve``: the registered envs over the OpenEnv contract (HTTP + WebSocket), one env per session.

Importing this package is cheap; the app (``serve.app``) needs the ``serve`` extra (fastapi, uvicorn,
websockets). See docs/serving.md.
"""
