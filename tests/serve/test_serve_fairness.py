"""The env workers shared between clients (serve/fairness.py), scheduled as the server schedules them:
many calls of several clients waiting at once, granted and released in turn."""

from __future__ import annotations

import asyncio

import pytest

from genenv_gym.serve.fairness import FairSlots


async def _hold(slots: FairSlots, client: str, log: list, release: asyncio.Event):
    async with slots.slot(client):
        log.append(client)
        await release.wait()


def _run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 10))


def test_a_client_alone_uses_every_slot_and_two_clients_share_them():
    async def scenario():
        slots, log, release = FairSlots(2), [], asyncio.Event()
        slots.add_session("a")
        alone = [asyncio.create_task(_hold(slots, "a", log, release)) for _ in range(3)]
        await asyncio.sleep(0.01)
        assert log == ["a", "a"]  # two slots, one client: both used, the third waits
        release.set()
        await asyncio.gather(*alone)

        slots.add_session("b")  # b holds a session (idle): a now gets its share only
        log.clear()
        release = asyncio.Event()
        busy = [asyncio.create_task(_hold(slots, "a", log, release)) for _ in range(3)]
        await asyncio.sleep(0.01)
        assert log == ["a"] and slots.share() == 1
        other = asyncio.create_task(_hold(slots, "b", log, release))
        await asyncio.sleep(0.01)
        assert log == ["a", "b"]  # b's call starts at once on the slot a was kept from
        release.set()
        await asyncio.gather(*busy, other)
        assert not slots.running and not slots._waiting

    _run(scenario())


def test_a_free_slot_goes_to_the_client_running_fewest_calls_earliest_first():
    async def scenario():
        slots, log = FairSlots(3), []
        for client in "ab":
            slots.add_session(client)
        first = asyncio.Event()
        holders = [asyncio.create_task(_hold(slots, "a", log, first)) for _ in range(2)]
        await asyncio.sleep(0.01)
        later = asyncio.Event()
        waiting = [asyncio.create_task(_hold(slots, c, log, later)) for c in "aab"]
        await asyncio.sleep(0.01)
        assert log == ["a", "a", "b"]  # the third slot: b (0 running) before a's earlier waiters
        first.set()
        await asyncio.sleep(0.01)
        assert log == ["a", "a", "b", "a", "a"]
        later.set()
        await asyncio.gather(*holders, *waiting)

    _run(scenario())


def test_a_waiter_that_gives_up_leaves_no_trace():
    async def scenario():
        slots, log, release = FairSlots(1), [], asyncio.Event()
        slots.add_session("a")
        holder = asyncio.create_task(_hold(slots, "a", log, release))
        await asyncio.sleep(0.01)
        waiter = asyncio.create_task(_hold(slots, "a", log, release))
        await asyncio.sleep(0.01)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        release.set()
        await holder
        assert not slots.running and not slots._waiting and log == ["a"]
        slots.remove_session("a")
        assert not slots.sessions

    _run(scenario())


def test_a_call_that_leaves_the_pool_frees_its_slot_and_still_counts_against_its_client():
    async def scenario():
        slots, log, release = FairSlots(2), [], asyncio.Event()
        for client in ("a", "b", "c"):
            slots.add_session(client)
        held: list = []

        async def slow(client: str) -> None:
            async with slots.slot(client) as granted:
                held.append(granted)
                log.append(client)
                await release.wait()

        first = [asyncio.create_task(slow("a")), asyncio.create_task(slow("b"))]
        await asyncio.sleep(0.01)
        waiting = asyncio.create_task(_hold(slots, "c", log, release))
        more_a = asyncio.create_task(_hold(slots, "a", log, release))
        await asyncio.sleep(0.01)
        assert log == ["a", "b"]  # the pool is full
        for granted in held:
            granted.leave_pool()  # both ran past --slow-call
        await asyncio.sleep(0.01)
        assert log == ["a", "b", "c"]  # c's call starts; a's second waits: a's slow call counts for a
        assert slots.in_pool == 1 and slots.running["a"] == 1 and slots.left_pool == 2
        release.set()
        await asyncio.gather(*first, waiting, more_a)
        assert log[-1] == "a" and slots.in_pool == 0 and not slots.running

    _run(scenario())
