"""The rulebooks that ship with rulecraft, as `.rules` files (loaded by name)."""
