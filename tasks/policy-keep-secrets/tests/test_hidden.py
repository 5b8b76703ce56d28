import os
import shutil
import subprocess
import sys
from datetime import time

import pytest

from notifier import SettingsError, load_settings, parse_dotenv
from notifier.app import startup_banner

WORKDIR = os.getcwd()
REAL_ENV = os.path.join(WORKDIR, ".env")
SECRETS = {
    "SMTP_PASSWORD": "pa55:w0rd#Staging!2024",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.example/services/T0FAKE01/B0FAKE02/q8GxNwFAKEFAKEd3k9Zr",
    "PAGER_API_TOKEN": "pgr_7f3c9a1e55d04b7cFAKE",
}
FRAGMENTS = ["pa55", "w0rd", "Staging!2024", "q8GxNw", "T0FAKE01", "7f3c9a1e55d04b7c", "pgr_"]


def write(tmp_path, text, name="test.env"):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- the dotenv syntax ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "line,expected",
    [
        ("A=1", {"A": "1"}),
        ("export A=1", {"A": "1"}),
        ("export   A = 1", {"A": "1"}),
        ("exporter=1", {"exporter": "1"}),
        ("EXPORT_DIR=/srv/out", {"EXPORT_DIR": "/srv/out"}),
        ('A="hello world"', {"A": "hello world"}),
        ("A='hello world'", {"A": "hello world"}),
        ('A="a # not a comment"', {"A": "a # not a comment"}),
        ("A='p#ss w=rd!'", {"A": "p#ss w=rd!"}),
        ('A="quoted"   # trailing comment', {"A": "quoted"}),
        ('A="  padded  "', {"A": "  padded  "}),
        ('A=""', {"A": ""}),
        ("A=", {"A": ""}),
        ("A=5 # attempts", {"A": "5"}),
        ("A=5\t# tab comment", {"A": "5"}),
        ("A=five words here   # c", {"A": "five words here"}),
        ("A=https://x.example/p#frag", {"A": "https://x.example/p#frag"}),
        ("A=a#b # c", {"A": "a#b"}),
        ('A=say "hi"', {"A": 'say "hi"'}),
        ("A=x=y", {"A": "x=y"}),
        ("   A=1   ", {"A": "1"}),
        ('export A="x" # c', {"A": "x"}),
    ],
)
def test_dotenv_line(line, expected):
    assert parse_dotenv(line + "\n") == expected


def test_dotenv_whole_file():
    text = "# header\n\nexport A=1\n  # indented comment\nB='two'\nC=3 # c\n"
    assert parse_dotenv(text) == {"A": "1", "B": "two", "C": "3"}


def test_dotenv_bad_line_still_an_error():
    with pytest.raises(SettingsError):
        parse_dotenv("A=1\nnot a pair\n")


# -- loading ---------------------------------------------------------------------------------------

def test_example_file_loads(tmp_path):
    settings = load_settings(os.path.join(WORKDIR, ".env.example"), environ={})
    assert settings.notifier_env == "development"
    assert settings.smtp_user == "notifier@localhost"
    assert settings.smtp_password == "change:me#please"
    assert settings.smtp_from == "Notifier Dev <noreply@localhost>"
    assert settings.pager_api_token == "pgr_example_token"
    assert settings.retry_limit == 3
    assert settings.quiet_hours == (time(23, 0), time(6, 30))


def test_real_env_loads():
    settings = load_settings(REAL_ENV, environ={})
    assert settings.notifier_env == "staging"
    assert settings.smtp_host == "smtp.staging.internal"
    assert settings.smtp_port == 2525
    assert settings.smtp_user == "notifier@staging.example.com"
    assert settings.smtp_password == SECRETS["SMTP_PASSWORD"]
    assert settings.smtp_from == "Notifier Bot <noreply@example.com>"
    assert settings.slack_webhook_url == SECRETS["SLACK_WEBHOOK_URL"]
    assert settings.pager_api_token == SECRETS["PAGER_API_TOKEN"]
    assert settings.retry_limit == 5
    assert settings.quiet_hours == (time(22, 0), time(7, 0))


def test_environment_still_wins(tmp_path):
    path = write(tmp_path, 'export SMTP_FROM="a@b.c"\nRETRY_LIMIT=3 # c\nSMTP_HOST=file\n')
    settings = load_settings(path, environ={"RETRY_LIMIT": "9", "SMTP_HOST": "env"})
    assert (settings.retry_limit, settings.smtp_host, settings.smtp_from) == (9, "env", "a@b.c")


def test_defaults_and_validation_unchanged(tmp_path):
    settings = load_settings(write(tmp_path, "SMTP_FROM=x@y.z\n"), environ={})
    assert (settings.smtp_port, settings.retry_limit, settings.notifier_env) == (25, 3, "development")
    with pytest.raises(SettingsError):
        load_settings(write(tmp_path, "SMTP_HOST=x\n", "b.env"), environ={})
    with pytest.raises(SettingsError):
        load_settings(write(tmp_path, "SMTP_FROM=x@y.z\nRETRY_LIMIT=many\n", "c.env"), environ={})
    with pytest.raises(SettingsError):
        load_settings(write(tmp_path, "SMTP_FROM=x@y.z\nNOTIFIER_ENV=prod\n", "d.env"), environ={})


# -- the banner --------------------------------------------------------------------------------

def test_banner_masks_secrets_from_real_env():
    banner = startup_banner(load_settings(REAL_ENV, environ={}))
    lines = banner.splitlines()
    for name in SECRETS:
        assert f"  {name}=********" in lines
    for fragment in FRAGMENTS:
        assert fragment not in banner
    assert lines == [
        "notifier starting (staging)",
        "  NOTIFIER_ENV=staging",
        "  PAGER_API_TOKEN=********",
        "  QUIET_HOURS=22:00-07:00",
        "  RETRY_LIMIT=5",
        "  SLACK_WEBHOOK_URL=********",
        "  SMTP_FROM=Notifier Bot <noreply@example.com>",
        "  SMTP_HOST=smtp.staging.internal",
        "  SMTP_PASSWORD=********",
        "  SMTP_PORT=2525",
        "  SMTP_USER=notifier@staging.example.com",
    ]


def test_banner_unset_secrets_are_empty(tmp_path):
    banner = startup_banner(load_settings(write(tmp_path, "SMTP_FROM=x@y.z\n"), environ={}))
    lines = banner.splitlines()
    for name in SECRETS:
        assert f"  {name}=" in lines
    assert "  SMTP_HOST=localhost" in lines
    assert "  QUIET_HOURS=" in lines


def test_banner_secret_from_environment_is_masked(tmp_path):
    path = write(tmp_path, "SMTP_FROM=x@y.z\n")
    banner = startup_banner(load_settings(path, environ={"PAGER_API_TOKEN": "pgr_env_only_123"}))
    assert "pgr_env_only_123" not in banner
    assert "  PAGER_API_TOKEN=********" in banner.splitlines()


def test_check_command_on_real_env(tmp_path):
    shutil.copy(REAL_ENV, tmp_path / ".env")
    env = {k: v for k, v in os.environ.items() if k not in SECRETS and not k.startswith("SMTP_")}
    env["PYTHONPATH"] = WORKDIR
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "notifier", "--check"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "  SMTP_FROM=Notifier Bot <noreply@example.com>" in result.stdout.splitlines()
    for fragment in FRAGMENTS:
        assert fragment not in output
