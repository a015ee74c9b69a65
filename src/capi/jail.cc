// The C API's jails: create, show, list, diff, rm (paddock/paddock.h; docs/jails.md). Running a
// command in a jail (`paddock jail exec`) is not a library call yet: src/cli/cmd_jail.cc wires
// the jail into `paddock run` itself.
#include "capi/handles.h"
#include "paddock/jail.h"
#include "paddock/jail_backend.h"
#include "paddock/profile.h"
#include "policy/path_util.h"

namespace paddock::capi {
namespace {

constexpr std::size_t kJailCreateOptionsV1 = sizeof(paddock_jail_create_options);

std::string or_default(const char* s, const char* dflt) { return s != nullptr && *s != '\0' ? s : dflt; }

Result<jail::CreateOptions> create_options(const paddock_jail_create_options& o) {
  jail::CreateOptions c;
  c.name = or_empty(o.name);
  if (auto n = jail::check_name(c.name); !n) return std::move(n).take_error();
  auto ws = jail::parse_workspace_mode(or_default(o.workspace, "copy"));
  if (!ws) return std::move(ws).take_error();
  auto home = jail::parse_home_mode(or_default(o.home, "stable"));
  if (!home) return std::move(home).take_error();
  c.workspace = *ws;
  c.home = *home;
  c.backend = or_default(o.backend, "native");
  if (auto b = jail::make_jail(c.backend); !b) return std::move(b).take_error();
  auto ctx = HostContext::from_process();
  if (!ctx) return std::move(ctx).take_error();
  c.source = path::normalize(absolute_path(or_default(o.source, "."), *ctx));
  c.profile = or_default(o.profile, "default");
  auto prof = find_profile(c.profile, *ctx);
  if (!prof) return std::move(prof).take_error();
  c.profile_root = prof->file.rfind("<built-in", 0) == 0 ? "" : prof->file;
  return c;
}

Result<jail::Runtime> load(const char* name) {
  auto st = jail::Store::open_default();
  if (!st) return std::move(st).take_error();
  return st->load(or_empty(name));
}

}  // namespace
}  // namespace paddock::capi

using namespace paddock;
using namespace paddock::capi;

extern "C" {

paddock_error* paddock_jail_create(const paddock_jail_create_options* given, char** runtime_json) {
  return guarded([&]() -> paddock_error* {
    auto o = read_options(given, kJailCreateOptionsV1, "paddock_jail_create_options");
    if (!o) return to_c(std::move(o).take_error());
    auto c = create_options(*o);
    if (!c) return to_c(std::move(c).take_error());
    auto st = jail::Store::open_default();
    if (!st) return to_c(std::move(st).take_error());
    auto r = st->create(*c);
    if (!r) return to_c(std::move(r).take_error());
    *runtime_json = dup_string(json_text(jail::runtime_to_json(*r)));
    return nullptr;
  });
}

paddock_error* paddock_jail_show(const char* name, char** runtime_json) {
  return guarded([&]() -> paddock_error* {
    auto r = load(name);
    if (!r) return to_c(std::move(r).take_error());
    *runtime_json = dup_string(json_text(jail::runtime_to_json(*r)));
    return nullptr;
  });
}

paddock_error* paddock_jail_list(char** json_array) {
  return guarded([&]() -> paddock_error* {
    auto st = jail::Store::open_default();
    if (!st) return to_c(std::move(st).take_error());
    auto all = st->list();
    if (!all) return to_c(std::move(all).take_error());
    nlohmann::json j = nlohmann::json::array();
    for (const jail::Runtime& r : *all) j.push_back(jail::runtime_to_json(r));
    *json_array = dup_string(json_text(j));
    return nullptr;
  });
}

paddock_error* paddock_jail_diff(const char* name, int with_patch, char** json_out) {
  return guarded([&]() -> paddock_error* {
    auto r = load(name);
    if (!r) return to_c(std::move(r).take_error());
    auto d = jail::diff(*r, with_patch != 0);
    if (!d) return to_c(std::move(d).take_error());
    nlohmann::json j{{"changes", nlohmann::json::array()}, {"patch", d->patch}};
    for (const jail::Change& c : d->changes)
      j["changes"].push_back({{"kind", std::string(1, c.kind)}, {"path", c.path}, {"held", c.held}});
    *json_out = dup_string(json_text(j));
    return nullptr;
  });
}

paddock_error* paddock_jail_rm(const char* name, int force) {
  return guarded([&]() -> paddock_error* {
    auto st = jail::Store::open_default();
    if (!st) return to_c(std::move(st).take_error());
    if (auto r = jail::remove_jail(*st, or_empty(name), force != 0); !r) return to_c(std::move(r).take_error());
    return nullptr;
  });
}

}  // extern "C"
