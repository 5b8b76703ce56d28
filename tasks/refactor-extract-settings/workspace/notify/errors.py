class TransientError(Exception):
    """A failure worth retrying (timeout, 5xx, connection reset)."""


class DeliveryError(Exception):
    """Gave up after the last retry."""
