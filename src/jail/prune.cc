// `jail prune` and `jail show` (paddock/jail.h): what the store's jails use, and removing the
// least recently used.
#include <algorithm>
#include <ctime>

#include "paddock/jail.h"

namespace paddock::jail {

Result<Shown> show(const Store& st, std::string_view name) {
  auto r = st.load(name);
  if (!r) return std::move(r).take_error();
  Shown out{std::move(*r), std::nullopt};
  if (auto used = disk_usage(out.runtime.jail_root)) out.size_bytes = *used;
  return out;
}

Result<Pruned> prune(const Store& st, const PruneOptions& o) {
  if (!o.older_than && !o.max_total)
    return make_error("give --older-than AGE and/or --max-size SIZE", "paddock jail prune");
  auto all = st.list();
  if (!all) return std::move(all).take_error();
  // Least recently used first.
  std::sort(all->begin(), all->end(), [](const auto& a, const auto& b) { return a.last_used < b.last_used; });
  Pruned out;
  std::vector<std::uint64_t> sizes;
  std::uint64_t total = 0;
  for (const auto& r : *all) {
    auto u = disk_usage(r.jail_root);
    // A jail that cannot be measured is said, never silently counted as empty.
    if (!u) out.unmeasured.push_back(make_error("jail " + r.name + ": size unknown, counted as 0: " + u.error().describe()));
    sizes.push_back(u ? *u : 0);
    total += sizes.back();
  }
  const std::int64_t now = o.now ? o.now : static_cast<std::int64_t>(std::time(nullptr));
  for (std::size_t i = 0; i < all->size(); ++i) {
    const auto& r = (*all)[i];
    const bool old = o.older_than && (now - r.last_used) * 1000 > o.older_than->count();
    const bool over = o.max_total && total > *o.max_total;
    if (!old && !over) continue;
    PruneStep step{r, sizes[i], std::nullopt, std::nullopt};
    auto lock = st.lock(r.name, true);
    if (!lock) {
      step.refused = lock.error();
      out.steps.push_back(std::move(step));
      continue;
    }
    if (!o.dry_run) {
      if (auto rm = st.remove(r.name); !rm) {
        step.remove_error = rm.error();
        out.steps.push_back(std::move(step));
        continue;
      }
    }
    out.steps.push_back(std::move(step));
    total -= sizes[i];
    ++out.removed;
  }
  return out;
}

}  // namespace paddock::jail
