"""How an environment LLM writes Sim-Bamboogle tasks: the prompt, the strict JSON schema, and its parser.

The LLM picks a relation chain in the world it is shown and words the question; it writes one object::

    {"question": "In what year was the founder of Varond Guild born?",
     "start": "Varond Guild", "steps": ["founder", "birth_year"], "answer_type": "date",
     "candidate": null, "answer": "1915"}

The world, not the LLM, decides the answer: the chain is resolved in the world, and a reply whose
``answer`` disagrees is rejected. The task is then validated like a generated one
(``BamboogleSimDomain.validate``: unique start, answer not in the question, each hop retrievable).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from genenv_gym.envs.bamboogle.generator import ANSWER_TYPES, Chain, oracle_queries, resolve
from genenv_gym.envs.bamboogle.metrics import normalize_answer
from genenv_gym.envs.bamboogle.sim_domain import BamboogleSimDomain
from genenv_gym.envs.bamboogle.task_semantics import question_problems
from genenv_gym.envs.bamboogle.world import ATTRIBUTES, RELATIONS
from genenv_gym.llm_simulator.writer import (
    Target,
    TaskRejected,
    TaskWriterBase,
    describe_skill,
    require_keys,
    strict_json_object,
    task_digest,
)
from genenv_gym.skill import SkillEstimate
from genenv_gym.task import Task, thaw

#: Passages of the world shown in one prompt.
WORLD_EXCERPT = 40

SYSTEM_PROMPT = """You write new multi-hop questions for a search agent about a fictional world. Reply with \
exactly one JSON object and nothing else. Its keys:
- "question": the question, naming only the start entity; the agent must search to follow each hop.
- "start": the exact name of the entity the chain starts from.
- "steps": the hops in order: relations {relations} (each leads to another entity), optionally ending with \
one attribute {attributes}.
- "answer_type": one of {answer_types} ("yesno" asks whether the chain ends at "candidate").
- "candidate": an entity name for yesno questions, else null.
- "answer": the answer you derived from the passages (a name, a year, a number, or yes/no).
The chain is followed in the world and checked: wrong answers and questions that reveal the answer are \
discarded."""


def task_content(task: Task) -> dict[str, object]:
    """A Sim-Bamboogle task in the writer's JSON schema."""
    chain = thaw(task.evaluation["chain"])
    return {
        "question": task.evaluation["question"],
        "start": chain["start"],
        "steps": chain["steps"],
        "answer_type": chain["answer_type"],
        "candidate": chain.get("candidate"),
        "answer": task.evaluation["golden_answers"][0],
    }


class BamboogleTaskWriter(TaskWriterBase):
    """The TaskWriter of the ``bamboogle_sim`` domain (see the module docstring)."""

    domain: BamboogleSimDomain

    def prompt(self, seeds: Sequence[Task], skill: SkillEstimate, target: Target) -> list[dict[str, str]]:
        documents = self.domain.world.documents()
        picked = self.rng.choice(len(documents), size=min(WORLD_EXCERPT, len(documents)), replace=False)
        passages = "\n".join(documents[int(i)]["contents"].replace("\n", ": ", 1) for i in sorted(picked))
        examples = "\n".join(json.dumps(task_content(s), ensure_ascii=False) for s in seeds[:4])
        hops = target.level + 1
        parts = [
            "The agent's record:\n" + describe_skill(skill),
            f"Write a {hops}-hop question (exactly {hops} steps); aim for one the agent answers about "
            f"{target.alpha:.0%} of the time.",
            "Passages of the world (every entity has one):\n" + passages,
        ]
        if examples:
            parts.append("Examples of the format (do not copy them):\n" + examples)
        parts.append("Write one new question as a single JSON object.")
        system = SYSTEM_PROMPT.format(
            relations=", ".join(RELATIONS),
            attributes=", ".join(ATTRIBUTES),
            answer_types=", ".join(ANSWER_TYPES),
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]

    def parse(self, reply: str, target: Target, provenance: str) -> Task:
        data = strict_json_object(reply)
        require_keys(data, ("question", "start", "steps", "answer_type", "answer"), ("candidate",))
        question, start, steps = data["question"], data["start"], data["steps"]
        answer_type, candidate = data["answer_type"], data.get("candidate")
        if not isinstance(question, str) or not question.strip() or len(question) > 1000:
            raise TaskRejected("parse", "question must be a non-empty string of at most 1000 characters")
        if not isinstance(start, str) or start not in self.domain.world.entities:
            raise TaskRejected("parse", "start must be the exact name of an entity of the world")
        if not isinstance(steps, list) or not 1 <= len(steps) <= self.domain.num_levels:
            raise TaskRejected("parse", f"steps must be a list of 1..{self.domain.num_levels} hops")
        if answer_type not in ANSWER_TYPES or (candidate is not None and not isinstance(candidate, str)):
            raise TaskRejected(
                "parse", f"answer_type must be one of {ANSWER_TYPES}; candidate a name or null"
            )
        chain = Chain(start, tuple(str(s) for s in steps), answer_type, candidate)
        try:
            visited, answer = resolve(self.domain.world, chain)
        except KeyError:
            raise TaskRejected("parse", "the steps do not apply to the entities they reach") from None
        if len(visited) < len(chain.steps) or normalize_answer(str(data["answer"])) != normalize_answer(
            answer
        ):
            raise TaskRejected("parse", "the stated answer is not where the chain leads in the world")
        hops = len(chain.steps)
        doc_ids = {
            e.name: d["id"]
            for e, d in zip(self.domain.world.entities.values(), self.domain.world.documents(), strict=True)
        }
        return Task(
            id=f"bamboogle_llm_{task_digest(question, start, steps, answer_type, candidate)}",
            domain=self.domain.name,
            messages=({"role": "user", "content": question},),  # the observation wraps it in the prompt
            evaluation={
                "question": question,
                "golden_answers": [answer],
                "oracle_queries": oracle_queries(self.domain.world, chain),
                "evidence_ids": [doc_ids[n] for n in visited[:hops]],
                "chain": {
                    "start": start,
                    "steps": list(chain.steps),
                    "answer_type": answer_type,
                    "candidate": candidate,
                },
            },
            difficulty={
                "level": hops - 1,
                "hops": hops,
                "answer_type": answer_type,
                "target_level": int(target.level),
            },
            provenance=provenance,
            category=f"hops_{hops}",
        )

    def semantic_problems(self, task: Task) -> list[str]:
        """Where the question does not ask what its chain resolves (``task_semantics``)."""
        return question_problems(
            str(task.evaluation["question"]),
            thaw(task.evaluation["chain"]),
            str(task.evaluation["golden_answers"][0]),
            self.domain.world.entities,
        )

    def fingerprint(self, task: Task) -> tuple[str, str]:
        chain = thaw(task.evaluation["chain"])
        key = json.dumps([chain["start"], chain["steps"], chain["answer_type"], chain.get("candidate")])
        return key, task.evaluation["question"]
