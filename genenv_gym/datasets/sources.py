"""Where each benchmark's data comes from: the ``source`` of every benchmark manifest, by data-folder name.

The source types (``Source``, ``PipWheel``, ``GitHubFiles``, ``Urls``, ``DownloadScript``) are in
``genenv_gym.registry.data_source``; each benchmark declares its own in its ``manifest.py``.
"""

from __future__ import annotations

from genenv_gym.registry.data_source import Source
from genenv_gym.registry.manifest import all_manifests

#: Benchmark (data folder) name -> its source, in listing order.
SOURCES: dict[str, Source] = {m.source.name: m.source for m in all_manifests() if m.source is not None}
