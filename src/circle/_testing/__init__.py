"""Fakes of the ports and a scripted gateway, re-exported by circle.testing."""
