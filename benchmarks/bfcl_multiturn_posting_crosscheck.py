"""Compare our TwitterAPI with the official bfcl-eval ``TwitterAPI`` on random call sequences.

Usage: python benchmarks/bfcl_multiturn_posting_crosscheck.py PATH/TO/func_source_code/posting_api.py

Both backends load the same config (official defaults, or a seeded custom one) and get the
same seeded calls (each backend its own copy of the arguments; tags and mentions
always given, see posting_api.py on the official mutable defaults); after every call the
rendered results and the state must be equal.
"""

from __future__ import annotations

import random

from bfcl_multiturn_official import SequenceCheck, rng_only

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


CHECK = SequenceCheck(TwitterAPI, rng_only(_random_call), configs=CONFIGS, sequences=300, length=25)

if __name__ == "__main__":
    CHECK.cli()
