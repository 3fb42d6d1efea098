"""Compare our TradingBot with the official bfcl-eval class on random call sequences.

Usage: python benchmarks/bfcl_multiturn_trading_crosscheck.py \
           PATH/TO/func_source_code/trading_bot.py [BFCL_DATA_DIR]

Both backends load the same real ``initial_config`` (or the defaults, or a custom seed),
half of the sequences in long-context mode (ours then uses the official filler), and get
the same seeded calls; after every call the rendered results and all state attributes must
be equal.
"""

from __future__ import annotations

import random

from bfcl_multiturn_official import SequenceCheck

from genenv_gym.envs.bfcl_multiturn.trading_bot import TradingBot

SYMBOLS = ["AAPL", "GOOG", "TSLA", "NVDA", "ZETA", "OMEG", "XTSX", "F", "MSFT"]
NAMES = ["Apple", "Zeta Corp", "Gorilla", "Quasar Ltd.", "Nobody Inc"]
DATES = [None, "2024-09-01", "2024-09-02", "2024-09-03", "2024-01-01"]


def _random_call(rng: random.Random, order_ids: list) -> tuple[str, dict]:
    """One random call with plausible and implausible arguments."""
    order_id = rng.choice([*order_ids, 1, 99999]) if order_ids else 1
    amount = rng.choice([0, -5, 10, 100.5, 5000, 20000, 3])
    calls = [
        ("get_current_time", {}),
        ("get_symbol_by_name", {"name": rng.choice(NAMES)}),
        ("get_stock_info", {"symbol": rng.choice(SYMBOLS)}),
        ("get_order_details", {"order_id": order_id}),
        ("cancel_order", {"order_id": order_id}),
        ("place_order", {"order_type": rng.choice(["Buy", "Sell", "buy"]), "symbol": rng.choice(SYMBOLS),
                         "price": rng.choice([0, 150.0, 227.16, 3000]),
                         "amount": rng.choice([0, 1, 10, 100])}),
        ("withdraw_funds", {"amount": amount}),
        ("get_account_info", {}),
        ("trading_login", {"username": "u", "password": "p"}),
        ("trading_get_login_status", {}),
        ("trading_logout", {}),
        ("fund_account", {"amount": amount}),
        ("remove_stock_from_watchlist", {"symbol": rng.choice(SYMBOLS)}),
        ("get_watchlist", {}),
        ("get_order_history", {}),
        ("get_transaction_history", {"start_date": rng.choice(DATES), "end_date": rng.choice(DATES)}),
        ("get_available_stocks", {"sector": rng.choice(["Technology", "Automobile", "Energy"])}),
        ("filter_stocks_by_price", {"stocks": rng.sample(SYMBOLS, 4), "min_price": rng.choice([0, 100, 300]),
                                    "max_price": rng.choice([250, 700, 5000])}),
        ("add_to_watchlist", {"stock": rng.choice(SYMBOLS)}),
        ("notify_price_change", {"stocks": rng.sample(SYMBOLS, 3),
                                 "threshold": rng.choice([0.05, 0.1, 0.3])}),
    ]  # fmt: skip
    return rng.choice(calls)


CHECK = SequenceCheck(
    TradingBot,
    lambda config: lambda rng, ours: _random_call(rng, list(ours.orders)),
    configs=[{}, {"random_seed": 3, "authenticated": True, "market_status": "Open"}],
    real_configs=True,
    long_context=True,
    public_attributes=True,
)

if __name__ == "__main__":
    CHECK.cli()
