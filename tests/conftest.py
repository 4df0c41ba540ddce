"""Shared pytest configuration: the tests import the project from the repository root."""
