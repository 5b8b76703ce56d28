"""Loading the notifier's settings from a dotenv file and the environment."""
import os
from dataclasses import dataclass, fields
from datetime import time


class SettingsError(ValueError):
    """A setting is missing or malformed."""


def parse_dotenv(text):
    """Parses dotenv text into a dict of str to str.

    Blank lines and lines starting with '#' are skipped; every other line is KEY=VALUE.
    """
    values = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, separator, value = line.partition("=")
        if not separator:
            raise SettingsError(f"line {number}: expected KEY=VALUE")
        values[key.strip()] = value.strip()
    return values


def _int(name, raw):
    try:
        return int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be an integer, got {raw!r}") from None


def _quiet_hours(raw):
    try:
        start, end = raw.split("-")
        return time.fromisoformat(start), time.fromisoformat(end)
    except ValueError:
        raise SettingsError(f"QUIET_HOURS must look like 22:00-07:00, got {raw!r}") from None


@dataclass(frozen=True)
class Settings:
    notifier_env: str = "development"
    smtp_host: str = "localhost"
    smtp_port: int = 25
    smtp_user: str = None
    smtp_password: str = None
    smtp_from: str = None
    slack_webhook_url: str = None
    pager_api_token: str = None
    retry_limit: int = 3
    quiet_hours: tuple = None

    def as_dict(self):
        """Every setting by its variable name, e.g. {"SMTP_PORT": 2525, ...}."""
        return {field.name.upper(): getattr(self, field.name) for field in fields(self)}


def load_settings(path=".env", environ=None):
    """Settings from the dotenv file at `path` (optional) overlaid with `environ`.

    `environ` defaults to os.environ; only the variables Settings knows are taken from it.
    """
    environ = os.environ if environ is None else environ
    values = {}
    try:
        with open(path, encoding="utf-8") as handle:
            values.update(parse_dotenv(handle.read()))
    except FileNotFoundError:
        pass
    known = {field.name.upper() for field in fields(Settings)}
    values.update({key: value for key, value in environ.items() if key in known})

    kwargs = {}
    for field in fields(Settings):
        raw = values.get(field.name.upper())
        if raw is None:
            continue
        if field.name in ("smtp_port", "retry_limit"):
            kwargs[field.name] = _int(field.name.upper(), raw)
        elif field.name == "quiet_hours":
            kwargs[field.name] = _quiet_hours(raw)
        else:
            kwargs[field.name] = raw
    settings = Settings(**kwargs)
    if not settings.smtp_from:
        raise SettingsError("SMTP_FROM is required")
    if settings.notifier_env not in ("development", "staging", "production"):
        raise SettingsError(f"NOTIFIER_ENV must be development, staging or production")
    return settings
