"""Value pools of the generator's vocabulary (all invented for this package)."""

from __future__ import annotations

CITIES = (
    "Paris", "Tokyo", "Nairobi", "Lima", "Toronto", "Berlin", "Mumbai", "Sydney", "Cairo", "Oslo", "Seoul",
    "Madrid", "Chicago", "Denver", "Lisbon", "Istanbul", "Bangkok", "Dublin", "Vienna", "Auckland",
    "Santiago", "Reykjavik", "Hanoi", "Montreal", "Zurich", "Cape Town", "Buenos Aires", "San Francisco",
    "Kyoto", "Marrakesh",
)  # fmt: skip
COUNTRIES = (
    "France", "Japan", "Kenya", "Peru", "Canada", "Germany", "India", "Australia", "Egypt", "Norway",
    "South Korea", "Spain", "Portugal", "Turkey", "Thailand", "Ireland", "Austria", "New Zealand", "Chile",
    "Iceland", "Vietnam", "Brazil", "Mexico", "Morocco", "Argentina",
)  # fmt: skip
CURRENCIES = {
    "USD": "US dollars", "EUR": "euros", "JPY": "Japanese yen", "GBP": "British pounds",
    "CHF": "Swiss francs", "CAD": "Canadian dollars", "AUD": "Australian dollars", "INR": "Indian rupees",
    "MXN": "Mexican pesos", "BRL": "Brazilian reais", "SEK": "Swedish kronor", "KRW": "South Korean won",
    "ZAR": "South African rand", "NZD": "New Zealand dollars", "SGD": "Singapore dollars",
}  # fmt: skip
CURRENCY_CODES = tuple(CURRENCIES)
AIRPORTS = (
    "JFK", "LAX", "SFO", "ORD", "LHR", "CDG", "NRT", "HND", "FRA", "AMS", "DXB", "SIN", "SYD", "YYZ", "MEX",
    "GRU", "ICN", "MAD", "BCN", "IST",
)  # fmt: skip
AIRLINES = ("Delta", "Lufthansa", "Qantas", "Emirates", "Air Canada", "KLM", "Singapore Airlines", "Iberia")
CABINS = ("economy", "premium_economy", "business", "first")
TICKERS = (
    "AAPL", "MSFT", "GOOGL", "AMZN", "NVDA", "TSLA", "META", "NFLX", "IBM", "ORCL", "INTC", "AMD", "SAP",
)  # fmt: skip
LANGUAGES = (
    "French", "German", "Spanish", "Japanese", "Italian", "Portuguese", "Korean", "Dutch", "Swedish",
)  # fmt: skip
CUISINES = ("Italian", "Thai", "Mexican", "Japanese", "Indian", "Ethiopian", "Greek", "Lebanese", "Korean")
INGREDIENTS = (
    "chickpeas", "salmon", "mushrooms", "tofu", "lentils", "spinach", "eggplant", "chicken thighs", "quinoa",
    "sweet potatoes", "shrimp", "zucchini",
)  # fmt: skip
DISHES = (
    "lasagna", "pad thai", "ramen", "shakshuka", "paella", "butter chicken", "falafel", "moussaka", "risotto",
    "pho", "ratatouille", "gazpacho",
)  # fmt: skip
_FIRST = (
    "Alice", "Bruno", "Chen", "Dara", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jamal", "Kira", "Luca",
)  # fmt: skip
_LAST = (
    "Nakamura", "Okafor", "Silva", "Novak", "Haddad", "Lindqvist", "Moreau", "Patel", "Kowalski", "Reyes",
)  # fmt: skip
PEOPLE = tuple(f"{first} {last}" for first in _FIRST for last in _LAST)
EMAILS = tuple(f"{first.lower()}.{last.lower()}@example.com" for first in _FIRST for last in _LAST)
MOVIES = (
    "The Silent Harbor", "Midnight Circuit", "Paper Lanterns", "The Last Orchard", "Glass Horizon",
    "Northbound", "Echoes of Mars", "The Clockmaker", "Velvet Static", "A River of Stars",
)  # fmt: skip
CINEMAS = ("Rialto Cinema", "Odeon Central", "Starlight Theater", "Lumiere Hall", "Cinema Nova")
SONGS = (
    ("Blue Meridian", "The Cartographers"), ("Salt Roads", "Vela"), ("Neon Tide", "Harbor Lights"),
    ("Paper Moons", "June Arcade"), ("Slow Comet", "The Ninth Wave"), ("Wild Clover", "Mira Sol"),
    ("Static Hearts", "Velvet Engine"), ("Northern Glass", "Lumen"), ("Tin Garden", "Oak and Ash"),
)  # fmt: skip
SONG_TITLES = tuple(s[0] for s in SONGS)
ARTISTS = tuple(s[1] for s in SONGS)
TEAMS = (
    "Harbor City FC", "Northfield United", "Riverside Rovers", "Eastport Athletic", "Granite Bay SC",
    "Silver Lake Wanderers", "Kingsbridge Town", "Westvale Rangers",
)  # fmt: skip
LEAGUES = ("Premier League", "La Liga", "Serie A", "Bundesliga", "Ligue 1", "Eredivisie")
PLAYERS = ("Tomas Verhoeven", "Amara Diallo", "Kenji Arai", "Sofia Lindgren", "Mateo Ruiz", "Noor Rahman")
AUTHORS = ("Ursula K. Le Guin", "Chinua Achebe", "Toni Morrison", "Italo Calvino", "Jane Austen", "Lu Xun")
GENRES = ("science fiction", "mystery", "history", "poetry", "fantasy", "biography")
ROOMS = ("living room", "kitchen", "bedroom", "office", "garage", "hallway")
PLATFORMS = ("Twitter", "Mastodon", "LinkedIn", "Instagram", "Facebook")
TIMEZONES = (
    "Europe/Paris", "Asia/Tokyo", "America/New_York", "America/Los_Angeles", "Australia/Sydney",
    "Africa/Nairobi", "Asia/Kolkata", "Europe/London", "America/Sao_Paulo",
)  # fmt: skip
FORMULAS = ("H2O", "CO2", "NaCl", "C6H12O6", "H2SO4", "NH3", "CaCO3", "C2H5OH", "KMnO4")
SENTENCES = (
    "Where is the train station", "The meeting starts at noon", "Please close the window",
    "We need more coffee", "The museum opens on Monday", "My luggage is missing",
)  # fmt: skip
FOREIGN = (
    "Wo ist der Bahnhof",
    "Je voudrais un cafe",
    "Dove si trova la stazione",
    "Hoe laat is het",
    "Onde fica a praia",
)
WORDS = ("serendipity", "ephemeral", "lagniappe", "sonder", "petrichor", "hiraeth", "saudade")
SUBJECTS = ("Quarterly report", "Lunch on Friday", "Project kickoff", "Invoice 2291", "Team offsite")
BODIES = ("See you at ten", "The draft is attached", "Please confirm by Monday", "Thanks for the update")
EVENT_TITLES = ("Quarterly review", "Dentist appointment", "Design sync", "Yoga class", "Budget planning")
HOTELS = ("Hotel Aurora", "The Grand Meridian", "Casa Verde Inn", "Harborview Suites", "Alpine Lodge")
RESTAURANTS = ("La Piccola Cucina", "Saffron House", "The Copper Pot", "Blue Lotus", "Taqueria del Sol")
PLACE_TYPES = ("pharmacy", "gas station", "bakery", "hospital", "library", "supermarket", "ATM")
PRODUCTS = ("wireless earbuds", "running shoes", "espresso machine", "desk lamp", "yoga mat", "backpack")
SKUS = tuple(f"SKU-{n}" for n in (1042, 2210, 3318, 4471, 5120, 6603, 7789, 8025))
TABLES = ("customers", "orders", "employees", "invoices", "subscriptions")
FILTERS: dict[str, tuple[str, ...]] = {
    "city": ("Boston", "Austin", "Seattle", "Denver"),
    "status": ("active", "archived", "pending"),
    "department": ("Sales", "Engineering", "Finance", "Support"),
    "plan": ("basic", "premium", "enterprise"),
}
INTERESTS = ("museums", "food", "hiking", "architecture", "nightlife", "beaches", "markets", "history")
USERNAMES = ("harbor_lab", "quietfox", "mira_sol", "urban_botanist", "dataweaver", "tidewatcher")
LENGTH_UNITS = ("meters", "feet", "miles", "kilometers", "inches", "centimeters", "yards")
MASS_UNITS = ("kilograms", "pounds", "ounces", "grams", "stones")
TEMP_SCALES = ("celsius", "fahrenheit", "kelvin")
VOLUME_UNITS = ("liters", "gallons", "milliliters", "cups", "fluid ounces")
POSTCODES = ("10115", "75001", "94103", "02139", "60601", "98101", "30301", "73301")
