"""The agent loop, the runtime, the built-in tools and the ports adapters implement."""
