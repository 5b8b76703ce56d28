"""Start-up of the notifier service."""
import logging

from .settings import load_settings

log = logging.getLogger("notifier")


def _show(value):
    if isinstance(value, tuple):
        return "-".join(part.strftime("%H:%M") for part in value)
    return "" if value is None else str(value)


def startup_banner(settings):
    """The lines logged at start-up: one `NAME=value` line per setting, sorted by name."""
    lines = [f"notifier starting ({settings.notifier_env})"]
    for name, value in sorted(settings.as_dict().items()):
        lines.append(f"  {name}={_show(value)}")
    return "\n".join(lines)


def main(argv):
    settings = load_settings()
    banner = startup_banner(settings)
    if "--check" in argv:
        print(banner)
        return 0
    logging.basicConfig(level=logging.INFO)
    log.info("%s", banner)
    # the delivery loop lives in notifier.delivery (not part of this repository snapshot)
    return 0
