"""The rule language: grammar, parser and syntax tree of rulecraft rule files."""
