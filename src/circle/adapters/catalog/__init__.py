"""The model catalog: a models.dev snapshot shipped as package data, refreshed once a day."""
