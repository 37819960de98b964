"""The language-server adapter: a small JSON-RPC client over stdio and the servers it starts."""
