"""The GenEnv paper's Table 1: its five columns as our env ids and metrics, and its published rows.

Each column (declared by a benchmark manifest: ``genenv_gym.registry.manifest.PaperColumn``) names the env id
that runs the paper's protocol for that benchmark and the figure of its ``EvalReport`` that the paper reports:
``overall`` (the share of tasks passed) or a key of the report's summary. A column whose env id is not
registered yet is reported as not built, never skipped silently.
"""

from __future__ import annotations

from genenv_gym.registry.manifest import PaperColumn, all_manifests

#: The paper's benchmark columns, each declared by the manifest of the package whose env measures it.
PAPER_COLUMNS: tuple[PaperColumn, ...] = tuple(
    sorted((c for m in all_manifests() for c in m.paper_columns), key=lambda c: c.position)
)

#: Table 1 of the paper (all %): model -> (ALFWorld, BFCL, API-Bank, Bamboogle, TravelPlanner, Avg).
PAPER_ROWS: dict[str, tuple[float, float, float, float, float, float]] = {
    "Llama 3.1 405B": (65.3, 5.5, 74.4, 77.6, 16.5, 47.9),
    "GPT-OSS 120B": (60.4, 21.9, 53.6, 29.6, 14.7, 36.0),
    "Qwen 2.5 72B": (63.5, 35.3, 54.9, 69.6, 20.5, 48.8),
    "Llama 3.1 70B": (60.1, 13.4, 64.3, 76.8, 17.6, 46.4),
    "Qwen 3 32B": (52.3, 33.8, 63.8, 71.2, 22.5, 48.7),
    "GPT-OSS 20B": (53.6, 24.4, 41.2, 33.6, 14.9, 33.5),
    "Qwen 3 14B": (37.8, 29.4, 66.7, 76.0, 14.7, 44.9),
    "ReSearch (7B)": (18.7, 5.0, 65.3, 68.0, 16.4, 34.7),
    "SearchR1 (7B)": (16.1, 5.0, 63.3, 67.2, 16.1, 33.5),
    "Qwen 2.5 7B (Instruct)": (14.2, 7.0, 61.6, 68.0, 14.3, 33.0),
    "ToRL (7B)": (8.0, 0.0, 54.1, 34.4, 14.8, 22.3),
    "GenEnv (7B)": (54.5, 41.8, 79.1, 76.0, 16.6, 53.6),
}


def paper_table(label: str, scores: dict[str, float | None]) -> str:
    """Table 1 as Markdown: this run's row (``None``: not measured) and the paper's published rows.

    The run's average is over the columns it measured; the row says how many.
    """
    names = [c.name for c in PAPER_COLUMNS]
    lines = [
        "| Model | " + " | ".join(names) + " | Avg |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    measured = [scores[n] for n in names if scores.get(n) is not None]
    cells = [f"{100 * scores[n]:.1f}" if scores.get(n) is not None else "—" for n in names]
    average = f"{100 * sum(measured) / len(measured):.1f}" if measured else "—"
    if measured and len(measured) < len(names):
        average += f" ({len(measured)} of {len(names)})"
    lines.append(f"| **{label}** | " + " | ".join(cells) + f" | {average} |")
    for model, row in PAPER_ROWS.items():
        lines.append(f"| {model} (paper) | " + " | ".join(f"{v:.1f}" for v in row) + " |")
    return "\n".join(lines)
