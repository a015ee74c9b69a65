"""paddock from Python: policies, sandboxed runs, `why`, undo and jails.

ctypes over libpaddock's C API (include/paddock/paddock.h, docs/c-api.md); nothing else is
needed at run time. Errors raise paddock.Error, carrying what the command line prints for the
same failure (str(e); e.hint).

    import paddock
    policy = paddock.PolicyBuilder(cwd="/home/me/proj").read("~/docs").build()
    r = paddock.run(policy, ["make", "test"])
    print(r.exit_code, r.stdout, r.report["isolation"])
"""
import ctypes
import json
import os

from . import _lib
from ._lib import lib

__all__ = ["Error", "PolicyBuilder", "Policy", "Decision", "Result", "Execution", "run", "start", "UndoStore",
           "Recording", "jail_create", "jail_show", "jail_list", "jail_diff", "jail_rm", "abi_version", "version",
           "NONE", "READ", "WRITE", "READ_WRITE", "NET_OFF", "NET_HOST", "NET_FILTERED"]

NONE, READ, WRITE, READ_WRITE = 0, 1, 2, 3
NET_OFF, NET_HOST, NET_FILTERED = 0, 1, 2
_OPS = {"read": 0, "write": 1, "exec": 2}
_STATUS = ["exited", "signaled", "setup_failed", "not_found", "not_executable"]


def abi_version():
    return lib.paddock_abi_version()


def version():
    return lib.paddock_version().decode()


def _text(b):
    return b.decode("utf-8", "surrogateescape") if b is not None else ""


def _enc(s):
    return None if s is None else os.fsencode(s)


class Error(Exception):
    """A paddock error: str() is what the command line prints after "paddock: "."""

    def __init__(self, message, where="", hint="", errno=0, describe=None):
        self.message, self.where, self.hint, self.errno = message, where, hint, errno
        super().__init__(describe if describe is not None else message)


def _check(err):
    if not err:
        return
    try:
        raise Error(_text(lib.paddock_error_message(err)), _text(lib.paddock_error_where(err)),
                    _text(lib.paddock_error_hint(err)), lib.paddock_error_errno(err),
                    _text(lib.paddock_error_describe(err)))
    finally:
        lib.paddock_error_free(err)


def _take(ptr):
    """A char* the library gave us: its text, then freed."""
    try:
        return _text(ctypes.string_at(ptr.value))
    finally:
        lib.paddock_string_free(ptr)


def _call_json(fn, *args):
    out = ctypes.c_void_p()
    _check(fn(*args, ctypes.byref(out)))
    return json.loads(_take(out))


def _strings(items):
    """A NULL-terminated char* array (and the bytes it points into, kept alive by the caller)."""
    if items is None:
        return None
    arr = (ctypes.c_char_p * (len(items) + 1))(*[os.fsencode(x) for x in items], None)
    return arr


class _Handle:
    _free = None
    _h = None  # set once the library made the handle

    def __init__(self, handle):
        self._h = handle

    def close(self):
        if self._h:
            type(self)._free(self._h)
            self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Policy(_Handle):
    """A built policy: what a sandbox may touch."""
    _free = lib.paddock_policy_free

    @classmethod
    def from_json(cls, data):
        h = ctypes.c_void_p()
        text = data if isinstance(data, str) else json.dumps(data)
        _check(lib.paddock_policy_from_json(text.encode(), ctypes.byref(h)))
        return cls(h)

    def to_json(self):
        return _call_json(lib.paddock_policy_to_json, self._h)

    @property
    def cwd(self):
        return _text(lib.paddock_policy_cwd(self._h))

    def why(self, path, op="read"):
        h = ctypes.c_void_p()
        _check(lib.paddock_why(self._h, _enc(path), _OPS[op], ctypes.byref(h)))
        try:
            return Decision(bool(lib.paddock_decision_allowed(h)), _text(lib.paddock_decision_reason(h)),
                            _text(lib.paddock_decision_suggestion(h)), _text(lib.paddock_decision_text(h)),
                            json.loads(_text(lib.paddock_decision_json(h))))
        finally:
            lib.paddock_decision_free(h)


class Decision:
    """`paddock why`'s answer for one path and operation."""

    def __init__(self, allowed, reason, suggestion, text, json_):
        self.allowed, self.reason, self.suggestion, self.text, self.json = allowed, reason, suggestion, text, json_

    def __repr__(self):
        return "Decision(allowed=%r, reason=%r)" % (self.allowed, self.reason)


class PolicyBuilder(_Handle):
    """One builder, one error: the first mistake is raised by build()."""
    _free = lib.paddock_builder_free

    def __init__(self, cwd=None, profile=None):
        o = _lib.BuilderOptions(ctypes.sizeof(_lib.BuilderOptions), _enc(cwd), _enc(profile))
        h = ctypes.c_void_p()
        _check(lib.paddock_builder_new(ctypes.byref(o), ctypes.byref(h)))
        super().__init__(h)

    def allow(self, path, access=READ_WRITE):
        lib.paddock_builder_allow(self._h, _enc(path), access)
        return self

    def read(self, path):
        return self.allow(path, READ)

    def write(self, path):
        return self.allow(path, WRITE)

    def cwd_access(self, access):
        lib.paddock_builder_cwd_access(self._h, access)
        return self

    def network(self, mode):
        lib.paddock_builder_network(self._h, mode)
        return self

    def allow_domain(self, pattern):
        lib.paddock_builder_allow_domain(self._h, pattern.encode())
        return self

    def pass_env(self, name):
        lib.paddock_builder_pass_env(self._h, name.encode())
        return self

    def set_env(self, name, value):
        lib.paddock_builder_set_env(self._h, name.encode(), value.encode())
        return self

    def require_namespaces(self, on=True):
        lib.paddock_builder_require_namespaces(self._h, 1 if on else 0)
        return self

    def limits(self, memory_bytes=0, pids=0, cpu=0.0, timeout_ms=0):
        l = _lib.Limits(ctypes.sizeof(_lib.Limits), memory_bytes, pids, cpu, timeout_ms)
        lib.paddock_builder_limits(self._h, ctypes.byref(l))
        return self

    def build(self):
        h = ctypes.c_void_p()
        _check(lib.paddock_builder_build(self._h, ctypes.byref(h)))
        return Policy(h)


class Result:
    """How a run ended (a typed result), with its output and the run report."""

    def __init__(self, h):
        self.status = _STATUS[lib.paddock_result_status(h)]
        self.exit_code = lib.paddock_result_exit_code(h)
        self.signal = lib.paddock_result_signal(h)
        self.shell_code = lib.paddock_result_shell_code(h)
        self.timed_out = bool(lib.paddock_result_timed_out(h))
        self.oom = bool(lib.paddock_result_oom(h))
        self.cancelled = bool(lib.paddock_result_cancelled(h))
        self.failure = _text(lib.paddock_result_failure(h))
        self.isolation = _text(lib.paddock_result_isolation(h))
        n = ctypes.c_size_t()
        p = lib.paddock_result_stdout(h, ctypes.byref(n))
        self.stdout = ctypes.string_at(p, n.value)
        p = lib.paddock_result_stderr(h, ctypes.byref(n))
        self.stderr = ctypes.string_at(p, n.value)
        self.left_behind = [_text(lib.paddock_result_left_behind_path(h, i))
                            for i in range(lib.paddock_result_left_behind_count(h))]
        self.report = json.loads(_text(lib.paddock_result_report_json(h)))

    def __repr__(self):
        return "Result(status=%r, exit_code=%r, shell_code=%r)" % (self.status, self.exit_code, self.shell_code)


def _run_options(argv, capture, input, env, cwd, capture_limit):
    args = _strings(argv)
    envs = _strings(env)
    data = input.encode() if isinstance(input, str) else input
    o = _lib.RunOptions(ctypes.sizeof(_lib.RunOptions), ctypes.cast(args, ctypes.POINTER(ctypes.c_char_p)),
                        ctypes.cast(envs, ctypes.POINTER(ctypes.c_char_p)) if envs is not None else None,
                        1 if capture else 0, data, len(data) if data else 0, capture_limit, _enc(cwd))
    return o, (args, envs, data)


class Execution(_Handle):
    """A sandboxed command started with start(): wait() for its Result, cancel() to end it."""
    _free = lib.paddock_execution_free

    @property
    def pid(self):
        return lib.paddock_execution_pid(self._h)

    def cancel(self):
        lib.paddock_execution_cancel(self._h)

    def wait(self):
        h = ctypes.c_void_p()
        _check(lib.paddock_wait(self._h, ctypes.byref(h)))
        try:
            return Result(h)
        finally:
            lib.paddock_result_free(h)


def start(policy, argv, capture=True, input=None, env=None, cwd=None, capture_limit=0):
    o, keep = _run_options(argv, capture, input, env, cwd, capture_limit)
    h = ctypes.c_void_p()
    _check(lib.paddock_start(policy._h, ctypes.byref(o), ctypes.byref(h)))
    del keep
    return Execution(h)


def run(policy, argv, capture=True, input=None, env=None, cwd=None, capture_limit=0):
    """Runs ARGV in a sandbox built from POLICY; output captured unless capture=False."""
    o, keep = _run_options(argv, capture, input, env, cwd, capture_limit)
    h = ctypes.c_void_p()
    _check(lib.paddock_run(policy._h, ctypes.byref(o), ctypes.byref(h)))
    del keep
    try:
        return Result(h)
    finally:
        lib.paddock_result_free(h)


class Recording(_Handle):
    """An undo session around a run: snapshot 0 ("before run") is taken when it starts."""
    _free = lib.paddock_undo_recording_free

    def __init__(self, h, store):
        super().__init__(h)
        self._store = store  # the store outlives the recording
        self.session = _text(lib.paddock_undo_recording_session(h))

    def snapshot(self, label):
        _check(lib.paddock_undo_snapshot(self._h, label.encode()))


class UndoStore(_Handle):
    """The undo store (docs/undo.md): this user's unless DIR is given."""
    _free = lib.paddock_undo_store_free

    def __init__(self, dir=None, create=True):
        h = ctypes.c_void_p()
        _check(lib.paddock_undo_store_open(_enc(dir), 1 if create else 0, ctypes.byref(h)))
        super().__init__(h)

    @property
    def dir(self):
        return _text(lib.paddock_undo_store_dir(self._h))

    def sessions(self):
        return _call_json(lib.paddock_undo_list, self._h)

    def record(self, policy, argv):
        h = ctypes.c_void_p()
        args = _strings(argv)
        _check(lib.paddock_undo_begin(self._h, policy._h, ctypes.cast(args, ctypes.POINTER(ctypes.c_char_p)),
                                      ctypes.byref(h)))
        return Recording(h, self)

    def run(self, policy, argv, **kw):
        """run() between a snapshot before and one after: returns (Result, session id)."""
        with self.record(policy, argv) as rec:
            result = run(policy, argv, **kw)
            rec.snapshot("after run")
            return result, rec.session

    def restore(self, session=None, target=0, force=False, dry_run=False):
        o = _lib.RestoreOptions(ctypes.sizeof(_lib.RestoreOptions), _enc(session), target, 1 if force else 0,
                                1 if dry_run else 0)
        return _call_json(lib.paddock_undo_restore, self._h, ctypes.byref(o))


def jail_create(name, workspace=None, home=None, source=None, profile=None, backend=None):
    o = _lib.JailCreateOptions(ctypes.sizeof(_lib.JailCreateOptions), _enc(name), _enc(workspace), _enc(home),
                               _enc(source), _enc(profile), _enc(backend))
    return _call_json(lib.paddock_jail_create, ctypes.byref(o))


def jail_show(name):
    return _call_json(lib.paddock_jail_show, _enc(name))


def jail_list():
    return _call_json(lib.paddock_jail_list)


def jail_diff(name, patch=True):
    return _call_json(lib.paddock_jail_diff, _enc(name), 1 if patch else 0)


def jail_rm(name, force=False):
    _check(lib.paddock_jail_rm(_enc(name), 1 if force else 0))
