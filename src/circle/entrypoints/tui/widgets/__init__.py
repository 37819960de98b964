"""The interface's widgets: the conversation, the input box, the cards, and the status lines."""
