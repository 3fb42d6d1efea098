"""How the generator uses ``TwitterAPI``: its docs, call samplers (tweets, followed users) and a random
posting account with tweets."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import (
    ARRAY,
    INTEGER,
    STRING,
    ClassSpec,
    FunctionDoc,
)
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, make_step, pick
from genenv_gym.envs.bfcl_multiturn.generation.vocabulary import NAMES, WORDS

_DOCS: dict[str, FunctionDoc] = {
    "post_tweet": (
        "Post a tweet.",
        (
            ("content", STRING, "Text.", True),
            ("tags", ARRAY, "Hashtags.", False),
            ("mentions", ARRAY, "Mentioned user names.", False),
        ),
    ),
    "retweet": ("Retweet a tweet.", (("tweet_id", INTEGER, "Tweet id.", True),)),
    "comment": (
        "Comment on a tweet.",
        (("tweet_id", INTEGER, "Tweet id.", True), ("comment_content", STRING, "Comment.", True)),
    ),
    "follow_user": ("Follow a user.", (("username_to_follow", STRING, "User name.", True),)),
    "unfollow_user": ("Unfollow a user.", (("username_to_unfollow", STRING, "User name.", True),)),
    "list_all_following": ("The users followed.", ()),
    "get_tweet": ("A tweet by id.", (("tweet_id", INTEGER, "Tweet id.", True),)),
    "get_user_tweets": ("A user's tweets.", (("username", STRING, "User name.", True),)),
    "search_tweets": ("Tweets that contain a keyword.", (("keyword", STRING, "Keyword.", True),)),
}


def _samplers() -> list[Sampler]:
    def post(api, rng):
        kwargs = {
            "content": f"Loving the {pick(rng, WORDS)} today",
            "tags": [f"#{pick(rng, WORDS)}"],
            "mentions": [f"@{pick(rng, NAMES).lower()}"],
        }
        return make_step(
            "post_tweet", kwargs, "post {content} with the tags {tags} and the mentions {mentions}"
        )

    def ids(api) -> list[int]:
        return sorted(api.tweets)

    def retweet(api, rng):
        if not ids(api):
            return None
        return make_step(
            "retweet",
            {"tweet_id": pick(rng, ids(api))},
            "retweet tweet {tweet_id}",
            "retweet that tweet",
            "tweet id",
        )

    def comment(api, rng):
        if not ids(api):
            return None
        kwargs = {"tweet_id": pick(rng, ids(api)), "comment_content": f"Great {pick(rng, WORDS)}!"}
        return make_step(
            "comment",
            kwargs,
            "comment {comment_content} on tweet {tweet_id}",
            "comment {comment_content} on a tweet",
            "tweet id",
        )

    def follow(api, rng):
        free = [n.lower() for n in NAMES if n.lower() not in api.following_list]
        if not free:
            return None
        return make_step(
            "follow_user",
            {"username_to_follow": pick(rng, free)},
            "follow {username_to_follow}",
            "follow my friend",
            "user name",
        )

    def unfollow(api, rng):
        if not api.following_list:
            return None
        return make_step(
            "unfollow_user",
            {"username_to_unfollow": pick(rng, api.following_list)},
            "unfollow {username_to_unfollow}",
        )

    def following(api, rng):
        return make_step("list_all_following", {}, "list everyone I follow")

    def get(api, rng):
        if not ids(api):
            return None
        return make_step("get_tweet", {"tweet_id": pick(rng, ids(api))}, "show tweet {tweet_id}")

    def user_tweets(api, rng):
        return make_step("get_user_tweets", {"username": api.username}, "show all tweets of {username}")

    def search(api, rng):
        return make_step("search_tweets", {"keyword": pick(rng, WORDS)}, "search tweets for {keyword}")

    return [post, retweet, comment, follow, unfollow, following, get, user_tweets, search]


def _config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    user = pick(rng, NAMES).lower()
    tweets = {}
    for i in range(int(rng.integers(1, 2 * size + 2))):
        tweets[str(i)] = {
            "id": i,
            "username": user if rng.random() < 0.6 else pick(rng, NAMES).lower(),
            "content": f"thinking about {pick(rng, WORDS)} and {pick(rng, WORDS)}",
            "tags": [f"#{pick(rng, WORDS)}"],
            "mentions": [],
        }
    following = sorted({pick(rng, NAMES).lower() for _ in range(size + 1)} - {user})
    return {
        "username": user,
        "password": f"{user}{int(rng.integers(100, 999))}",
        "authenticated": True,
        "tweets": tweets,
        "comments": {},
        "retweets": {},
        "following_list": following,
        "tweet_counter": len(tweets),
    }


SPEC = ClassSpec(
    "TwitterAPI",
    "This tool belongs to a social posting account.",
    _DOCS,
    _config,
    _samplers(),
)
