"""Placeholder: this command is registered here when implemented."""
