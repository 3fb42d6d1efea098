"""TradingBot: BFCL multi-turn's stock-trading backend, with the official behaviour.

State: ``orders`` (id -> order; digit-string ids from JSON become ints), ``account_info``,
``authenticated``, ``market_status``, ``order_counter``, ``stocks``, ``watch_list``,
``transaction_history`` and ``long_context``; loaded (deep-copied) from an
``initial_config`` entry with the official defaults. Transaction timestamps are drawn from
``random.Random(random_seed)`` (official default 1053520) within the day after the fixed
clock (2024-09-01 10:30), so they equal the official ones draw for draw. In long-context
mode answers carry the filler (moving averages, order reports, watch list, transactions,
sector lists).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from genenv_gym.envs.bfcl_multiturn.long_context import filler
from genenv_gym.envs.bfcl_multiturn.state_copy import copy_state

CURRENT_TIME = datetime(2024, 9, 1, 10, 30)


def _stock(price: float, change: float, volume: float, ma5: float, ma20: float) -> dict[str, float]:
    return {"price": price, "percent_change": change, "volume": volume, "MA(5)": ma5, "MA(20)": ma20}


DEFAULT_STATE: dict[str, Any] = {
    "orders": {
        12345: {
            "id": 12345,
            "order_type": "Buy",
            "symbol": "AAPL",
            "price": 210.65,
            "amount": 10,
            "status": "Completed",
        },
        12446: {
            "id": 12446,
            "order_type": "Sell",
            "symbol": "GOOG",
            "price": 2840.56,
            "amount": 5,
            "status": "Pending",
        },
    },
    "account_info": {"account_id": 12345, "balance": 10000.0, "binding_card": 1974202140965533},
    "authenticated": False,
    "market_status": "Closed",
    "order_counter": 12446,
    "stocks": {
        "AAPL": _stock(227.16, 0.17, 2.552, 227.11, 227.09),
        "GOOG": _stock(2840.34, 0.24, 1.123, 2835.67, 2842.15),
        "TSLA": _stock(667.92, -0.12, 1.654, 671.15, 668.20),
        "MSFT": _stock(310.23, 0.09, 3.234, 309.88, 310.11),
        "NVDA": _stock(220.34, 0.34, 1.234, 220.45, 220.67),
        "ALPH": _stock(1320.45, -0.08, 1.567, 1321.12, 1325.78),
        "OMEG": _stock(457.23, 0.12, 2.345, 456.78, 458.12),
        "QUAS": _stock(725.89, -0.03, 1.789, 726.45, 728.00),
        "NEPT": _stock(88.34, 0.19, 0.654, 88.21, 88.67),
        "SYNX": _stock(345.67, 0.11, 2.112, 345.34, 346.12),
        "ZETA": _stock(22.09, -0.05, 0.789, 22.12, 22.34),
    },
    "watch_list": ["NVDA"],
    "transaction_history": [],
}
DEFAULT_SEED = 1053520
_SYMBOLS = {
    "Apple": "AAPL",
    "Google": "GOOG",
    "Tesla": "TSLA",
    "Microsoft": "MSFT",
    "Nvidia": "NVDA",
    "Zeta Corp": "ZETA",
    "Alpha Tech": "ALPH",
    "Omega Industries": "OMEG",
    "Quasar Ltd.": "QUAS",
    "Neptune Systems": "NEPT",
    "Synex Solutions": "SYNX",
    "Amazon": "AMZN",
    "Gorilla": "GORI",
}
_SECTORS = {"Technology": ["AAPL", "GOOG", "MSFT", "NVDA"], "Automobile": ["TSLA", "F", "GM"]}
_SECTOR_FILLER = {"Technology": "TECHNOLOGY_EXTENSION", "Automobile": "AUTOMOBILE_EXTENSION"}


class TradingBot:
    """The trading backend: login, stock info, orders, funds, watch list, history."""

    METHODS = (
        "get_current_time",
        "get_symbol_by_name",
        "get_stock_info",
        "get_order_details",
        "cancel_order",
        "place_order",
        "withdraw_funds",
        "get_account_info",
        "trading_login",
        "trading_get_login_status",
        "trading_logout",
        "fund_account",
        "remove_stock_from_watchlist",
        "get_watchlist",
        "get_order_history",
        "get_transaction_history",
        "get_available_stocks",
        "filter_stocks_by_price",
        "add_to_watchlist",
        "notify_price_change",
    )
    STATE_ATTRIBUTES = (*DEFAULT_STATE, "long_context")

    def __init__(self, scenario: dict | None = None, long_context: bool = False) -> None:
        """Create a backend in the official default state, or loaded from ``scenario`` (the same as
        ``_load_scenario(scenario, long_context)`` after construction)."""
        self._load_scenario(scenario or {}, long_context=long_context)
        self._api_description = (
            "This tool belongs to the trading system, which allows users to trade stocks, manage "
            "their account, and view stock information."
        )

    def _load_scenario(self, scenario: dict, long_context: bool = False) -> None:
        """Load state from an ``initial_config`` entry, defaulting missing keys."""
        state = copy_state({**DEFAULT_STATE, **{k: v for k, v in scenario.items() if k in DEFAULT_STATE}})
        self.orders: dict[Any, dict[str, Any]] = {
            int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in state["orders"].items()
        }
        self.account_info: dict[str, Any] = state["account_info"]
        self.authenticated: bool = state["authenticated"]
        self.market_status: str = state["market_status"]
        self.order_counter: int = state["order_counter"]
        self.stocks: dict[str, dict[str, Any]] = state["stocks"]
        self.watch_list: list[str] = state["watch_list"]
        self.transaction_history: list[dict[str, Any]] = state["transaction_history"]
        self.long_context = long_context
        self._random = random.Random(scenario.get("random_seed", DEFAULT_SEED))

    def _generate_transaction_timestamp(self) -> str:
        """A seeded random moment within the day after the fixed clock.

        The official code draws ``randint(t0, t0 + 86400)`` on local-time POSIX stamps; a
        draw depends only on the width of the range, so the offset is the same here, and
        the result does not depend on the machine's time zone.
        """
        offset = self._random.randint(0, 86400)
        return (CURRENT_TIME + timedelta(seconds=offset)).strftime("%Y-%m-%d %H:%M:%S")

    def get_current_time(self) -> dict:
        """The fixed current time, ``10:30 AM``."""
        return {"current_time": CURRENT_TIME.strftime("%I:%M %p")}

    def get_symbol_by_name(self, name: str) -> dict:
        """The ticker of a known company name, else ``"Stock not found"``."""
        return {"symbol": _SYMBOLS.get(name, "Stock not found")}

    def get_stock_info(self, symbol: str) -> dict:
        """Price, change, volume and moving averages of a stock."""
        if symbol not in self.stocks:
            return {"error": f"Stock with symbol '{symbol}' not found."}
        if self.long_context:
            stock = self.stocks[symbol].copy()
            stock["MA(5)"] = filler("MA_5_EXTENSION")
            stock["MA(20)"] = filler("MA_20_EXTENSION")
            return stock
        return self.stocks[symbol]

    def get_order_details(self, order_id: int) -> dict:
        """An order by id (with a report in long-context mode)."""
        if order_id not in self.orders:
            return {
                "error": f"Order with ID {order_id} not found."
                + "Here is the list of orders_id: "
                + str(list(self.orders.keys()))
            }
        if not self.long_context:
            return self.orders[order_id]
        order = self.orders[order_id].copy()
        symbol = order["symbol"]
        report = {}
        for key, template in filler("ORDER_DETAIL_EXTENSION").items():
            try:
                report[key] = template.format(symbol=symbol)
            except KeyError as e:
                return {"error": f"KeyError during formatting: {e!s}"}
        order["metadata"] = report
        return order

    def cancel_order(self, order_id: int) -> dict:
        """Cancel an order that is not completed."""
        if order_id not in self.orders:
            return {"error": f"Order with ID {order_id} not found."}
        if self.orders[order_id]["status"] == "Completed":
            return {"error": f"Can't cancel order {order_id}. Order is already completed."}
        self.orders[order_id]["status"] = "Cancelled"
        return {"order_id": order_id, "status": "Cancelled"}

    def place_order(self, order_type: str, symbol: str, price: float, amount: int) -> dict:
        """Place a Buy/Sell order (stored as Open, answered as Pending, as officially)."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to place an order."}
        if symbol not in self.stocks:
            return {"error": f"Invalid stock symbol: {symbol}"}
        if price <= 0 or amount <= 0:
            return {"error": "Price and amount must be positive values."}
        if order_type.lower() == "buy":
            total_cost = float(price) * int(amount)
            balance = self.account_info.get("balance", 0)
            if total_cost > balance:
                required = f"${total_cost:.2f}"
                return {
                    "error": f"Insufficient funds: required {required} but only ${balance:.2f} available."
                }
        price = float(price)
        order_id = self.order_counter
        self.orders[order_id] = {
            "id": order_id,
            "order_type": order_type,
            "symbol": symbol,
            "price": price,
            "amount": amount,
            "status": "Open",
        }
        self.order_counter += 1
        return {
            "order_id": order_id,
            "order_type": order_type,
            "status": "Pending",
            "price": price,
            "amount": amount,
        }

    def _transaction(self, kind: str, amount: float) -> None:
        self.transaction_history.append(
            {"type": kind, "amount": amount, "timestamp": self._generate_transaction_timestamp()}
        )

    def withdraw_funds(self, amount: float) -> dict:
        """Withdraw from the balance (logged in, market open)."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to make a transaction."}
        if self.market_status != "Open":
            return {"error": "Market is closed. Transactions are not allowed."}
        if amount <= 0:
            return {"error": "Transaction amount must be positive."}
        if amount > self.account_info["balance"]:
            return {"error": "Insufficient funds for withdrawal."}
        self.account_info["balance"] -= amount
        self._transaction("withdrawal", amount)
        return {"status": "Withdrawal successful", "new_balance": self.account_info["balance"]}

    def get_account_info(self) -> dict:
        """Account id, balance and binding card."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to view account information."}
        return self.account_info

    def trading_login(self, username: str, password: str) -> dict:
        """Log in (any credentials)."""
        if self.authenticated:
            return {"status": "Already logged in"}
        self.authenticated = True
        return {"status": "Logged in successfully"}

    def trading_get_login_status(self) -> dict:
        """Whether someone is logged in."""
        return {"status": bool(self.authenticated)}

    def trading_logout(self) -> dict:
        """Log out."""
        if not self.authenticated:
            return {"status": "No user is currently logged in"}
        self.authenticated = False
        return {"status": "Logged out successfully"}

    def fund_account(self, amount: float) -> dict:
        """Add to the balance (logged in; the market may be closed)."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to fund the account."}
        if amount <= 0:
            return {"error": "Funding amount must be positive."}
        self.account_info["balance"] += amount
        self._transaction("deposit", amount)
        return {"status": "Account funded successfully", "new_balance": self.account_info["balance"]}

    def remove_stock_from_watchlist(self, symbol: str) -> dict:
        """Remove a symbol from the watch list."""
        if not self.authenticated:
            return {"error": "User not authenticated. Please log in to modify the watchlist."}
        if symbol not in self.watch_list:
            return {"error": f"Stock {symbol} not found in watchlist."}
        self.watch_list.remove(symbol)
        return {"status": f"Stock {symbol} removed from watchlist successfully."}

    def get_watchlist(self) -> dict | list:
        """The watch list (long-context mode answers with a bare list, as officially)."""
        if not self.authenticated:
            return ["Error: User not authenticated. Please log in to view the watchlist."]
        if self.long_context:
            return [*self.watch_list, *filler("WATCH_LIST_EXTENSION")]
        return {"watchlist": self.watch_list}

    def get_order_history(self) -> dict | list:
        """All order ids."""
        if not self.authenticated:
            return [{"error": "User not authenticated. Please log in to view order history."}]
        return {"history": list(self.orders.keys())}

    def get_transaction_history(
        self, start_date: str | None = None, end_date: str | None = None
    ) -> dict | list:
        """Transactions between two ``YYYY-MM-DD`` dates (midnight bounds, inclusive)."""
        if not self.authenticated:
            return [{"error": "User not authenticated. Please log in to view transaction history."}]
        start = datetime.strptime(start_date, "%Y-%m-%d") if start_date else datetime.min
        end = datetime.strptime(end_date, "%Y-%m-%d") if end_date else datetime.max
        history = [
            t
            for t in self.transaction_history
            if start <= datetime.strptime(t["timestamp"], "%Y-%m-%d %H:%M:%S") <= end
        ]
        if self.long_context:
            history.extend(filler("TRANSACTION_HISTORY_EXTENSION"))
        return {"transaction_history": history}

    def get_available_stocks(self, sector: str) -> dict:
        """The symbols of a sector (Technology, Automobile)."""
        if sector not in _SECTORS:  # an unhashable sector raises TypeError, as officially
            return {"stock_list": []}
        symbols = list(_SECTORS[sector])
        if self.long_context:
            symbols.extend(filler(_SECTOR_FILLER[sector]))
        return {"stock_list": symbols}

    def filter_stocks_by_price(self, stocks: list[str], min_price: float, max_price: float) -> dict:
        """The symbols whose price is within [min_price, max_price] (unknown ones count as 0)."""
        return {
            "filtered_stocks": [
                symbol
                for symbol in stocks
                if self.stocks.get(symbol, {}).get("price", 0) >= min_price
                and self.stocks.get(symbol, {}).get("price", 0) <= max_price
            ]
        }

    def add_to_watchlist(self, stock: str) -> dict:
        """Add a known symbol to the watch list; answers with the watch list."""
        if stock not in self.watch_list and stock in self.stocks:
            self.watch_list.append(stock)
        return {"watchlist": self.watch_list}

    def notify_price_change(self, stocks: list[str], threshold: float) -> dict:
        """Which of the symbols moved by at least ``threshold`` percent."""
        changed = [
            s for s in stocks if s in self.stocks and abs(self.stocks[s]["percent_change"]) >= threshold
        ]
        if changed:
            return {"notification": f"Stocks {', '.join(changed)} have significant price changes."}
        return {"notification": "No significant price changes in the selected stocks."}
