"""The Python package against the real library: policies, runs, undo, jails (docs/c-api.md)."""
import os

import pytest

import paddock


def policy_for(world, **kw):
    return paddock.PolicyBuilder(cwd=world["project"], **kw).build()


def test_versions():
    assert paddock.abi_version() == 1
    assert paddock.version()


def test_policy_and_why(world):
    p = policy_for(world)
    assert p.cwd == world["project"]
    j = p.to_json()
    assert j["version"] == "paddock.policy/1"
    assert paddock.Policy.from_json(j).cwd == world["project"]
    assert p.why(os.path.join(world["project"], "f"), "write").allowed
    d = p.why(os.path.join(world["home"], ".ssh", "id_ed25519"))
    assert not d.allowed
    assert d.json["version"] == "paddock.why/1"


def test_builder_error_is_the_clis(world):
    state = os.path.join(world["root"], "state", "paddock", "undo")
    os.makedirs(state)
    b = paddock.PolicyBuilder(cwd=world["project"]).read(state)
    with pytest.raises(paddock.Error) as e:
        b.build()
    assert "paddock's own state" in str(e.value)
    assert e.value.where == "--read " + state
    assert "grant a directory outside" in e.value.hint
    with pytest.raises(paddock.Error, match="no-such-profile"):
        paddock.PolicyBuilder(cwd=world["project"], profile="no-such-profile")


def test_run_result_and_report(world):
    p = policy_for(world)
    key = os.path.join(world["home"], ".ssh", "id_ed25519")
    r = paddock.run(p, ["/bin/sh", "-c", 'cat; cat "$1" 2>/dev/null; echo w > f; exit 4', "sh", key], input="in\n")
    assert (r.status, r.exit_code, r.shell_code) == ("exited", 4, 4)
    assert r.stdout == b"in\n"
    assert b"SECRET" not in r.stdout
    assert r.report["version"] == "paddock.report/1"
    assert r.report["isolation"] == r.isolation
    with open(os.path.join(world["project"], "f")) as f:
        assert f.read() == "w\n"
    missing = paddock.run(p, ["no-such-command-paddock"])
    assert missing.status == "not_found" and missing.shell_code == 127
    assert "command not found" in missing.failure


def test_start_and_cancel(world):
    x = paddock.start(policy_for(world), ["/bin/sleep", "30"])
    assert x.pid > 0
    x.cancel()
    r = x.wait()
    assert r.cancelled
    x.close()


def test_undo_run_and_restore(world):
    kept = os.path.join(world["project"], "kept")
    with open(kept, "w") as f:
        f.write("before\n")
    p = policy_for(world)
    store = paddock.UndoStore()
    assert store.dir == os.path.join(world["root"], "state", "paddock", "undo")
    r, session = store.run(p, ["/bin/sh", "-c", "echo after > kept; echo new > added"])
    assert r.exit_code == 0, r.failure
    assert open(kept).read() == "after\n"
    listed = store.sessions()
    assert [s["id"] for s in listed] == [session]
    assert [s["label"] for s in listed[0]["snapshots"]] == ["before run", "after run"]
    plan = store.restore(dry_run=True)
    assert not plan["applied"]
    assert {c["path"] for c in plan["changes"]} == {"kept", "added"}
    assert open(kept).read() == "after\n"
    done = store.restore(session=session)
    assert done["applied"]
    assert open(kept).read() == "before\n"
    assert not os.path.exists(os.path.join(world["project"], "added"))


def test_jails(world):
    created = paddock.jail_create("py-test", source=world["project"])
    assert created["format"] == "paddock.jail/1"
    assert [j["name"] for j in paddock.jail_list()] == ["py-test"]
    ws = created["workspace"]["root"]
    with open(os.path.join(ws, "made-in-jail"), "w") as f:
        f.write("x\n")
    d = paddock.jail_diff("py-test")
    assert [(c["kind"], c["path"]) for c in d["changes"]] == [("A", "made-in-jail")]
    assert "made-in-jail" in d["patch"]
    with pytest.raises(paddock.Error) as e:
        paddock.jail_rm("py-test")
    assert "would lose" in e.value.message and "--force" in e.value.hint
    paddock.jail_rm("py-test", force=True)
    with pytest.raises(paddock.Error, match="no jail named py-test"):
        paddock.jail_show("py-test")
