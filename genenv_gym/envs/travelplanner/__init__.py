"""TravelPlanner: the sandbox database, the official evaluator, sole planning, tool use, generated queries."""
