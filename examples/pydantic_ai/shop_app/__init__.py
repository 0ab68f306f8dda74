"""A shopping assistant built on Pydantic AI (the application under test)."""
