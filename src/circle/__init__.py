"""Circle: a coding agent for the terminal, and a library that gives other programs the same loop."""

__version__ = "0.1.0"
