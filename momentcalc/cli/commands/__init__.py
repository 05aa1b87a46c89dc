"""One module per command; importing a module registers its command on the app."""
