"""The made-up words and people names that generated states and calls are drawn from."""

WORDS = (
    "alpha", "budget", "cedar", "delta", "ember", "falcon", "garden", "harbor", "indigo", "jasper",
    "kernel", "lumen", "meadow", "nectar", "orbit", "pepper", "quartz", "river", "summit", "timber",
    "umber", "velvet", "willow", "xenon", "yonder", "zephyr", "report", "draft", "final", "notes",
)  # fmt: skip
NAMES = (
    "Alice", "Bruno", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
    "Keiko", "Liam", "Maya", "Nico", "Olga", "Pavel",
)  # fmt: skip
