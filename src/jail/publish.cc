// `jail sync` under the jail's lock (paddock/jail.h: sync): a patch file, a branch or the source's files.
#include "paddock/jail.h"
#include "sys/anchored_dir.h"

namespace paddock::jail {

namespace {

Result<Published> to_patch(const Runtime& r, const std::string& file, Ignored ignored) {
  // What every sync publishes: the held changes are left out (jail diff shows them).
  auto d = diff(r, true, /*publishable_only=*/true, ignored);
  if (!d) return std::move(d).take_error();
  auto parts = sys::split_file_path(file);
  if (!parts) return make_error(parts.error().message, "--patch " + file);
  auto dir = sys::open_dir_no_symlinks(parts->first);
  if (!dir) return std::move(dir).take_error();
  if (auto w = sys::write_file_at(dir->get(), parts->second, d->patch, 0644); !w) return std::move(w).take_error();
  Published out;
  out.ignored = d->ignored;
  for (const auto& c : d->changes) (c.held.empty() ? out.written : out.held).push_back(c);
  return out;
}

}  // namespace

Result<Published> sync(const Store& st, std::string_view name, const SyncTo& to, Ignored ignored,
                       std::vector<std::string>* refused) {
  auto r = st.load(name);
  if (!r) return std::move(r).take_error();
  auto lock = st.lock(name, true);
  if (!lock) return std::move(lock).take_error();
  auto out = to.kind == SyncTo::Kind::Patch    ? to_patch(*r, to.target, ignored)
             : to.kind == SyncTo::Kind::Branch ? sync_to_branch(*r, to.target, ignored)
                                               : sync_apply(*r, refused, ignored);
  if (out) out->source = r->source;
  return out;
}

}  // namespace paddock::jail
