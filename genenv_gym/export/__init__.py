"""Exports for LLM trainers: env tasks as verl / TRL / jsonl tables, and reward functions that grade them.

``genenv export --env ID --format verl|trl|jsonl`` runs ``exporter.export``; ``rewards`` holds the reward
functions (verl's ``compute_score``, TRL's ``trl_reward``) that call the tasks' own verifier.
"""

from genenv_gym.export.exporter import FORMATS, ExportResult, collect_tasks, export, rows_for, write_rows

__all__ = ["FORMATS", "ExportResult", "collect_tasks", "export", "rows_for", "write_rows"]
