"""TradingBot backend of BFCL multi-turn: defaults, orders, funds, seeded stamps, safety."""

from __future__ import annotations

from genenv_gym.envs.bfcl_multiturn.executor import execute_call
from genenv_gym.envs.bfcl_multiturn.long_context import filler
from genenv_gym.envs.bfcl_multiturn.trading_bot import TradingBot


def _bot(long_context: bool = False, **config: object) -> TradingBot:
    bot = TradingBot()
    bot._load_scenario(dict(config), long_context=long_context)
    return bot


def test_defaults_login_and_info() -> None:
    bot = _bot()
    assert bot.get_current_time() == {"current_time": "10:30 AM"}
    assert bot.get_symbol_by_name("Zeta Corp") == {"symbol": "ZETA"}
    assert bot.get_symbol_by_name("Acme") == {"symbol": "Stock not found"}
    assert bot.get_watchlist() == ["Error: User not authenticated. Please log in to view the watchlist."]
    assert bot.trading_login("a", "b") == {"status": "Logged in successfully"}
    assert bot.trading_login("a", "b") == {"status": "Already logged in"}
    assert bot.get_order_history() == {"history": [12345, 12446]}
    assert bot.get_stock_info("XXX") == {"error": "Stock with symbol 'XXX' not found."}
    assert bot.get_available_stocks("Automobile") == {"stock_list": ["TSLA", "F", "GM"]}
    assert bot.filter_stocks_by_price(["AAPL", "GOOG", "ZZZ"], 0, 300) == {"filtered_stocks": ["AAPL", "ZZZ"]}
    assert bot.notify_price_change(["NVDA", "ZETA"], 0.3)["notification"] == (
        "Stocks NVDA have significant price changes."
    )


def test_orders_and_funds() -> None:
    bot = _bot(
        authenticated=True, market_status="Open", orders={"7": {"id": 7, "symbol": "AAPL", "status": "Open"}}
    )
    assert bot.get_order_history() == {"history": [7]}  # digit-string ids become ints
    assert bot.place_order("Buy", "AAPL", 227.16, 100)["error"].startswith(
        "Insufficient funds: required $22716.00"
    )
    placed = bot.place_order("Buy", "AAPL", 200, 10)
    assert placed == {
        "order_id": 12446,
        "order_type": "Buy",
        "status": "Pending",
        "price": 200.0,
        "amount": 10,
    }
    assert bot.get_order_details(12446)["status"] == "Open"
    assert bot.cancel_order(12446) == {"order_id": 12446, "status": "Cancelled"}
    assert (
        bot.get_order_details(5)["error"]
        == "Order with ID 5 not found.Here is the list of orders_id: [7, 12446]"
    )
    assert bot.withdraw_funds(20000) == {"error": "Insufficient funds for withdrawal."}
    assert bot.withdraw_funds(100) == {"status": "Withdrawal successful", "new_balance": 9900.0}
    assert bot.fund_account(50)["new_balance"] == 9950.0
    stamps = [t["timestamp"] for t in bot.transaction_history]
    assert all("2024-09-01 10:30:00" <= s <= "2024-09-02 10:30:00" for s in stamps)
    assert bot.get_transaction_history("2024-09-03")["transaction_history"] == []
    again = _bot(authenticated=True, market_status="Open")
    again.withdraw_funds(100)
    assert again.transaction_history[0]["timestamp"] == stamps[0]  # seeded


def test_long_context_and_config_isolation() -> None:
    config = {"authenticated": True, "watch_list": ["AAPL"]}
    bot = _bot(long_context=True, **config)
    assert bot.get_watchlist() == ["AAPL", *filler("WATCH_LIST_EXTENSION")]
    assert bot.get_stock_info("AAPL")["MA(5)"] == filler("MA_5_EXTENSION")
    assert bot.get_order_details(12345)["metadata"]["risks"].startswith("\n    AAPL")
    tech = bot.get_available_stocks("Technology")["stock_list"]
    assert len(tech) == 4 + len(filler("TECHNOLOGY_EXTENSION"))
    assert bot.get_available_stocks("Technology")["stock_list"] == tech  # no growth between calls
    bot.remove_stock_from_watchlist("AAPL")
    assert config["watch_list"] == ["AAPL"]
    assert set(TradingBot.STATE_ATTRIBUTES) == {k for k in vars(bot) if not k.startswith("_")}


def test_hostile_inputs_are_outcomes() -> None:
    instances = {"TradingBot": _bot(authenticated=True, market_status="Open")}
    for name, kwargs in [
        ("get_order_details", {"order_id": [1]}),
        ("place_order", {"order_type": 5, "symbol": "AAPL", "price": 1, "amount": 1}),
        ("withdraw_funds", {"amount": "all"}),
        ("get_transaction_history", {"start_date": "yesterday"}),
        ("get_available_stocks", {"sector": ["Technology"]}),
        ("_generate_transaction_timestamp", {}),
    ]:
        assert execute_call(instances, name, kwargs).startswith("Error during execution: ")
    assert (
        execute_call(instances, "get_symbol_by_name", {"name": "x" * 100_000})
        == '{"symbol": "Stock not found"}'
    )
