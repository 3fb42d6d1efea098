"""The ``genenv`` command line: ``main`` (list, eval, export, serve), ``data`` (fetch, status), ``train``,
and ``paper_table`` (the GenEnv paper's Table 1 as our ids)."""
