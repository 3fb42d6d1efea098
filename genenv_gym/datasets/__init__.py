"""Benchmark data on disk: where each benchmark comes from (``sources``), fetching it (``download``), what is
here (``status``), where it is read from (``data_dir``) and the tasks built from it, kept between processes
(``task_cache``). ``genenv data fetch NAME|all`` and ``genenv data status`` are the command-line front.

Nothing is imported here: the envs read ``data_dir`` while the registry is still being built, and
``sources`` reads every manifest."""
