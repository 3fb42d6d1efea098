"""One curriculum for a whole run: the simulator and the skill tracker behind one interface, in any placement.

- ``protocol``: the interface. ``Curriculum`` (``propose``, ``record``, ``discard``, ``state``) is what every
  placement offers; ``TrainerCurriculum`` adds what a trainer drives (``propose_at``, ``record_group``,
  ``end_step``, ``log``, ``checkpoint``, ``restore``); ``Proposal`` is what a proposal hands back.
- ``service.CurriculumService``: the in-process placement (the default; ``LiveTasks`` holds one): proposes
  tasks, records finished episodes and whole groups, reports state and per-step diagnostics, checkpoints and
  restores, and logs every proposal and record in arrival order (``replay`` plays a log again).
- ``ray_actor``: the same object as a named Ray actor (``shared_curriculum``: get-or-create by name), so that
  every rollout worker of a run proposes from and records into one curriculum.
- ``diagnostics.StepDiagnostics``: what one trainer step's groups say (learning signal, too easy, too hard,
  in band, per-level success, whether the simulator updated).

The third placement, a curriculum ``genenv serve`` hosts, is reached by a session through
``serve.session_curriculum.SessionCurriculum`` (a ``Curriculum``).
"""

from genenv_gym.curriculum_service.protocol import Curriculum, Proposal, TrainerCurriculum

__all__ = ["Curriculum", "Proposal", "TrainerCurriculum"]
