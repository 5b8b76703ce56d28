"""VAT: which country's rules apply to a sale, and how much of an amount is VAT."""
