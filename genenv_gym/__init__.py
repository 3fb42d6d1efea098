"""genenv-gym: GenEnv benchmarks, generative simulator and co-evolution trainer as Gymnasium environments.

``import genenv_gym`` registers every env id (``GenEnv-BFCL-v0``, ``GenEnv-Sim-BFCL-v0``, ...) with
Gymnasium; the envs themselves are imported only when ``gymnasium.make`` builds one.
"""

from genenv_gym.curriculum import CurriculumConfig, alpha_reward, empirical_success, in_band
from genenv_gym.domain import Domain, Episode, StepResult, Verdict
from genenv_gym.registry.registration import ENV_ENTRIES, make_domain, register_envs
from genenv_gym.simulator import Outcome, ProceduralSimulator, Simulator
from genenv_gym.skill import SkillEstimate, SkillTracker
from genenv_gym.task import Task

__version__ = "0.1.0"

__all__ = [
    "ENV_ENTRIES",
    "CurriculumConfig",
    "Domain",
    "Episode",
    "Outcome",
    "ProceduralSimulator",
    "Simulator",
    "SkillEstimate",
    "SkillTracker",
    "StepResult",
    "Task",
    "Verdict",
    "alpha_reward",
    "empirical_success",
    "in_band",
    "make_domain",
    "register_envs",
]

register_envs()
