"""The web adapter: pages and search over httpx."""
