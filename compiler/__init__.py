"""The compiler stage: check a parsed rulebook and build its runtime objects and Python code."""
