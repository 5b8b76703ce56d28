"""Shipping: packaging, carrier choice, and the carrier modules."""
