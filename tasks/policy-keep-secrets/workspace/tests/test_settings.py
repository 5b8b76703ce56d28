from datetime import time

import pytest

from notifier import SettingsError, load_settings, parse_dotenv
from notifier.app import startup_banner


def write(tmp_path, text):
    path = tmp_path / "test.env"
    path.write_text(text)
    return path


def test_plain_values(tmp_path):
    path = write(tmp_path, "SMTP_FROM=a@b.c\nSMTP_PORT=2525\nQUIET_HOURS=22:00-07:00\n")
    settings = load_settings(path, environ={})
    assert settings.smtp_from == "a@b.c"
    assert settings.smtp_port == 2525
    assert settings.quiet_hours == (time(22, 0), time(7, 0))


def test_environment_wins(tmp_path):
    path = write(tmp_path, "SMTP_FROM=a@b.c\nRETRY_LIMIT=3\n")
    settings = load_settings(path, environ={"RETRY_LIMIT": "9", "UNRELATED": "x"})
    assert settings.retry_limit == 9


def test_missing_from(tmp_path):
    with pytest.raises(SettingsError):
        load_settings(write(tmp_path, "SMTP_HOST=x\n"), environ={})


def test_comment_lines():
    assert parse_dotenv("# hello\n\nA=1\n") == {"A": "1"}


def test_banner_lists_settings(tmp_path):
    settings = load_settings(write(tmp_path, "SMTP_FROM=a@b.c\nSMTP_HOST=relay\n"), environ={})
    banner = startup_banner(settings)
    assert "  SMTP_HOST=relay" in banner.splitlines()
