"""Ports: the small protocols through which the application reaches the outside world."""
