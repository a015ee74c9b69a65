/* The C API's tests, in C (compiled as C11, linked against libpaddock.so: the exported ABI is
 * what is tested). Real sandboxes, each in a temporary HOME with its own paddock state and jail
 * store: run as root and as the unprivileged test user (ctest capi.*). The binary is unit_capi,
 * so scripts/mutation-check.sh runs it with the other unit_* binaries. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paddock/paddock.h"

static int failures;
#define CHECK(cond, ...)                                                  \
  do {                                                                    \
    if (!(cond)) {                                                        \
      ++failures;                                                         \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                       \
      fputc('\n', stderr);                                                \
    }                                                                     \
  } while (0)
/* A call that must succeed: on failure the error is printed and the test stops. */
#define MUST(call)                                                                         \
  do {                                                                                     \
    paddock_error* must_e = (call);                                                        \
    if (must_e) {                                                                          \
      fprintf(stderr, "%s:%d: %s: %s (hint: %s)\n", __FILE__, __LINE__, #call,             \
              paddock_error_describe(must_e), paddock_error_hint(must_e));                 \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static char root[256], home[300], project[300];

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
    perror(path);
    exit(1);
  }
}

static char* read_file(const char* path) {
  static char buf[4096];
  FILE* f = fopen(path, "r");
  if (!f) return NULL;
  size_t n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static paddock_policy* project_policy(void) {
  paddock_builder_options o = PADDOCK_BUILDER_OPTIONS_INIT;
  o.cwd = project;
  paddock_policy_builder* b = NULL;
  MUST(paddock_builder_new(&o, &b));
  paddock_policy* p = NULL;
  MUST(paddock_builder_build(b, &p));
  paddock_builder_free(b);
  return p;
}

static void test_versions(void) {
  CHECK(paddock_abi_version() == PADDOCK_ABI_VERSION, "abi %u", paddock_abi_version());
  CHECK(strlen(paddock_version()) > 0, "empty version");
}

/* Option structs: too small is refused; larger is accepted only when what the library does not
 * know is zero. */
static void test_struct_size(void) {
  paddock_policy_builder* b = NULL;
  paddock_builder_options small = PADDOCK_BUILDER_OPTIONS_INIT;
  small.struct_size = 4;
  paddock_error* e = paddock_builder_new(&small, &b);
  CHECK(e && strstr(paddock_error_message(e), "struct_size 4"), "%s", e ? paddock_error_message(e) : "accepted");
  CHECK(b == NULL, "a builder came back with the error");
  paddock_error_free(e);

  struct {
    paddock_builder_options known;
    long newer;
  } big;
  memset(&big, 0, sizeof(big));
  big.known.struct_size = sizeof(big);
  big.known.cwd = project;
  big.newer = 1;
  e = paddock_builder_new(&big.known, &b);
  CHECK(e && strstr(paddock_error_message(e), "does not know"), "%s", e ? paddock_error_message(e) : "accepted");
  CHECK(e && strstr(paddock_error_hint(e), "newer paddock.h"), "%s", e ? paddock_error_hint(e) : "");
  paddock_error_free(e);
  big.newer = 0;
  MUST(paddock_builder_new(&big.known, &b));
  paddock_builder_free(b);
}

/* One builder, one error, with the CLI's message and hint. */
static void test_builder_errors(void) {
  paddock_builder_options o = PADDOCK_BUILDER_OPTIONS_INIT;
  o.cwd = project;
  paddock_policy_builder* b = NULL;
  MUST(paddock_builder_new(&o, &b));
  char state[400], where[420];
  snprintf(state, sizeof(state), "%s/state/paddock/undo", root);
  snprintf(where, sizeof(where), "--read %s", state);
  paddock_builder_allow(b, state, PADDOCK_ACCESS_READ);
  paddock_policy* p = NULL;
  paddock_error* e = paddock_builder_build(b, &p);
  CHECK(e != NULL && p == NULL, "built");
  if (e) {
    CHECK(strstr(paddock_error_describe(e), "paddock's own state"), "%s", paddock_error_describe(e));
    CHECK(strcmp(paddock_error_where(e), where) == 0, "%s", paddock_error_where(e));
    CHECK(strstr(paddock_error_hint(e), "grant a directory outside"), "%s", paddock_error_hint(e));
  }
  paddock_error_free(e);
  paddock_builder_free(b);

  o.profile = "no-such-profile";
  e = paddock_builder_new(&o, &b);
  CHECK(e && strstr(paddock_error_describe(e), "no-such-profile"), "%s", e ? paddock_error_describe(e) : "accepted");
  paddock_error_free(e);
}

static void test_policy_and_why(void) {
  paddock_policy* p = project_policy();
  char* json = NULL;
  MUST(paddock_policy_to_json(p, &json));
  CHECK(strstr(json, "paddock.policy/1") != NULL, "%.200s", json);
  paddock_policy* back = NULL;
  MUST(paddock_policy_from_json(json, &back));
  CHECK(strcmp(paddock_policy_cwd(back), project) == 0, "%s", paddock_policy_cwd(back));
  paddock_policy_free(back);
  paddock_string_free(json);

  char path[400];
  paddock_decision* d = NULL;
  snprintf(path, sizeof(path), "%s/f", project);
  MUST(paddock_why(p, path, PADDOCK_OP_WRITE, &d));
  CHECK(paddock_decision_allowed(d), "%s", paddock_decision_reason(d));
  paddock_decision_free(d);
  snprintf(path, sizeof(path), "%s/.ssh/id_ed25519", home);
  MUST(paddock_why(p, path, PADDOCK_OP_READ, &d));
  CHECK(!paddock_decision_allowed(d), "%s", paddock_decision_reason(d));
  CHECK(strstr(paddock_decision_json(d), "paddock.why/1") != NULL, "%s", paddock_decision_json(d));
  paddock_decision_free(d);
  paddock_policy_free(p);
}

static void test_run(void) {
  paddock_policy* p = project_policy();
  char secret[400];
  snprintf(secret, sizeof(secret), "%s/.ssh/id_ed25519", home);
  const char* argv[] = {"/bin/sh", "-c", "cat; echo out; echo err >&2; cat \"$1\" 2>/dev/null; echo w > f; exit 3",
                        "sh", secret, NULL};
  paddock_run_options o = PADDOCK_RUN_OPTIONS_INIT;
  o.argv = argv;
  o.capture = 1;
  o.stdin_data = "in\n";
  o.stdin_len = 3;
  paddock_result* r = NULL;
  MUST(paddock_run(p, &o, &r));
  size_t n = 0;
  const char* out = paddock_result_stdout(r, &n);
  CHECK(paddock_result_status(r) == PADDOCK_STATUS_EXITED && paddock_result_exit_code(r) == 3, "status %d code %d: %s",
        (int)paddock_result_status(r), paddock_result_exit_code(r), paddock_result_failure(r));
  CHECK(n == 7 && memcmp(out, "in\nout\n", 7) == 0, "stdout %zu: %.*s", n, (int)n, out);
  CHECK(strstr(paddock_result_stderr(r, NULL), "err") != NULL, "stderr");
  CHECK(strstr(out, "SECRET") == NULL, "the key was readable");
  CHECK(paddock_result_shell_code(r) == 3, "%d", paddock_result_shell_code(r));
  CHECK(strlen(paddock_result_isolation(r)) > 0, "no isolation named");
  CHECK(strstr(paddock_result_report_json(r), "paddock.report/1") != NULL, "%.200s", paddock_result_report_json(r));
  paddock_result_free(r);
  char f[400];
  snprintf(f, sizeof(f), "%s/f", project);
  const char* written = read_file(f);
  CHECK(written && strcmp(written, "w\n") == 0, "the project was not writable: %s", written ? written : "(none)");

  const char* missing[] = {"no-such-command-paddock", NULL};
  o.argv = missing;
  MUST(paddock_run(p, &o, &r));
  CHECK(paddock_result_status(r) == PADDOCK_STATUS_NOT_FOUND && paddock_result_shell_code(r) == 127, "%d %s",
        paddock_result_shell_code(r), paddock_result_failure(r));
  CHECK(strstr(paddock_result_failure(r), "command not found") != NULL, "%s", paddock_result_failure(r));
  paddock_result_free(r);

  /* A command that exits without reading its stdin: the caller (SIGPIPE's default action here)
   * must live on. More than a pipe holds, so a write after the reader left is certain. */
  static char big[1 << 20];
  memset(big, 'x', sizeof(big));
  const char* deaf[] = {"/bin/true", NULL};
  o.argv = deaf;
  o.stdin_data = big;
  o.stdin_len = sizeof(big);
  MUST(paddock_run(p, &o, &r));
  CHECK(paddock_result_exit_code(r) == 0, "%s", paddock_result_failure(r));
  paddock_result_free(r);
  o.stdin_data = NULL;
  o.stdin_len = 0;

  const char* sleeper[] = {"/bin/sleep", "30", NULL};
  o.argv = sleeper;
  paddock_execution* x = NULL;
  MUST(paddock_start(p, &o, &x));
  CHECK(paddock_execution_pid(x) > 0, "no pid");
  paddock_execution_cancel(x);
  MUST(paddock_wait(x, &r));
  CHECK(paddock_result_cancelled(r), "not cancelled: status %d", (int)paddock_result_status(r));
  paddock_result_free(r);
  paddock_error* again = paddock_wait(x, &r);
  CHECK(again != NULL, "a second wait succeeded");
  paddock_error_free(again);
  paddock_execution_free(x);

  o.argv = NULL;
  paddock_error* e = paddock_run(p, &o, &r);
  CHECK(e && strstr(paddock_error_message(e), "no command"), "%s", e ? paddock_error_message(e) : "ran");
  paddock_error_free(e);
  paddock_policy_free(p);
}

/* A recording around a run, then its restore: the project is as before the run. */
static void test_undo(void) {
  char f[400];
  snprintf(f, sizeof(f), "%s/kept", project);
  write_file(f, "before\n");
  paddock_policy* p = project_policy();
  paddock_undo_store* s = NULL;
  MUST(paddock_undo_store_open(NULL, 1, &s));
  CHECK(strstr(paddock_undo_store_dir(s), "/state/paddock/undo") != NULL, "%s", paddock_undo_store_dir(s));
  const char* argv[] = {"/bin/sh", "-c", "echo after > kept; echo new > added", NULL};
  paddock_undo_recording* rec = NULL;
  MUST(paddock_undo_begin(s, p, argv, &rec));
  char session[64];
  snprintf(session, sizeof(session), "%s", paddock_undo_recording_session(rec));
  paddock_run_options o = PADDOCK_RUN_OPTIONS_INIT;
  o.argv = argv;
  o.capture = 1;
  paddock_result* r = NULL;
  MUST(paddock_run(p, &o, &r));
  CHECK(paddock_result_exit_code(r) == 0, "%s", paddock_result_failure(r));
  paddock_result_free(r);
  MUST(paddock_undo_snapshot(rec, "after run"));
  paddock_undo_recording_free(rec);

  char* list = NULL;
  MUST(paddock_undo_list(s, &list));
  CHECK(strstr(list, session) && strstr(list, "after run"), "%s", list);
  paddock_string_free(list);

  paddock_undo_restore_options ro = PADDOCK_UNDO_RESTORE_OPTIONS_INIT;
  ro.dry_run = 1;
  char* outcome = NULL;
  MUST(paddock_undo_restore(s, &ro, &outcome));
  CHECK(strstr(outcome, "\"applied\": false") && strstr(outcome, "added"), "%s", outcome);
  paddock_string_free(outcome);
  CHECK(strcmp(read_file(f), "after\n") == 0, "a dry run changed the project");
  ro.dry_run = 0;
  ro.session = session;
  MUST(paddock_undo_restore(s, &ro, &outcome));
  CHECK(strstr(outcome, "\"applied\": true") != NULL, "%s", outcome);
  paddock_string_free(outcome);
  const char* now = read_file(f);
  CHECK(now && strcmp(now, "before\n") == 0, "not restored: %s", now ? now : "(gone)");
  char added[400];
  snprintf(added, sizeof(added), "%s/added", project);
  CHECK(access(added, F_OK) != 0, "the file the run added is still there");
  paddock_undo_store_free(s);
  paddock_policy_free(p);
}

static void test_jails(void) {
  paddock_jail_create_options o = PADDOCK_JAIL_CREATE_OPTIONS_INIT;
  o.name = "capi-test";
  o.source = project;
  char* json = NULL;
  MUST(paddock_jail_create(&o, &json));
  CHECK(strstr(json, "paddock.jail/1") && strstr(json, "\"capi-test\""), "%s", json);
  paddock_string_free(json);
  paddock_error* e = paddock_jail_create(&o, &json);
  CHECK(e != NULL, "a second jail of the same name was made");
  paddock_error_free(e);
  o.name = "../x";
  e = paddock_jail_create(&o, &json);
  CHECK(e != NULL, "a jail named ../x was made");
  paddock_error_free(e);

  MUST(paddock_jail_list(&json));
  CHECK(strstr(json, "\"capi-test\"") != NULL, "%s", json);
  paddock_string_free(json);

  /* A change in the workspace: diff shows it, rm without force refuses and says how to keep it. */
  char ws[400];
  snprintf(ws, sizeof(ws), "%s/jails/capi-test/workspaces/capi-test/made-in-jail", root);
  write_file(ws, "x\n");
  MUST(paddock_jail_diff("capi-test", 1, &json));
  CHECK(strstr(json, "made-in-jail") != NULL, "%s", json);
  paddock_string_free(json);
  e = paddock_jail_rm("capi-test", 0);
  CHECK(e && strstr(paddock_error_message(e), "would lose") && strstr(paddock_error_hint(e), "--force"), "%s",
        e ? paddock_error_describe(e) : "removed");
  paddock_error_free(e);
  MUST(paddock_jail_rm("capi-test", 1));
  e = paddock_jail_show("capi-test", &json);
  CHECK(e && strstr(paddock_error_message(e), "no jail named"), "%s", e ? paddock_error_message(e) : "still there");
  paddock_error_free(e);
}

int main(void) {
  signal(SIGPIPE, SIG_DFL); /* as most programs have it: a library must not depend on it */
  snprintf(root, sizeof(root), "/tmp/paddock-capi.XXXXXX");
  if (!mkdtemp(root)) return perror("mkdtemp"), 1;
  chmod(root, 0755);
  snprintf(home, sizeof(home), "%s/home", root);
  snprintf(project, sizeof(project), "%s/home/proj", root);
  char path[400];
  mkdir(home, 0755);
  mkdir(project, 0755);
  snprintf(path, sizeof(path), "%s/.ssh", home);
  mkdir(path, 0700);
  snprintf(path, sizeof(path), "%s/.ssh/id_ed25519", home);
  write_file(path, "SECRET\n");
  setenv("HOME", home, 1);
  snprintf(path, sizeof(path), "%s/state", root);
  setenv("XDG_STATE_HOME", path, 1);
  mkdir(path, 0700);
  snprintf(path, sizeof(path), "%s/state/paddock", root);
  mkdir(path, 0700);
  snprintf(path, sizeof(path), "%s/state/paddock/undo", root);
  mkdir(path, 0700);
  snprintf(path, sizeof(path), "%s/jails", root);
  setenv("PADDOCK_JAILS_DIR", path, 1);
  snprintf(path, sizeof(path), "%s/config", root);
  setenv("XDG_CONFIG_HOME", path, 1);

  test_versions();
  test_struct_size();
  test_builder_errors();
  test_policy_and_why();
  test_run();
  test_undo();
  test_jails();

  char rm[400];
  snprintf(rm, sizeof(rm), "rm -rf '%s'", root);
  if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", root);
  if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
  else printf("C API: all checks passed\n");
  return failures ? 1 : 0;
}
