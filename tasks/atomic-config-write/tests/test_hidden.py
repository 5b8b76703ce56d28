import os
import random
import signal
import stat
import subprocess
import sys
import textwrap
import time

import pytest

from kvconf import ConfigStore, dumps, loads

WORKDIR = os.getcwd()


def child_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = WORKDIR
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def listing(folder):
    return sorted(os.listdir(folder))


def make_store(tmp_path, data=None):
    path = tmp_path / "agent.conf"
    store = ConfigStore(path)
    store.update(data or {"region": "eu-west", "log.level": "info"})
    return path, store


# -- behaviour is unchanged --------------------------------------------------------------------


def test_roundtrip_and_exact_bytes(tmp_path):
    path, store = make_store(tmp_path)
    store.set("motd", "two\nlines ")
    expected = {"region": "eu-west", "log.level": "info", "motd": "two\nlines "}
    assert path.read_text(encoding="utf-8") == dumps(expected)
    assert ConfigStore(path).items() == sorted(expected.items())
    store.delete("motd")
    assert loads(path.read_text(encoding="utf-8")) == {"region": "eu-west", "log.level": "info"}
    assert listing(tmp_path) == ["agent.conf"]


def test_relative_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = ConfigStore("agent.conf")
    store.set("a", "1")
    store.set("b", "2")
    assert loads((tmp_path / "agent.conf").read_text()) == {"a": "1", "b": "2"}
    assert listing(tmp_path) == ["agent.conf"]


def test_cli_still_works(tmp_path):
    conf = str(tmp_path / "cli.conf")
    run = lambda *args: subprocess.run(
        [sys.executable, "-m", "kvconf", conf, *args],
        cwd=WORKDIR, env=child_env(), capture_output=True, text=True, timeout=30,
    )
    assert run("set", "region", "eu-west").returncode == 0
    got = run("get", "region")
    assert got.returncode == 0 and got.stdout == "eu-west\n"
    assert listing(tmp_path) == ["cli.conf"]


# -- permissions -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644, 0o664])
def test_existing_mode_is_kept(tmp_path, mode):
    path, store = make_store(tmp_path)
    os.chmod(path, mode)
    store.set("region", "us-east")
    assert stat.S_IMODE(os.stat(path).st_mode) == mode
    store.update({"x": "1"})
    assert stat.S_IMODE(os.stat(path).st_mode) == mode


@pytest.mark.parametrize("mask,expected", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_new_file_mode_follows_umask(tmp_path, mask, expected):
    old = os.umask(mask)
    try:
        ConfigStore(tmp_path / "new.conf").set("a", "1")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.conf").st_mode) == expected


# -- the recipe: temp file in the same folder, fsync, then an atomic replace --------------------


class Recorder:
    def __init__(self, monkeypatch):
        self.synced = []
        self.moves = []
        real_fsync, real_fdatasync = os.fsync, os.fdatasync
        real_replace, real_rename = os.replace, os.rename

        def target(fd):
            if not isinstance(fd, int):
                fd = fd.fileno()
            try:
                return os.path.realpath(os.readlink(f"/proc/self/fd/{fd}"))
            except OSError:
                return None

        def fsync(fd):
            self.synced.append(target(fd))
            return real_fsync(fd)

        def fdatasync(fd):
            self.synced.append(target(fd))
            return real_fdatasync(fd)

        def move(real):
            def wrapper(src, dst, *args, **kwargs):
                src_real = os.path.realpath(os.fspath(src))
                self.moves.append((src_real, os.path.realpath(os.fspath(dst)), list(self.synced)))
                return real(src, dst, *args, **kwargs)
            return wrapper

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "fdatasync", fdatasync)
        monkeypatch.setattr(os, "replace", move(real_replace))
        monkeypatch.setattr(os, "rename", move(real_rename))


def test_temp_file_in_same_folder_fsynced_then_replaced(tmp_path, monkeypatch):
    path, store = make_store(tmp_path)
    recorder = Recorder(monkeypatch)
    store.set("region", "ap-south")
    final = os.path.realpath(path)
    moves = [move for move in recorder.moves if move[1] == final]
    assert len(moves) == 1, f"expected one atomic move onto {final}, saw {recorder.moves}"
    src, _, synced_before = moves[0]
    assert src != final
    assert os.path.dirname(src) == os.path.dirname(final), "temporary file must be in the same folder"
    assert src in synced_before, "the temporary file must be fsynced before it replaces the config"
    assert loads(path.read_text()) == {"region": "ap-south", "log.level": "info"}
    assert listing(tmp_path) == ["agent.conf"]


@pytest.mark.parametrize("broken", ["replace", "fsync"])
def test_failure_keeps_old_file_and_cleans_up(tmp_path, monkeypatch, broken):
    path, store = make_store(tmp_path)
    os.chmod(path, 0o640)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(5, "simulated I/O error")

    if broken == "replace":
        monkeypatch.setattr(os, "replace", boom)
        monkeypatch.setattr(os, "rename", boom)
    else:
        monkeypatch.setattr(os, "fsync", boom)
        monkeypatch.setattr(os, "fdatasync", boom)
    with pytest.raises(OSError):
        store.update({"region": "us-west", "upstream.primary": "10.1.1.1:9000"})
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert listing(tmp_path) == ["agent.conf"], "a failed save left files behind"


# -- real failures in a child process ----------------------------------------------------------

DISK_FULL_CHILD = textwrap.dedent(
    """
    import resource, signal, sys
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    from kvconf import ConfigStore
    store = ConfigStore(sys.argv[1])
    big = {f"peer.{i:05d}": "x" * 60 for i in range(4000)}
    resource.setrlimit(resource.RLIMIT_FSIZE, (32768, 32768))
    try:
        store.update(big)
    except OSError as error:
        print("save failed:", error)
        sys.exit(3)
    sys.exit(0)
    """
)


def test_disk_full_keeps_old_file(tmp_path):
    path, _ = make_store(tmp_path, {f"k{i}": "v" * 20 for i in range(50)})
    before = path.read_bytes()
    result = subprocess.run(
        [sys.executable, "-c", DISK_FULL_CHILD, str(path)],
        cwd=WORKDIR, env=child_env(), capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 3, f"the error must reach the caller: {result.stdout}{result.stderr}"
    assert path.read_bytes() == before, "the config file was damaged by a failed save"
    assert listing(tmp_path) == ["agent.conf"], "a failed save left files behind"


KILL_CHILD = textwrap.dedent(
    """
    import itertools, sys
    from kvconf import ConfigStore
    store = ConfigStore(sys.argv[1])
    n = int(sys.argv[2])
    versions = [{f"node.{i:05d}": letter * 48 for i in range(n)} for letter in "AB"]
    print("ready", flush=True)
    for round_ in itertools.count():
        store.update(versions[round_ % 2])
    """
)


def test_killed_mid_save_leaves_old_or_new(tmp_path):
    n = 4000
    versions = [{f"node.{i:05d}": letter * 48 for i in range(n)} for letter in "AB"]
    rng = random.Random(20240601)
    bad = []
    for attempt in range(16):
        folder = tmp_path / f"round{attempt}"
        folder.mkdir()
        path = folder / "agent.conf"
        ConfigStore(path).update(versions[0])
        child = subprocess.Popen(
            [sys.executable, "-c", KILL_CHILD, str(path), str(n)],
            cwd=WORKDIR, env=child_env(), stdout=subprocess.PIPE, text=True,
        )
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.03 + rng.random() * 0.25)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
        text = path.read_text(encoding="utf-8")
        try:
            data = loads(text)
        except ValueError as error:
            bad.append(f"round {attempt}: unreadable file ({error}), {len(text)} chars")
            continue
        if data not in versions:
            bad.append(f"round {attempt}: partial content, {len(data)} of {n} keys")
    assert not bad, "config file damaged by a kill during save:\n" + "\n".join(bad)
