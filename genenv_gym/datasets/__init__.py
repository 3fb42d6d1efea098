"""Getting the benchmarks' data: where each comes from (``sources``), fetching it (``fetch``), what is here
(``status``). ``genenv data fetch NAME|all`` and ``genenv data status`` are the command-line front."""

from genenv_gym.data_source import Source
from genenv_gym.datasets.download import FetchError, FetchResult, fetch
from genenv_gym.datasets.sources import SOURCES
from genenv_gym.datasets.status import BenchmarkStatus, benchmark_status

__all__ = ["SOURCES", "BenchmarkStatus", "FetchError", "FetchResult", "Source", "benchmark_status", "fetch"]
