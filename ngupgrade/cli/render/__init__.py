"""Pure renderers: text tables and the JSON shapes (stable keys) of each report."""
