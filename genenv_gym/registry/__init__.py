"""The registry: which env ids exist and how each is built, read from the benchmarks' own manifests.

``manifest`` (what a benchmark package declares), ``registration`` (the Gymnasium ids and domains),
``env_entry`` (one id), ``env_kwargs`` (checking ``gymnasium.make`` arguments), ``client_params`` (what a
remote client may choose), ``data_source`` (where a benchmark's data comes from), ``extras`` (the optional
installs each id needs).
"""
