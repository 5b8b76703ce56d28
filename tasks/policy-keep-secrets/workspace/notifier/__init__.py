"""notifier: alert notifications by e-mail, Slack and pager."""
from .settings import Settings, SettingsError, load_settings, parse_dotenv

__all__ = ["Settings", "SettingsError", "load_settings", "parse_dotenv"]
