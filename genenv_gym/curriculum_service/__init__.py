"""One curriculum for a whole run: the simulator and the skill tracker behind one interface, in any placement.

- ``service.CurriculumService``: the in-process placement (the default; ``LiveTasks`` holds one): proposes
  tasks, records finished episodes and whole groups, reports state and per-step diagnostics, checkpoints and
  restores, and logs every proposal and record in arrival order (``replay`` plays a log again).
- ``ray_actor``: the same object as a named Ray actor (``shared_curriculum``: get-or-create by name), so that
  every rollout worker of a run proposes from and records into one curriculum.
- ``diagnostics.StepDiagnostics``: what one trainer step's groups say (learning signal, too easy, too hard,
  in band, per-level success, whether the simulator updated).
"""
