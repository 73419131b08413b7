"""The terminal client: renders each update with rich and offers the legal actions as a numbered menu."""
