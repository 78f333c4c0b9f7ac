"""The pure core: domain values and the upgrade, quota and drain math. No I/O, no clock."""
