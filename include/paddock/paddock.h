/* The C API of libpaddock: policies, runs, `why`, undo and jails from C, and from any language
 * with a C FFI (the Python package in python/paddock uses it through ctypes). docs/c-api.md.
 *
 * What this owns: a C surface over the C++ library (the headers in include/paddock/), implemented in
 * src/capi/. Every object is an opaque handle made by a paddock_*_new / paddock_* call and
 * released by its paddock_*_free (free(NULL)-style: NULL is accepted). What it may not do: print,
 * exit, or throw — every failure is a value.
 *
 * Errors. A call that can fail returns a paddock_error* (NULL on success) and writes its result
 * through an out pointer only on success. The error carries what the command line prints for the
 * same failure: paddock_error_describe() is the "paddock: ..." line's text and
 * paddock_error_hint() its "hint:" line's. The caller frees it with paddock_error_free().
 *
 * Strings. Strings returned by an accessor (const char*) belong to the handle and live as long
 * as it does. Strings returned through a char** out pointer are the caller's: free them with
 * paddock_string_free(). All strings are UTF-8 as the library has them (paths are bytes: a path
 * that is not UTF-8 comes back as it is).
 *
 * ABI. paddock_abi_version() is the ABI this library implements (PADDOCK_ABI_VERSION of its
 * build; the shared library's soname is libpaddock.so.<abi>). Functions and enum values are only
 * ever added within an ABI version. Option structs start with `size_t struct_size`, set to
 * sizeof() of the struct as the caller compiled it (the PADDOCK_*_INIT macros do): a library
 * newer than the caller reads the fields the caller knows and defaults the rest; a library older
 * than the caller accepts the larger struct when every byte it does not know is zero, and refuses
 * it otherwise (so a new option is never silently ignored).
 *
 * Threads. Handles are not shared between threads without the caller's locking, except where a
 * function says it is thread-safe (paddock_execution_cancel). Runs need a process that may fork:
 * the sandbox's first process is a fork of the caller's. */
#ifndef PADDOCK_PADDOCK_H
#define PADDOCK_PADDOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PADDOCK_ABI_VERSION 1

/* The ABI version of the library that is loaded (compare with PADDOCK_ABI_VERSION). */
uint32_t paddock_abi_version(void);
/* paddock's version, "0.1.0". */
const char* paddock_version(void);

/* ---- errors ------------------------------------------------------------------------------ */

typedef struct paddock_error paddock_error;
const char* paddock_error_message(const paddock_error* e);
const char* paddock_error_where(const paddock_error* e); /* a path, "file:line:col", a step; "" */
const char* paddock_error_hint(const paddock_error* e);  /* what to do about it; "" when none */
int paddock_error_errno(const paddock_error* e);         /* 0 when no system call failed */
/* "where: message: strerror(errno)", the text the command line prints after "paddock: ". */
const char* paddock_error_describe(const paddock_error* e);
void paddock_error_free(paddock_error* e);
void paddock_string_free(char* s);

/* ---- policies ---------------------------------------------------------------------------- */

typedef enum paddock_access {
  PADDOCK_ACCESS_NONE = 0,
  PADDOCK_ACCESS_READ = 1, /* read and execute */
  PADDOCK_ACCESS_WRITE = 2,
  PADDOCK_ACCESS_READ_WRITE = 3
} paddock_access;

typedef enum paddock_net {
  PADDOCK_NET_OFF = 0,     /* own network namespace, loopback only (the default) */
  PADDOCK_NET_HOST = 1,    /* the host's network */
  PADDOCK_NET_FILTERED = 2 /* only the domains allowed with paddock_builder_allow_domain */
} paddock_net;

typedef enum paddock_op { PADDOCK_OP_READ = 0, PADDOCK_OP_WRITE = 1, PADDOCK_OP_EXEC = 2 } paddock_op;

typedef struct paddock_builder_options {
  size_t struct_size;
  /* The project: the current directory the policy is built for (granted read+write unless
   * paddock_builder_cwd_access says otherwise). NULL: this process's current directory. */
  const char* cwd;
  /* A profile by name ("default", "claude", a user profile) or file (docs/profiles.md), applied
   * first. NULL: none, the builder's own defaults (what the "default" profile gives). */
  const char* profile;
} paddock_builder_options;
#define PADDOCK_BUILDER_OPTIONS_INIT {sizeof(paddock_builder_options), NULL, NULL}

/* A policy builder for this process's user (HOME, uid, paddock's state: paddock/state.h). One
 * builder, one error: the calls below record the first error, paddock_builder_build returns it. */
typedef struct paddock_policy_builder paddock_policy_builder;
typedef struct paddock_policy paddock_policy;
paddock_error* paddock_builder_new(const paddock_builder_options* options, paddock_policy_builder** out);
/* A path rule (`--read`, `--write`, `--allow`): relative to the cwd, "~" for HOME. */
void paddock_builder_allow(paddock_policy_builder* b, const char* path, paddock_access access);
void paddock_builder_cwd_access(paddock_policy_builder* b, paddock_access access);
void paddock_builder_network(paddock_policy_builder* b, paddock_net mode);
/* "host", "*.domain", "host:port"; sets the network to PADDOCK_NET_FILTERED when it is off. */
void paddock_builder_allow_domain(paddock_policy_builder* b, const char* pattern);
void paddock_builder_pass_env(paddock_policy_builder* b, const char* name);
void paddock_builder_set_env(paddock_policy_builder* b, const char* name, const char* value);
void paddock_builder_require_namespaces(paddock_policy_builder* b, int on);

typedef struct paddock_limits {
  size_t struct_size;
  uint64_t memory_bytes; /* 0: no limit */
  uint64_t pids;         /* 0: the built-in ceiling (4096) */
  double cpu;            /* cores' worth of CPU time; 0: no limit */
  uint64_t timeout_ms;   /* 0: none */
} paddock_limits;
#define PADDOCK_LIMITS_INIT {sizeof(paddock_limits), 0, 0, 0.0, 0}
void paddock_builder_limits(paddock_policy_builder* b, const paddock_limits* limits);

paddock_error* paddock_builder_build(const paddock_policy_builder* b, paddock_policy** out);
void paddock_builder_free(paddock_policy_builder* b);

/* The policy as JSON ("paddock.policy/1", docs/policy-json.md), and back. */
paddock_error* paddock_policy_to_json(const paddock_policy* p, char** json_out);
paddock_error* paddock_policy_from_json(const char* json, paddock_policy** out);
const char* paddock_policy_cwd(const paddock_policy* p);
void paddock_policy_free(paddock_policy* p);

/* ---- why --------------------------------------------------------------------------------- */

typedef struct paddock_decision paddock_decision;
/* Which rule decides OP on PATH (absolute, or relative to the policy's cwd): `paddock why`. */
paddock_error* paddock_why(const paddock_policy* p, const char* path, paddock_op op, paddock_decision** out);
int paddock_decision_allowed(const paddock_decision* d);
const char* paddock_decision_reason(const paddock_decision* d);     /* one sentence */
const char* paddock_decision_suggestion(const paddock_decision* d); /* a flag that would allow it, or "" */
const char* paddock_decision_text(const paddock_decision* d);       /* `paddock why`'s text */
const char* paddock_decision_json(const paddock_decision* d);       /* "paddock.why/1", docs/why.md */
void paddock_decision_free(paddock_decision* d);

/* ---- runs -------------------------------------------------------------------------------- */

typedef struct paddock_run_options {
  size_t struct_size;
  const char* const* argv; /* NULL-terminated; argv[0] is looked up in the sandbox's PATH */
  const char* const* env;  /* NULL-terminated "NAME=VALUE"s to filter; NULL: this process's */
  int capture;             /* 0: stdio inherited (no pty, no signal forwarding); 1: captured */
  const char* stdin_data;  /* capture: written to the command's stdin, then closed; NULL: /dev/null */
  size_t stdin_len;
  size_t capture_limit;    /* capture: bytes kept per stream; 0: 16 MiB */
  const char* cwd;         /* where the command starts; NULL: the policy's cwd */
} paddock_run_options;
#define PADDOCK_RUN_OPTIONS_INIT {sizeof(paddock_run_options), NULL, NULL, 0, NULL, 0, 0, NULL}

typedef enum paddock_status {
  PADDOCK_STATUS_EXITED = 0,        /* paddock_result_exit_code */
  PADDOCK_STATUS_SIGNALED = 1,      /* paddock_result_signal */
  PADDOCK_STATUS_SETUP_FAILED = 2,  /* the sandbox could not be built: paddock_result_failure */
  PADDOCK_STATUS_NOT_FOUND = 3,     /* no such command (127) */
  PADDOCK_STATUS_NOT_EXECUTABLE = 4 /* 126 */
} paddock_status;

typedef struct paddock_execution paddock_execution;
typedef struct paddock_result paddock_result;

/* Starts the command in a sandbox built from POLICY and returns at once. */
paddock_error* paddock_start(const paddock_policy* p, const paddock_run_options* options, paddock_execution** out);
pid_t paddock_execution_pid(const paddock_execution* x);
/* Kills the whole sandboxed tree; paddock_wait then returns a result with cancelled set.
 * Thread-safe: may be called while another thread waits. */
void paddock_execution_cancel(paddock_execution* x);
/* Waits until every sandboxed process is gone. Once per execution. */
paddock_error* paddock_wait(paddock_execution* x, paddock_result** out);
/* Kills the sandbox if it still runs, and waits for it. */
void paddock_execution_free(paddock_execution* x);
/* paddock_start + paddock_wait. */
paddock_error* paddock_run(const paddock_policy* p, const paddock_run_options* options, paddock_result** out);

paddock_status paddock_result_status(const paddock_result* r);
int paddock_result_exit_code(const paddock_result* r);
int paddock_result_signal(const paddock_result* r);
/* What a shell would report: the exit code, 128+N for signal N, 126/127, 125 for a setup failure. */
int paddock_result_shell_code(const paddock_result* r);
int paddock_result_timed_out(const paddock_result* r);
int paddock_result_oom(const paddock_result* r);
int paddock_result_cancelled(const paddock_result* r);
/* "sandbox setup failed: ...", "CMD: command not found", or "". */
const char* paddock_result_failure(const paddock_result* r);
/* "namespaces+landlock(6)+seccomp", or the fallback's "landlock(6)+seccomp". */
const char* paddock_result_isolation(const paddock_result* r);
/* Captured output (capture mode); *len gets its length (it may hold NUL bytes). */
const char* paddock_result_stdout(const paddock_result* r, size_t* len);
const char* paddock_result_stderr(const paddock_result* r, size_t* len);
/* What the run left where the host runs or trusts it later, moved aside or put back. */
size_t paddock_result_left_behind_count(const paddock_result* r);
const char* paddock_result_left_behind_path(const paddock_result* r, size_t i);
/* The run report, "paddock.report/1" (docs/report.md): everything above and more. */
const char* paddock_result_report_json(const paddock_result* r);
void paddock_result_free(paddock_result* r);

/* ---- undo (docs/undo.md) ----------------------------------------------------------------- */

typedef struct paddock_undo_store paddock_undo_store;
/* The undo store at DIR; NULL: this user's (StateLayout::undo_dir, what `paddock undo` uses).
 * CREATE makes it when missing. */
paddock_error* paddock_undo_store_open(const char* dir, int create, paddock_undo_store** out);
const char* paddock_undo_store_dir(const paddock_undo_store* s);
/* The sessions, oldest first, as `paddock undo list --json` prints them. */
paddock_error* paddock_undo_list(paddock_undo_store* s, char** json_out);
void paddock_undo_store_free(paddock_undo_store* s);

/* A recording: a session capturing what a run under POLICY may write (its writable directories
 * but paddock's own state, the policy's hidden paths and the default excludes, as `paddock run
 * --undo`), with snapshot 0, "before run", taken by paddock_undo_begin. Run the command, then
 * paddock_undo_snapshot(rec, "after run"). The store stays locked while the recording lives. */
typedef struct paddock_undo_recording paddock_undo_recording;
paddock_error* paddock_undo_begin(paddock_undo_store* s, const paddock_policy* p, const char* const* argv,
                                  paddock_undo_recording** out);
const char* paddock_undo_recording_session(const paddock_undo_recording* rec);
paddock_error* paddock_undo_snapshot(paddock_undo_recording* rec, const char* label);
void paddock_undo_recording_free(paddock_undo_recording* rec);

typedef struct paddock_undo_restore_options {
  size_t struct_size;
  const char* session; /* NULL: the latest session */
  int target;          /* the snapshot to restore the session's paths to (0: as before the run) */
  int force;           /* overwrite what changed since the session's last snapshot */
  int dry_run;         /* say what would change, change nothing */
} paddock_undo_restore_options;
#define PADDOCK_UNDO_RESTORE_OPTIONS_INIT {sizeof(paddock_undo_restore_options), NULL, 0, 0, 0}
/* Restores (crash-safely; what the host would run is held back, as `paddock undo restore`).
 * *outcome_json: {"applied", "session", "target", "changes": [{"kind", "root", "path"}],
 * "conflicts": [...], "held": [{"root", "path", "why"}], "left_behind": [...], "warnings": [...]}.
 * Conflicts without force are not an error: nothing is applied and "applied" is false. */
paddock_error* paddock_undo_restore(paddock_undo_store* s, const paddock_undo_restore_options* options,
                                    char** outcome_json);

/* ---- jails (docs/jails.md) --------------------------------------------------------------- */

typedef struct paddock_jail_create_options {
  size_t struct_size;
  const char* name;
  const char* workspace; /* "host", "copy", "overlay", "worktree"; NULL: "copy" */
  const char* home;      /* "stable", "temporary"; NULL: "stable" */
  const char* source;    /* the project; NULL: this process's current directory */
  const char* profile;   /* NULL: "default" */
  const char* backend;   /* "native", "bubblewrap", "systemd-run"; NULL: "native" */
} paddock_jail_create_options;
#define PADDOCK_JAIL_CREATE_OPTIONS_INIT {sizeof(paddock_jail_create_options), NULL, NULL, NULL, NULL, NULL, NULL}

/* The jail store is this user's (StateLayout::jails_dir). JSON is runtime.json's
 * ("paddock.jail/1"), as `paddock jail show` prints it. */
paddock_error* paddock_jail_create(const paddock_jail_create_options* options, char** runtime_json);
paddock_error* paddock_jail_show(const char* name, char** runtime_json);
paddock_error* paddock_jail_list(char** json_array);
/* What the jail changed against its source: {"changes": [{"kind", "path", "held"}], "patch"}. */
paddock_error* paddock_jail_diff(const char* name, int with_patch, char** json_out);
/* Refused while a command runs in it, and when it holds work not in its source unless FORCE. */
paddock_error* paddock_jail_rm(const char* name, int force);

#ifdef __cplusplus
}
#endif

#endif /* PADDOCK_PADDOCK_H */
