"""The English month names, lower case, January first."""

MONTHS: tuple[str, ...] = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)

#: Month name -> its number (1-12).
MONTH_NUMBERS: dict[str, int] = {name: number for number, name in enumerate(MONTHS, start=1)}
