"""Loading libpaddock.so and declaring the C API's functions (include/paddock/paddock.h).

The library is found, in order: $PADDOCK_LIBRARY (a path); where `cmake --install` put it next to
this package (_installed.py); the dynamic loader's search path (libpaddock.so.1).
"""
import ctypes
import os

ABI_VERSION = 1


class _Error(ctypes.Structure):
    pass


class _Opaque(ctypes.Structure):
    pass


def _find():
    given = os.environ.get("PADDOCK_LIBRARY")
    if given:
        return given
    try:
        from . import _installed
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.normpath(os.path.join(here, _installed.LIBRARY))
        if os.path.exists(path):
            return path
    except ImportError:
        pass
    return "libpaddock.so.%d" % ABI_VERSION


lib = ctypes.CDLL(_find())
if lib.paddock_abi_version() != ABI_VERSION:
    raise ImportError("libpaddock ABI %d, this package needs %d" % (lib.paddock_abi_version(), ABI_VERSION))

E = ctypes.POINTER(_Error)
H = ctypes.c_void_p  # every other handle: opaque
P = ctypes.POINTER
c_str = ctypes.c_char_p
c_size = ctypes.c_size_t


class BuilderOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("cwd", c_str), ("profile", c_str)]


class Limits(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("memory_bytes", ctypes.c_uint64), ("pids", ctypes.c_uint64),
                ("cpu", ctypes.c_double), ("timeout_ms", ctypes.c_uint64)]


class RunOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("argv", P(c_str)), ("env", P(c_str)), ("capture", ctypes.c_int),
                ("stdin_data", c_str), ("stdin_len", c_size), ("capture_limit", c_size), ("cwd", c_str)]


class RestoreOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("session", c_str), ("target", ctypes.c_int), ("force", ctypes.c_int),
                ("dry_run", ctypes.c_int)]


class JailCreateOptions(ctypes.Structure):
    _fields_ = [("struct_size", c_size), ("name", c_str), ("workspace", c_str), ("home", c_str),
                ("source", c_str), ("profile", c_str), ("backend", c_str)]


def _declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)


_declare("paddock_abi_version", ctypes.c_uint32)
_declare("paddock_version", c_str)
for _name in ("message", "where", "hint", "describe"):
    _declare("paddock_error_" + _name, c_str, E)
_declare("paddock_error_errno", ctypes.c_int, E)
_declare("paddock_error_free", None, E)
_declare("paddock_string_free", None, ctypes.c_void_p)

_declare("paddock_builder_new", E, P(BuilderOptions), P(H))
_declare("paddock_builder_allow", None, H, c_str, ctypes.c_int)
_declare("paddock_builder_cwd_access", None, H, ctypes.c_int)
_declare("paddock_builder_network", None, H, ctypes.c_int)
_declare("paddock_builder_allow_domain", None, H, c_str)
_declare("paddock_builder_pass_env", None, H, c_str)
_declare("paddock_builder_set_env", None, H, c_str, c_str)
_declare("paddock_builder_require_namespaces", None, H, ctypes.c_int)
_declare("paddock_builder_limits", None, H, P(Limits))
_declare("paddock_builder_build", E, H, P(H))
_declare("paddock_builder_free", None, H)
_declare("paddock_policy_to_json", E, H, P(ctypes.c_void_p))
_declare("paddock_policy_from_json", E, c_str, P(H))
_declare("paddock_policy_cwd", c_str, H)
_declare("paddock_policy_free", None, H)

_declare("paddock_why", E, H, c_str, ctypes.c_int, P(H))
_declare("paddock_decision_allowed", ctypes.c_int, H)
for _name in ("reason", "suggestion", "text", "json"):
    _declare("paddock_decision_" + _name, c_str, H)
_declare("paddock_decision_free", None, H)

_declare("paddock_start", E, H, P(RunOptions), P(H))
_declare("paddock_execution_pid", ctypes.c_int, H)
_declare("paddock_execution_cancel", None, H)
_declare("paddock_wait", E, H, P(H))
_declare("paddock_execution_free", None, H)
_declare("paddock_run", E, H, P(RunOptions), P(H))
for _name in ("status", "exit_code", "signal", "shell_code", "timed_out", "oom", "cancelled"):
    _declare("paddock_result_" + _name, ctypes.c_int, H)
for _name in ("failure", "isolation", "report_json"):
    _declare("paddock_result_" + _name, c_str, H)
_declare("paddock_result_stdout", ctypes.c_void_p, H, P(c_size))
_declare("paddock_result_stderr", ctypes.c_void_p, H, P(c_size))
_declare("paddock_result_left_behind_count", c_size, H)
_declare("paddock_result_left_behind_path", c_str, H, c_size)
_declare("paddock_result_free", None, H)

_declare("paddock_undo_store_open", E, c_str, ctypes.c_int, P(H))
_declare("paddock_undo_store_dir", c_str, H)
_declare("paddock_undo_list", E, H, P(ctypes.c_void_p))
_declare("paddock_undo_store_free", None, H)
_declare("paddock_undo_begin", E, H, H, P(c_str), P(H))
_declare("paddock_undo_recording_session", c_str, H)
_declare("paddock_undo_snapshot", E, H, c_str)
_declare("paddock_undo_recording_free", None, H)
_declare("paddock_undo_restore", E, H, P(RestoreOptions), P(ctypes.c_void_p))

_declare("paddock_jail_create", E, P(JailCreateOptions), P(ctypes.c_void_p))
_declare("paddock_jail_show", E, c_str, P(ctypes.c_void_p))
_declare("paddock_jail_list", E, P(ctypes.c_void_p))
_declare("paddock_jail_diff", E, c_str, ctypes.c_int, P(ctypes.c_void_p))
_declare("paddock_jail_rm", E, c_str, ctypes.c_int)
