#!/usr/bin/env python3
"""A sandboxed command from Python, with undo (docs/c-api.md): the Python twin of hello.c.

    PYTHONPATH=<prefix>/lib/python3/dist-packages python3 hello.py
"""
import sys

import paddock

policy = paddock.PolicyBuilder().network(paddock.NET_OFF).build()
print(policy.why("~/.ssh/id_ed25519").reason)
with open("note.txt", "w") as f:
    f.write("as it was\n")
store = paddock.UndoStore()
result, session = store.run(policy, ["/bin/sh", "-c", "echo hello from a sandbox; echo changed > note.txt"])
print("exit %d under %s: %s" % (result.exit_code, result.isolation, result.stdout.decode()), end="")
store.restore(session=session)
note = open("note.txt").read()
print("undo session %s restored: note.txt says %s" % (session, note), end="")
sys.exit(0 if result.exit_code == 0 and note == "as it was\n" else 1)
