"""TwitterAPI (posting) backend of BFCL multi-turn: defaults, flows, errors, isolation."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.posting_api import TwitterAPI


def _api(**config: object) -> TwitterAPI:
    api = TwitterAPI()
    api._load_scenario(dict(config))
    return api


def test_defaults_and_authentication() -> None:
    api = _api()
    assert api.post_tweet("hi") == {"error": "User not authenticated. Please authenticate before posting."}
    assert api.authenticate_twitter("john", "bad") == {"authentication_status": False}
    assert api.authenticate_twitter("john", "john123") == {"authentication_status": True}
    assert api.list_all_following() == {"following_list": ["alice", "bob"]}


def test_post_retweet_comment_mention_follow() -> None:
    api = _api(authenticated=True, tweets={"3": {"id": 3, "username": "amy", "content": "x",
                                                 "tags": ["#Cats"], "mentions": []}},
               tweet_counter=4)  # fmt: skip
    assert 3 in api.tweets
    tweet = api.post_tweet("Hello world")
    assert tweet == {"id": 4, "username": "john", "content": "Hello world", "tags": [],
                     "mentions": []}  # fmt: skip
    api.mention(4, ["amy"])
    assert api.post_tweet("second")["mentions"] == []  # no shared mutable default
    assert api.retweet(3) == {"retweet_status": "Successfully retweeted"}
    assert api.retweet(3) == {"retweet_status": "Already retweeted"}
    assert api.retweet(99) == {"error": "Tweet with ID 99 not found."}
    assert api.comment(3, "nice") == {"comment_status": "Comment added successfully"}
    assert api.get_tweet_comments(3) == [{"username": "john", "content": "nice"}]
    assert [t["id"] for t in api.search_tweets("#cats")] == [3]
    assert api.follow_user("alice") == {"follow_status": False}
    assert api.unfollow_user("bob") == {"unfollow_status": True}
    assert api.get_user_stats("john") == {
        "tweet_count": 2,
        "following_count": 1,
        "retweet_count": 1,
    }


def test_config_is_copied_and_hostile_calls_are_outcomes() -> None:
    config = {"following_list": ["a"], "authenticated": True}
    api = TwitterAPI()
    api._load_scenario(config)
    api.follow_user("b")
    assert config["following_list"] == ["a"]
    instances = {"TwitterAPI": api}
    assert execute_call(instances, "password", {}).startswith("Error during execution: ")
    assert execute_call(instances, "mention", {"tweet_id": 0}).startswith("Error during execution: ")
