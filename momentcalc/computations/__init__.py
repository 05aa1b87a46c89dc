"""One module per command: each exposes a function that returns a plain result object."""
