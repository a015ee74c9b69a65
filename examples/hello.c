/* A sandboxed command from C, with undo: build a policy for the current directory, record an
 * undo session around a run that changes a file, read the typed result, and take the change back.
 *
 *   cc hello.c $(pkg-config --cflags --libs paddock) -o hello && ./hello
 *
 * docs/c-api.md. Exit 0 when everything went as it should. */
#include <stdio.h>
#include <string.h>

#include <paddock/paddock.h>

static int fail(paddock_error* e) {
  fprintf(stderr, "paddock: %s\n", paddock_error_describe(e));
  if (*paddock_error_hint(e)) fprintf(stderr, "paddock: hint: %s\n", paddock_error_hint(e));
  paddock_error_free(e);
  return 1;
}

int main(void) {
  paddock_error* e;
  paddock_policy_builder* b = NULL;
  if ((e = paddock_builder_new(NULL, &b))) return fail(e);
  paddock_builder_network(b, PADDOCK_NET_OFF);
  paddock_policy* policy = NULL;
  e = paddock_builder_build(b, &policy);
  paddock_builder_free(b);
  if (e) return fail(e);

  FILE* f = fopen("note.txt", "w");
  if (!f) return perror("note.txt"), 1;
  fputs("as it was\n", f);
  fclose(f);

  const char* argv[] = {"/bin/sh", "-c", "echo hello from a sandbox; echo changed > note.txt", NULL};
  paddock_undo_store* store = NULL;
  if ((e = paddock_undo_store_open(NULL, 1, &store))) return fail(e);
  paddock_undo_recording* rec = NULL;
  if ((e = paddock_undo_begin(store, policy, argv, &rec))) return fail(e);
  char session[64];
  snprintf(session, sizeof(session), "%s", paddock_undo_recording_session(rec));

  paddock_run_options o = PADDOCK_RUN_OPTIONS_INIT;
  o.argv = argv;
  o.capture = 1;
  paddock_result* r = NULL;
  if ((e = paddock_run(policy, &o, &r))) return fail(e);
  size_t n = 0;
  const char* out = paddock_result_stdout(r, &n);
  printf("exit %d under %s: %.*s", paddock_result_exit_code(r), paddock_result_isolation(r), (int)n, out);
  const int ok_run = paddock_result_status(r) == PADDOCK_STATUS_EXITED && paddock_result_exit_code(r) == 0;
  paddock_result_free(r);
  if ((e = paddock_undo_snapshot(rec, "after run"))) return fail(e);
  paddock_undo_recording_free(rec);

  paddock_undo_restore_options ro = PADDOCK_UNDO_RESTORE_OPTIONS_INIT;
  ro.session = session;
  char* outcome = NULL;
  if ((e = paddock_undo_restore(store, &ro, &outcome))) return fail(e);
  paddock_string_free(outcome);
  paddock_undo_store_free(store);

  char buf[64] = "";
  f = fopen("note.txt", "r");
  if (f) {
    if (!fgets(buf, sizeof(buf), f)) buf[0] = '\0';
    fclose(f);
  }
  printf("undo session %s restored: note.txt says %s", session, buf);
  paddock_policy_free(policy);
  return ok_run && strcmp(buf, "as it was\n") == 0 ? 0 : 1;
}
