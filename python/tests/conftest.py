import os
import shutil
import tempfile

import pytest


@pytest.fixture
def world(monkeypatch):
    """A HOME with a planted key, a project in it, and paddock's state and jails of its own."""
    root = tempfile.mkdtemp(prefix="paddock-py.")
    os.chmod(root, 0o755)
    home = os.path.join(root, "home")
    project = os.path.join(home, "proj")
    os.makedirs(project)
    os.makedirs(os.path.join(home, ".ssh"), mode=0o700)
    with open(os.path.join(home, ".ssh", "id_ed25519"), "w") as f:
        f.write("SECRET\n")
    monkeypatch.setenv("HOME", home)
    monkeypatch.setenv("XDG_STATE_HOME", os.path.join(root, "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", os.path.join(root, "config"))
    monkeypatch.setenv("PADDOCK_JAILS_DIR", os.path.join(root, "jails"))
    yield {"root": root, "home": home, "project": project}
    shutil.rmtree(root, ignore_errors=True)
