"""Testing helpers for chainlite and for users' own functions and links."""
