"""Helpers shared by the tests: tiny inline levels, connectivity, energy."""
