"""Compare our TwitterAPI with the official bfcl-eval ``TwitterAPI`` on random call sequences.

Usage: python benchmarks/bfcl_multiturn_message_crosscheck.py PATH/TO/func_source_code/posting_api.py

Both backends load the same config (official defaults, or a seeded custom one) and get the
same seeded calls (each backend its own copy of the arguments; tags and mentions
always given, see posting_api.py on the official mutable defaults); every rendered
result and the final state must be equal.
"""

from __future__ import annotations

import copy
import importlib.util
import random
import sys

from genenv_gym.envs.bfcl_multiturn.executor import format_result
from genenv_gym.envs.bfcl_multiturn.posting_api import TwitterAPI

CONFIGS = [
    {},
    {"username": "kim", "password": "pw", "authenticated": True,
     "tweets": {"0": {"id": 0, "username": "kim", "content": "Hello Noon", "tags": ["#a"],
                      "mentions": []},
                "1": {"id": 1, "username": "lee", "content": "file", "tags": [],
                      "mentions": ["kim"]}},
     "following_list": ["lee"], "tweet_counter": 2},
]  # fmt: skip


def _random_call(rng: random.Random) -> tuple[str, dict]:
    """One random call with plausible and implausible arguments (tags/mentions explicit)."""
    tid = rng.choice([0, 1, 2, 5])
    user = rng.choice(["john", "kim", "lee", "alice", "zed"])
    return rng.choice(
        [
            ("authenticate_twitter", {"username": user, "password": rng.choice(["john123", "pw"])}),
            ("posting_get_login_status", {}),
            ("post_tweet", {"content": rng.choice(["file", "noon"]), "tags": ["#A"],
                            "mentions": []}),
            ("retweet", {"tweet_id": tid}),
            ("comment", {"tweet_id": tid, "comment_content": "ok"}),
            ("mention", {"tweet_id": tid, "mentioned_usernames": [user]}),
            ("follow_user", {"username_to_follow": user}),
            ("list_all_following", {}),
            ("unfollow_user", {"username_to_unfollow": user}),
            ("get_tweet", {"tweet_id": tid}),
            ("get_user_tweets", {"username": user}),
            ("search_tweets", {"keyword": rng.choice(["FILE", "#a", "zz"])}),
            ("get_tweet_comments", {"tweet_id": tid}),
            ("get_user_stats", {"username": user}),
        ]
    )  # fmt: skip


def _render(api: object, name: str, kwargs: dict) -> str:
    try:
        return format_result(getattr(api, name)(**kwargs))
    except Exception as e:
        return f"Error during execution: {e}"


def main(path: str, sequences: int = 300, length: int = 25) -> int:
    """Run seeded sequences on both; print mismatches and return their count."""
    spec = importlib.util.spec_from_file_location("official_posting_api", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bad = 0
    for seed in range(sequences):
        rng = random.Random(seed)
        config = CONFIGS[seed % len(CONFIGS)]
        official, ours = module.TwitterAPI(), TwitterAPI()
        official._load_scenario(copy.deepcopy(config))
        ours._load_scenario(config)
        for _ in range(length):
            name, kwargs = _random_call(rng)
            a = _render(official, name, copy.deepcopy(kwargs))
            b = _render(ours, name, copy.deepcopy(kwargs))
            if a != b:
                bad += 1
                print(f"seed {seed} MISMATCH {name}({kwargs}): {a!r} vs {b!r}")
        for attr in TwitterAPI.STATE_ATTRIBUTES:
            if getattr(official, attr) != getattr(ours, attr):
                bad += 1
                print(f"seed {seed} STATE MISMATCH {attr}")
    print(f"{sequences} sequences x {length} calls: {bad} mismatches")
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]) else 0)
