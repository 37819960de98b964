"""The interface's screens, each with its .tcss beside it."""
