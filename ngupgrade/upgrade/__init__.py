"""Orchestration: the upgrade runbook over Protocols (cloud API, journal, clock)."""
