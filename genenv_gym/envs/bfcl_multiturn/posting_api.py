"""TwitterAPI: BFCL multi-turn's posting backend, with the official behaviour.

State: ``username``, ``password``, ``authenticated``, ``tweets`` (id -> tweet; config keys
are turned into ints as officially), ``comments``, ``retweets``, ``following_list``,
``tweet_counter``; loaded (deep-copied) from an ``initial_config`` entry with the official
defaults (user ``john``/``john123``, following alice and bob).

One deliberate difference: the official ``post_tweet`` has mutable default arguments
(``tags=[]``, ``mentions=[]``) shared by every call in the process, so a later ``mention``
on one tweet leaks into other tweets posted without mentions; here each tweet gets its own
lists.
"""

from __future__ import annotations

from typing import Any

from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

DEFAULT_STATE: dict[str, Any] = {
    "username": "john",
    "password": "john123",
    "authenticated": False,
    "tweets": {},
    "comments": {},
    "retweets": {},
    "following_list": ["alice", "bob"],
    "tweet_counter": 0,
}


def _auth_error(action: str) -> dict[str, str]:
    """The official not-authenticated error for ``action``."""
    return {"error": f"User not authenticated. Please authenticate before {action}."}


class TwitterAPI:
    """The posting backend: authenticate, post, retweet, comment, mention, follow."""

    METHODS = (
        "authenticate_twitter",
        "posting_get_login_status",
        "post_tweet",
        "retweet",
        "comment",
        "mention",
        "follow_user",
        "list_all_following",
        "unfollow_user",
        "get_tweet",
        "get_user_tweets",
        "search_tweets",
        "get_tweet_comments",
        "get_user_stats",
    )
    STATE_ATTRIBUTES = tuple(DEFAULT_STATE)

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._load_scenario(scenario or {}, long_context=long_context)
        self._api_description = (
            "This tool belongs to the TwitterAPI, which provides core functionality for "
            "posting tweets, retweeting, commenting, and following users on Twitter."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Load state from an ``initial_config`` entry, defaulting missing keys."""
        state = copy_state({**DEFAULT_STATE, **{k: v for k, v in scenario.items() if k in DEFAULT_STATE}})
        self.username: str = state["username"]
        self.password: str = state["password"]
        self.authenticated: bool = state["authenticated"]
        self.tweets: dict[int, dict[str, Any]] = {int(k): v for k, v in state["tweets"].items()}
        self.comments: dict = state["comments"]
        self.retweets: dict = state["retweets"]
        self.following_list: list[str] = state["following_list"]
        self.tweet_counter: int = state["tweet_counter"]

    def authenticate_twitter(self, username: str, password: str) -> dict:
        """Log in when username and password match the account."""
        if username == self.username and password == self.password:
            self.authenticated = True
            return {"authentication_status": True}
        return {"authentication_status": False}

    def posting_get_login_status(self) -> dict:
        """Whether the account is authenticated."""
        return {"login_status": bool(self.authenticated)}

    def post_tweet(
        self, content: str, tags: list[str] | None = None, mentions: list[str] | None = None
    ) -> dict:
        """Post a tweet; returns it."""
        if not self.authenticated:
            return _auth_error("posting")
        tweet = {
            "id": self.tweet_counter,
            "username": self.username,
            "content": content,
            "tags": [] if tags is None else tags,
            "mentions": [] if mentions is None else mentions,
        }
        self.tweets[self.tweet_counter] = tweet
        self.tweet_counter += 1
        return tweet

    def retweet(self, tweet_id: int) -> dict:
        """Retweet a tweet once."""
        if not self.authenticated:
            return _auth_error("retweeting")
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        mine = self.retweets.setdefault(self.username, [])
        if tweet_id in mine:
            return {"retweet_status": "Already retweeted"}
        mine.append(tweet_id)
        return {"retweet_status": "Successfully retweeted"}

    def comment(self, tweet_id: int, comment_content: str) -> dict:
        """Comment on a tweet."""
        if not self.authenticated:
            return _auth_error("commenting")
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        self.comments.setdefault(tweet_id, []).append({"username": self.username, "content": comment_content})
        return {"comment_status": "Comment added successfully"}

    def mention(self, tweet_id: int, mentioned_usernames: list[str]) -> dict:
        """Add mentions to a tweet (no login needed, as officially)."""
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        self.tweets[tweet_id]["mentions"].extend(mentioned_usernames)
        return {"mention_status": "Users mentioned successfully"}

    def follow_user(self, username_to_follow: str) -> dict:
        """Follow a user."""
        if not self.authenticated:
            return _auth_error("following")
        if username_to_follow in self.following_list:
            return {"follow_status": False}
        self.following_list.append(username_to_follow)
        return {"follow_status": True}

    def list_all_following(self) -> dict:
        """The users followed."""
        if not self.authenticated:
            return _auth_error("listing following")
        return {"following_list": self.following_list}

    def unfollow_user(self, username_to_unfollow: str) -> dict:
        """Unfollow a user."""
        if not self.authenticated:
            return _auth_error("unfollowing")
        if username_to_unfollow not in self.following_list:
            return {"unfollow_status": False}
        self.following_list.remove(username_to_unfollow)
        return {"unfollow_status": True}

    def get_tweet(self, tweet_id: int) -> dict:
        """A tweet by id."""
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self.tweets[tweet_id]

    def get_user_tweets(self, username: str) -> list[dict]:
        """All tweets of a user."""
        return [t for t in self.tweets.values() if t["username"] == username]

    def search_tweets(self, keyword: str) -> list[dict]:
        """Tweets whose content or tags contain ``keyword`` (case-insensitive)."""
        key = keyword.lower()
        return [
            t
            for t in self.tweets.values()
            if key in t["content"].lower() or key in [tag.lower() for tag in t["tags"]]
        ]

    def get_tweet_comments(self, tweet_id: int) -> list[dict] | dict:
        """Comments of a tweet (an error dict when the tweet does not exist)."""
        if tweet_id not in self.tweets:
            return {"error": f"Tweet with ID {tweet_id} not found."}
        return self.comments.get(tweet_id, [])

    def get_user_stats(self, username: str) -> dict:
        """Tweet, following and retweet counts of a user."""
        tweet_count = len([t for t in self.tweets.values() if t["username"] == username])
        following_count = len(self.following_list) if username == self.username else 0
        retweet_count = len(self.retweets.get(username, []))
        return {
            "tweet_count": tweet_count,
            "following_count": following_count,
            "retweet_count": retweet_count,
        }
