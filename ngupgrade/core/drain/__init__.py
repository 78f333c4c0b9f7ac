"""What an upgrade does to the pods on the nodes it drains (seeds 001, 002, 004). Pure."""
