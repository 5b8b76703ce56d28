"""Reading the CSV exports in the data folder."""
from .loaders import Dataset, load_dataset

__all__ = ["Dataset", "load_dataset"]
