#include "engine/seccomp_gen/seccomp_compiler.h"

#include <errno.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <memory>

#include "engine/seccomp_policy_rules.h"
#include "sys/unique_fd.h"

namespace paddock::engine {
namespace {

int resolve(const SeccompRule& r) {
  int nr = seccomp_syscall_resolve_name(r.name);
  if (nr == __NR_SCMP_ERROR) nr = r.nr_fallback;
  return nr < 0 ? -1 : nr;
}

struct CtxDeleter {
  void operator()(void* ctx) const { seccomp_release(static_cast<scmp_filter_ctx>(ctx)); }
};
using Ctx = std::unique_ptr<void, CtxDeleter>;

Result<Ctx> make_filter(const SeccompOptions& opts) {
  Ctx ctx(seccomp_init(SCMP_ACT_ALLOW));
  if (!ctx) return make_error("seccomp_init failed", "seccomp");
  auto* c = static_cast<scmp_filter_ctx>(ctx.get());
  // Any other architecture's syscalls (int 0x80 on x86_64, x32) fail instead of slipping past.
  if (int rc = seccomp_attr_set(c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS)); rc < 0)
    return errno_error("seccomp bad-arch action", -rc, "seccomp");
  for (const SeccompRule& r : seccomp_rules(opts)) {
    int nr = resolve(r);
    if (nr < 0) continue;  // not on this architecture
    const std::uint32_t act = opts.notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(r.err);
    int rc;
    if (r.mask == 0) {
      rc = seccomp_rule_add(c, act, nr, 0);
    } else if (r.mask2 == 0) {
      rc = seccomp_rule_add(c, act, nr, 1, SCMP_CMP(r.arg, SCMP_CMP_MASKED_EQ, r.mask, r.value));
    } else {
      rc = seccomp_rule_add(c, act, nr, 2, SCMP_CMP(r.arg, SCMP_CMP_MASKED_EQ, r.mask, r.value),
                            SCMP_CMP(r.arg2, SCMP_CMP_MASKED_EQ, r.mask2, r.value2));
    }
    if (rc < 0) return errno_error(std::string("seccomp rule for ") + (r.label ? r.label : r.name), -rc, "seccomp");
  }
  return ctx;
}

// libseccomp exports to a file descriptor: a memfd, read back whole.
Result<std::string> export_filter(const SeccompOptions& opts, int (*exporter)(const scmp_filter_ctx, int)) {
  auto ctx = make_filter(opts);
  if (!ctx) return std::move(ctx).take_error();
  sys::UniqueFd mem(memfd_create("paddock-seccomp", MFD_CLOEXEC));
  if (!mem) return errno_error("memfd_create", errno, "seccomp");
  if (int rc = exporter(static_cast<scmp_filter_ctx>(ctx->get()), mem.get()); rc < 0)
    return errno_error("export seccomp filter", -rc, "seccomp");
  off_t size = lseek(mem.get(), 0, SEEK_END);
  if (size <= 0) return make_error("libseccomp exported an empty filter", "seccomp");
  std::string out(static_cast<std::size_t>(size), '\0');
  if (pread(mem.get(), out.data(), out.size(), 0) != size) return errno_error("read seccomp export", errno, "seccomp");
  return out;
}

}  // namespace

Result<std::vector<sock_filter>> build_seccomp_program(const SeccompOptions& opts) {
  auto bytes = export_filter(opts, seccomp_export_bpf);
  if (!bytes) return std::move(bytes).take_error();
  if (bytes->size() % sizeof(sock_filter) != 0) return make_error("exported BPF has an odd size", "seccomp");
  std::vector<sock_filter> prog(bytes->size() / sizeof(sock_filter));
  std::memcpy(prog.data(), bytes->data(), bytes->size());
  return prog;
}

Result<std::string> seccomp_program_text(const SeccompOptions& opts) { return export_filter(opts, seccomp_export_pfc); }

std::vector<int> seccomp_rule_numbers_built(const SeccompOptions& opts) {
  std::vector<int> out;
  for (const SeccompRule& r : seccomp_rules(opts)) out.push_back(resolve(r));
  return out;
}

}  // namespace paddock::engine
