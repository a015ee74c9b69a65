#include "host/settings.h"

namespace paddock::host {

nlohmann::json deep_merge(nlohmann::json base, const nlohmann::json& over) {
  if (!base.is_object() || !over.is_object()) return over;
  for (auto it = over.begin(); it != over.end(); ++it) {
    auto b = base.find(it.key());
    if (b != base.end() && b->is_object() && it->is_object()) {
      *b = deep_merge(std::move(*b), *it);
    } else {
      base[it.key()] = *it;
    }
  }
  return base;
}

Result<std::string> merge_settings_text(std::string_view synced, const std::string& file, const nlohmann::json& managed) {
  nlohmann::json base = nlohmann::json::object();
  if (!synced.empty()) {
    try {
      base = nlohmann::json::parse(synced);
    } catch (const nlohmann::json::parse_error& e) {
      return make_error(std::string("is not valid JSON: ") + e.what(), file,
                        "fix it, or remove it: the managed settings are then used alone");
    }
    if (!base.is_object()) return make_error("must hold a JSON object ({...})", file);
  }
  return deep_merge(std::move(base), managed).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace paddock::host
