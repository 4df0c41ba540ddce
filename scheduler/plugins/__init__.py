"""Scheduler plugins, one package per plugin."""
