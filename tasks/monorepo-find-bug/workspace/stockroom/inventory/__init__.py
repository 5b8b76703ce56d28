"""Stock: levels from movements, reservations, reorder suggestions, valuation, cycle counts."""
