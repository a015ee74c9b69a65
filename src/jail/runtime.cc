// runtime/runtime.json: what a jail is, versioned ("paddock.jail/1").
#include "paddock/jail.h"

namespace paddock::jail {

nlohmann::json runtime_to_json(const Runtime& r) {
  nlohmann::json j;
  j["format"] = kRuntimeFormat;
  j["name"] = r.name;
  j["jail_root"] = r.jail_root;
  j["profile"] = r.profile;
  j["profile_root"] = r.profile_root;
  j["workspace"] = {{"mode", std::string(to_string(r.workspace_mode))}, {"root", r.workspace_root}};
  j["home"] = {{"mode", std::string(to_string(r.home_mode))}, {"root", r.home_root}};
  j["source"] = r.source;
  j["backend"] = r.backend;
  j["created"] = r.created;
  j["last_used"] = r.last_used;
  j["max_size_bytes"] = r.max_size_bytes ? nlohmann::json(*r.max_size_bytes) : nlohmann::json(nullptr);
  if (r.workspace_mode == WorkspaceMode::Worktree) {
    j["git"] = {{"branch", r.git_branch}, {"base", r.git_base}, {"git_dir", r.git_dir},
                {"common_dir", r.git_common_dir}};
  }
  return j;
}

Result<Runtime> runtime_from_json(const nlohmann::json& j, const std::string& file) {
  const std::string hint = "the jail's metadata is damaged: paddock jail rm NAME removes the jail";
  auto bad = [&](const std::string& what) { return make_error("damaged runtime.json: " + what, file, hint); };
  if (!j.is_object()) return bad("not a JSON object");
  auto str = [&](const nlohmann::json& o, const char* key, std::string& out) -> bool {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  std::string format;
  if (!str(j, "format", format)) return bad("no \"format\"");
  if (format != kRuntimeFormat)
    return make_error("runtime.json has format \"" + format + "\"; this paddock reads " + kRuntimeFormat, file,
                      "a newer paddock made this jail: use that one, or paddock jail rm NAME");
  Runtime r;
  for (auto [key, out] : {std::pair{"name", &r.name}, {"jail_root", &r.jail_root}, {"profile", &r.profile},
                          {"profile_root", &r.profile_root}, {"source", &r.source}, {"backend", &r.backend}}) {
    if (!str(j, key, *out)) return bad(std::string("\"") + key + "\" missing or not a string");
  }
  auto ws = j.find("workspace");
  auto home = j.find("home");
  std::string wm, hm;
  if (ws == j.end() || !ws->is_object() || !str(*ws, "mode", wm) || !str(*ws, "root", r.workspace_root))
    return bad("\"workspace\" missing or incomplete");
  if (home == j.end() || !home->is_object() || !str(*home, "mode", hm) || !str(*home, "root", r.home_root))
    return bad("\"home\" missing or incomplete");
  auto w = parse_workspace_mode(wm);
  if (!w) return bad("workspace mode \"" + wm + "\"");
  auto h = parse_home_mode(hm);
  if (!h) return bad("home mode \"" + hm + "\"");
  r.workspace_mode = *w;
  r.home_mode = *h;
  for (auto [key, out] : {std::pair{"created", &r.created}, {"last_used", &r.last_used}}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return bad(std::string("\"") + key + "\" missing or not a number");
    *out = it->get<std::int64_t>();
  }
  if (auto it = j.find("max_size_bytes"); it != j.end() && !it->is_null()) {
    if (!it->is_number_unsigned()) return bad("\"max_size_bytes\" not a number");
    r.max_size_bytes = it->get<std::uint64_t>();
  }
  if (r.workspace_mode == WorkspaceMode::Worktree) {
    auto g = j.find("git");
    if (g == j.end() || !g->is_object() || !str(*g, "branch", r.git_branch) || !str(*g, "base", r.git_base) ||
        !str(*g, "git_dir", r.git_dir) || !str(*g, "common_dir", r.git_common_dir))
      return bad("\"git\" missing or incomplete");
  }
  for (const std::string* p : {&r.jail_root, &r.workspace_root, &r.source}) {
    if (p->empty() || (*p)[0] != '/') return bad("a path is not absolute: \"" + *p + "\"");
  }
  if (auto n = check_name(r.name); !n) return bad("name: " + n.error().message);
  return r;
}

}  // namespace paddock::jail
