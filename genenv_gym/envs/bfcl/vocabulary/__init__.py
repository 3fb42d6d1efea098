"""The API-family vocabulary of the BFCL task generator (:mod:`genenv_gym.envs.bfcl.generator`).

* :mod:`.spec`: how a function of the vocabulary is described (:class:`~.spec.Param`, :class:`~.spec.Func`)
  and the value samplers its parameters draw from;
* :mod:`.pools`: the value pools (cities, currencies, songs, ...), invented for this package;
* :mod:`.families`: the 32 API families (weather, currency, flights, unit conversion, geometry, stocks,
  calendar, recipes, ...), each with two to four sibling functions whose names and descriptions are close
  enough to serve as distractors: ``FUNCS`` and ``FAMILIES``.
"""
