"""How the generator uses ``TradingBot``: its docs, call samplers (stocks, the watch list, open orders)
and a random authenticated account with orders and a watch list."""

from __future__ import annotations

from typing import Any

import numpy as np

from genenv_gym.envs.bfcl_multiturn.generation.class_spec import (
    FLOAT,
    INTEGER,
    STRING,
    ClassSpec,
    FunctionDoc,
)
from genenv_gym.envs.bfcl_multiturn.generation.steps import Sampler, make_step, pick

_COMPANIES = {"Apple": "AAPL", "Google": "GOOG", "Tesla": "TSLA", "Microsoft": "MSFT", "Nvidia": "NVDA"}


_DOCS: dict[str, FunctionDoc] = {
    "get_stock_info": ("Price and volume of a stock.", (("symbol", STRING, "Stock symbol.", True),)),
    "get_symbol_by_name": ("The symbol of a company name.", (("name", STRING, "Company name.", True),)),
    "add_to_watchlist": ("Add a stock to the watch list.", (("stock", STRING, "Stock symbol.", True),)),
    "remove_stock_from_watchlist": (
        "Remove a stock from the watch list.",
        (("symbol", STRING, "Stock symbol.", True),),
    ),
    "get_watchlist": ("The watch list.", ()),
    "place_order": (
        "Place a buy or sell order.",
        (
            ("order_type", STRING, "'Buy' or 'Sell'.", True),
            ("symbol", STRING, "Stock symbol.", True),
            ("price", FLOAT, "Price per share.", True),
            ("amount", INTEGER, "Number of shares.", True),
        ),
    ),
    "cancel_order": ("Cancel an order.", (("order_id", INTEGER, "Order id.", True),)),
    "get_order_details": ("Details of an order.", (("order_id", INTEGER, "Order id.", True),)),
    "fund_account": ("Add money to the account.", (("amount", FLOAT, "Amount.", True),)),
    "withdraw_funds": ("Withdraw money (market open).", (("amount", FLOAT, "Amount.", True),)),
    "get_account_info": ("Account id, balance and card.", ()),
}


def _samplers() -> list[Sampler]:
    def info(bot, rng):
        return make_step(
            "get_stock_info",
            {"symbol": pick(rng, sorted(bot.stocks))},
            "get the stock info of {symbol}",
            "get the stock info of the company I follow",
            "symbol",
        )

    def symbol(bot, rng):
        return make_step(
            "get_symbol_by_name",
            {"name": pick(rng, sorted(_COMPANIES))},
            "look up the stock symbol of {name}",
        )

    def watch(bot, rng):
        free = sorted(s for s in bot.stocks if s not in bot.watch_list)
        if not free:
            return None
        return make_step(
            "add_to_watchlist",
            {"stock": pick(rng, free)},
            "add {stock} to my watch list",
            "add a stock to my watch list",
            "symbol",
        )

    def unwatch(bot, rng):
        watched = [s for s in bot.watch_list if s in bot.stocks]
        if not watched:
            return None
        return make_step(
            "remove_stock_from_watchlist",
            {"symbol": pick(rng, watched)},
            "remove {symbol} from my watch list",
        )

    def order(bot, rng):
        sym = pick(rng, sorted(bot.stocks))
        kwargs = {
            "order_type": pick(rng, ("Buy", "Sell")),
            "symbol": sym,
            "price": round(float(bot.stocks[sym]["price"]), 2),
            "amount": int(rng.integers(1, 6)),
        }
        return make_step(
            "place_order",
            kwargs,
            "place a {order_type} order for {amount} shares of {symbol} at {price} each",
            "place a {order_type} order for some shares of {symbol} at {price} each",
            "number of shares",
        )

    def cancel(bot, rng):
        pending = sorted(
            k for k, o in bot.orders.items() if isinstance(k, int) and o["status"] in ("Open", "Pending")
        )
        if not pending:
            return None
        return make_step(
            "cancel_order",
            {"order_id": pick(rng, pending)},
            "cancel order {order_id}",
            "cancel my order",
            "order id",
        )

    def details(bot, rng):
        known = sorted(k for k in bot.orders if isinstance(k, int))
        if not known:
            return None
        return make_step(
            "get_order_details", {"order_id": pick(rng, known)}, "show the details of order {order_id}"
        )

    def fund(bot, rng):
        return make_step(
            "fund_account",
            {"amount": float(rng.integers(1, 50)) * 100},
            "add {amount} dollars to my account",
            "add money to my account",
            "amount",
        )

    def withdraw(bot, rng):
        return make_step(
            "withdraw_funds", {"amount": float(rng.integers(1, 10)) * 50}, "withdraw {amount} dollars"
        )

    def account(bot, rng):
        return make_step("get_account_info", {}, "show my account information")

    return [info, symbol, watch, unwatch, order, cancel, details, fund, withdraw, account]


def _config(rng: np.random.Generator, size: int) -> dict[str, Any]:
    symbols = sorted(_COMPANIES.values())
    orders = {}
    for i in range(int(rng.integers(1, 2 * size + 2))):
        order_id = 12345 + i
        sym = pick(rng, symbols)
        orders[str(order_id)] = {
            "id": order_id,
            "order_type": pick(rng, ("Buy", "Sell")),
            "symbol": sym,
            "price": float(rng.integers(50, 500)),
            "amount": int(rng.integers(1, 20)),
            "status": pick(rng, ("Completed", "Pending", "Open")),
        }
    return {
        "orders": orders,
        "account_info": {
            "account_id": int(rng.integers(10000, 99999)),
            "balance": float(rng.integers(20, 200)) * 100,
            "binding_card": int(rng.integers(10**15, 10**16 - 1)),
        },
        "authenticated": True,
        "market_status": pick(rng, ("Open", "Closed")),
        "order_counter": 12345 + len(orders),
        "watch_list": sorted(str(s) for s in rng.choice(symbols, int(rng.integers(1, 3)), replace=False)),
        "random_seed": int(rng.integers(1, 10**6)),
    }


SPEC = ClassSpec(
    "TradingBot",
    "This tool belongs to a stock trading account.",
    _DOCS,
    _config,
    _samplers(),
)
