"""Live training on genenv envs from other trainers: TRL's GRPOTrainer and verl's agent loop.

- ``live_tasks.LiveTasks``: one env id's tasks for a trainer that plays many episodes at once (the task a
  dataset row pins; for a simulator id, tasks proposed by its live curriculum and every group's outcomes fed
  back to it).
- ``live_episode.LiveEpisode``: one episode played by text actions, and what each step does to the chat.
- ``live_rollout.LiveRollout``: one episode played by a trainer's own sampler, with the exact token record it
  trains on (both adapters play through it).
- ``trl_env``: TRL's ``rollout_func`` (with its dataset and reward function).
- ``verl_agent_loop``: verl's ``AgentLoopBase`` subclass ``genenv_agent`` (imports verl);
  ``VERL_AGENT_LOOP_CONFIG``: the YAML file that registers it in verl's workers.
- ``template_backend.TemplateBackend``: a tokenizer's chat template as a backend, for exact token records.

See docs/trainers.md.
"""

from pathlib import Path

#: verl's ``actor_rollout_ref.rollout.agent.agent_loop_config_path`` for the ``genenv_agent`` loop.
VERL_AGENT_LOOP_CONFIG = Path(__file__).with_name("verl_agent_loop.yaml")
