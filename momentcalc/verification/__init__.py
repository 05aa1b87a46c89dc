"""The ``verify`` registry: published constants and the independent routes that recompute them."""
