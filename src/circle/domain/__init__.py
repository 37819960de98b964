"""Pure values and rules: no I/O, no asyncio, no clock, no SDKs."""
