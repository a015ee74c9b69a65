#include "undo/store.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "policy/path_util.h"
#include "sys/anchored_dir.h"
#include "undo/copy_file.h"
#include "sys/fsync_all.h"
#include "undo/sha256.h"

namespace paddock::undo {
namespace {

long g_crash_after = 0;

Result<std::string> read_all_at(int dirfd, const std::string& name, const std::string& where) {
  sys::UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return errno_error("cannot open", errno, where);
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = sys::retry_eintr([&] { return ::read(fd.get(), buf, sizeof(buf)); });
    if (n < 0) return errno_error("cannot read", errno, where);
    if (n == 0) break;
    out.append(buf, n);
  }
  return out;
}

Result<sys::UniqueFd> open_subdir(int dirfd, const char* name, bool create, const std::string& where) {
  if (create && ::mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST) return errno_error("cannot create", errno, where);
  sys::UniqueFd fd(::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return errno_error("cannot open", errno, where);
  return fd;
}

// Names in a directory (no "." / "..").
std::vector<std::string> dir_names(int dirfd) {
  std::vector<std::string> out;
  int own = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (own < 0) return out;
  DIR* d = ::fdopendir(own);
  if (d == nullptr) {
    ::close(own);
    return out;
  }
  while (struct dirent* de = ::readdir(d)) {
    std::string n = de->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  return out;
}

// objects.size (Store::object_bytes_known), when it is there and whole.
std::optional<std::uint64_t> read_known_size(int store_fd, const std::string& dir) {
  auto text = read_all_at(store_fd, "objects.size", dir + "/objects.size");
  if (!text) return std::nullopt;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\n') return std::nullopt;
  return std::uint64_t{v};
}

nlohmann::json exclude_json(const Exclude& e) {
  return {{"kind", e.kind == Exclude::Kind::Name ? "name" : "path"}, {"pattern", e.pattern}, {"why", e.why}};
}

// Creates DIR's missing components (0700). The directories above $XDG_STATE_HOME are the user's
// own and may be symlinks (/home -> /var/home): they are resolved; below, nothing is followed.
Result<std::string> make_store_dirs(const std::string& dir) {
  const std::string state = path::parent(path::parent(dir));  // above paddock/undo
  std::string existing = state;
  std::vector<std::string> missing;
  struct stat st;
  while (::stat(existing.c_str(), &st) != 0) {
    if (existing == "/") return errno_error("cannot reach", errno, state);
    missing.push_back(existing);
    existing = path::parent(existing);
  }
  char real[PATH_MAX];
  if (::realpath(existing.c_str(), real) == nullptr) return errno_error("cannot resolve", errno, existing);
  std::string base = real;
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    base = path::join(base, it->substr(it->rfind('/') + 1));
    if (::mkdir(base.c_str(), 0700) != 0 && errno != EEXIST) return errno_error("cannot create", errno, base);
  }
  const std::string full = path::join(path::join(base, "paddock"), "undo");
  for (const std::string& p : {path::join(base, "paddock"), full}) {
    if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) return errno_error("cannot create", errno, p);
  }
  return full;
}

}  // namespace

void set_crash_after(long n) { g_crash_after = n; }

void crash_point() {
  if (g_crash_after > 0 && --g_crash_after == 0) ::kill(::getpid(), SIGKILL);
}

std::string utc_iso(std::int64_t ns) {
  std::time_t t = ns / 1000000000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string new_session_id() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  std::tm tm{};
  gmtime_r(&ts.tv_sec, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof(buf), "%Y%m%d-%H%M%S", &tm);
  std::random_device rd;
  std::snprintf(buf + n, sizeof(buf) - n, "-%04x", static_cast<unsigned>(rd() & 0xffff));
  return buf;
}

bool valid_session_id(const std::string& id) {
  if (id.size() != 20) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (i == 8 || i == 15) {
      if (c != '-') return false;
    } else if (i > 15) {
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

Result<std::unique_ptr<Store>> Store::open(const std::string& dir_given, bool create) {
  std::string dir = path::normalize(dir_given);
  if (create) {
    auto made = make_store_dirs(dir);
    if (!made) return std::move(made).take_error();
    dir = *made;
  } else {
    char real[PATH_MAX];
    // Above the store only: the store directory itself is opened without following links.
    const std::string above = path::parent(path::parent(dir));
    if (::realpath(above.c_str(), real) != nullptr) dir = path::join(path::join(real, "paddock"), "undo");
  }
  std::unique_ptr<Store> s(new Store());
  s->dir_ = dir;
  auto fd = sys::open_dir_no_symlinks(dir);
  if (!fd) {
    if (fd.error().sys_errno == ENOENT) {
      return make_error("there is no undo store yet", dir, "paddock run --undo -- COMMAND records one");
    }
    return std::move(fd).take_error();
  }
  s->fd_ = std::move(*fd);
  struct stat st;
  if (::fstat(s->fd_.get(), &st) != 0) return errno_error("cannot stat", errno, dir);
  if (st.st_uid != ::geteuid()) {
    return make_error("the undo store belongs to uid " + std::to_string(st.st_uid) + ", not to you", dir,
                      "it must be your own directory");
  }
  if ((st.st_mode & 077) != 0) {
    if (!create) {
      char m[8];
      std::snprintf(m, sizeof(m), "%04o", static_cast<unsigned>(st.st_mode & 07777));
      return make_error(std::string("the undo store is open to other users (mode ") + m + ")", dir, "chmod 700 " + dir);
    }
    if (::fchmod(s->fd_.get(), 0700) != 0) return errno_error("chmod", errno, dir);
  }
  // The version: a store from a newer paddock is refused, never rewritten.
  auto v = read_all_at(s->fd_.get(), "VERSION", dir + "/VERSION");
  if (v) {
    int version = 0;
    if (std::sscanf(v->c_str(), "paddock-undo-store %d", &version) != 1) {
      return make_error("not an undo store version file", dir + "/VERSION");
    }
    if (version > kStoreVersion) {
      return make_error("the undo store has format " + std::to_string(version) + ", newer than this paddock's (" +
                            std::to_string(kStoreVersion) + ")",
                        dir, "use the newer paddock that wrote it");
    }
    s->version_ = version;
  } else if (v.error().sys_errno == ENOENT) {
    if (auto w = sys::write_file_at(s->fd_.get(), "VERSION",
                                    "paddock-undo-store " + std::to_string(kSessionDeltaStoreVersion) + "\n", 0600);
        !w)
      return std::move(w).take_error();
    s->version_ = kSessionDeltaStoreVersion;
  } else {
    return std::move(v).take_error();
  }
  auto objects = open_subdir(s->fd_.get(), "objects", true, dir + "/objects");
  if (!objects) return std::move(objects).take_error();
  s->objects_ = std::move(*objects);
  auto sessions = open_subdir(s->fd_.get(), "sessions", true, dir + "/sessions");
  if (!sessions) return std::move(sessions).take_error();
  s->sessions_ = std::move(*sessions);
  auto tmp = open_subdir(s->fd_.get(), "tmp", true, dir + "/tmp");
  if (!tmp) return std::move(tmp).take_error();
  s->tmp_ = std::move(*tmp);
  return s;
}

Result<void> Store::lock() {
  if (lock_) return {};
  sys::UniqueFd fd(::openat(fd_.get(), "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot open", errno, dir_ + "/lock");
  if (sys::retry_eintr([&] { return ::flock(fd.get(), LOCK_EX); }) != 0) return errno_error("flock", errno, dir_ + "/lock");
  lock_ = std::move(fd);
  // Whatever a writer killed half-way left in tmp/ (objects never renamed, a session being pruned).
  for (const auto& n : dir_names(tmp_.get())) {
    if (::unlinkat(tmp_.get(), n.c_str(), 0) == 0) continue;
    auto sub = open_subdir(tmp_.get(), n.c_str(), false, n);
    if (sub) {
      for (const auto& m : dir_names(sub->get())) ::unlinkat(sub->get(), m.c_str(), 0);
    }
    ::unlinkat(tmp_.get(), n.c_str(), AT_REMOVEDIR);
  }
  return {};
}

bool Store::has_object(const std::string& hash) const {
  struct stat st;
  const std::string rel = hash.substr(0, 2) + "/" + hash.substr(2);
  return ::fstatat(objects_.get(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

Result<std::string> Store::put_object(int src_fd, std::uint64_t* bytes_new, bool* is_new) {
  const std::string name = "o" + std::to_string(::getpid()) + "-" + std::to_string(tmp_counter_++);
  sys::UniqueFd out(::openat(tmp_.get(), name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400));
  if (!out) return errno_error("cannot create an object", errno, dir_ + "/tmp");
  auto drop = [&](Error e) -> Result<std::string> {
    ::unlinkat(tmp_.get(), name.c_str(), 0);
    return e;
  };
  if (auto c = copy_file_content(src_fd, out.get()); !c) return drop(std::move(c).take_error());
  // The name comes from the copy, which nothing else writes: it always matches the content, even
  // if the source changes meanwhile.
  Sha256 h;
  std::uint64_t size = 0;
  char buf[1 << 16];
  for (off_t off = 0;;) {
    ssize_t n = sys::retry_eintr([&] { return ::pread(out.get(), buf, sizeof(buf), off); });
    if (n < 0) return drop(errno_error("cannot read back an object", errno, dir_ + "/tmp"));
    if (n == 0) break;
    h.update(buf, n);
    off += n;
    size += n;
  }
  std::string hash = h.hex_digest();
  const bool pending = pending_hashes_.count(hash) != 0;
  if (pending || has_object(hash)) {
    ::unlinkat(tmp_.get(), name.c_str(), 0);
    if (is_new) *is_new = false;
    return hash;
  }
  pending_.push_back({name, hash});
  pending_hashes_.insert(hash);
  if (bytes_new) *bytes_new += size;
  if (is_new) *is_new = true;
  crash_point();
  return hash;
}

Result<void> Store::commit_objects() {
  if (pending_.empty()) return {};
  // Durable before they are named: a few objects (a run's changes) each with its fsync, many (a
  // first snapshot) with one syncfs, which also flushes everything else the file system holds
  // (on a busy machine 100 ms and more: more than a snapshot's walk).
  const bool few = pending_.size() <= kFsyncEach;
  if (syncfs_ && few) {
    // Together (sys/fsync_all.h): one journal commit and device flush for all, not one each.
    std::vector<sys::UniqueFd> files;
    std::vector<int> fds;
    std::vector<std::string> names;
    for (const auto& p : pending_) {
      files.emplace_back(::openat(tmp_.get(), p.tmp_name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      if (!files.back()) return errno_error("cannot open", errno, dir_ + "/tmp/" + p.tmp_name);
      fds.push_back(files.back().get());
      names.push_back(dir_ + "/tmp/" + p.tmp_name);
    }
    if (auto f = sys::fsync_all(fds, names); !f) return f;
  } else if (syncfs_ && ::syncfs(tmp_.get()) != 0) {
    return errno_error("syncfs", errno, dir_);
  }
  crash_point();
  for (const auto& p : pending_) {
    const std::string sub = p.hash.substr(0, 2);
    if (::mkdirat(objects_.get(), sub.c_str(), 0700) != 0 && errno != EEXIST) {
      return errno_error("cannot create", errno, dir_ + "/objects/" + sub);
    }
    const std::string rel = sub + "/" + p.hash.substr(2);
    if (::renameat(tmp_.get(), p.tmp_name.c_str(), objects_.get(), rel.c_str()) != 0) {
      return errno_error("cannot store an object", errno, dir_ + "/objects/" + rel);
    }
    crash_point();
  }
  // The store's size as object_bytes_known() keeps it, when it keeps it: these objects added.
  std::uint64_t added = 0;
  for (const auto& p : pending_) {
    struct stat st;
    const std::string rel = p.hash.substr(0, 2) + "/" + p.hash.substr(2);
    if (::fstatat(objects_.get(), rel.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) added += st.st_blocks * 512;
  }
  // The renames durable: the directories they were made in.
  if (syncfs_ && few) {
    std::set<std::string> subs;
    for (const auto& p : pending_) subs.insert(p.hash.substr(0, 2));
    std::vector<sys::UniqueFd> dirs;
    std::vector<int> fds{objects_.get()};
    std::vector<std::string> names{dir_ + "/objects"};
    for (const auto& sub : subs) {
      dirs.emplace_back(::openat(objects_.get(), sub.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!dirs.back()) return errno_error("cannot open", errno, dir_ + "/objects/" + sub);
      fds.push_back(dirs.back().get());
      names.push_back(dir_ + "/objects/" + sub);
    }
    if (auto f = sys::fsync_all(fds, names); !f) return f;
  }
  pending_.clear();
  pending_hashes_.clear();
  if (syncfs_ && !few && ::syncfs(objects_.get()) != 0) return errno_error("syncfs", errno, dir_);
  if (auto known = read_known_size(fd_.get(), dir_))
    (void)sys::write_file_at(fd_.get(), "objects.size", std::to_string(*known + added) + "\n", 0600);
  return {};
}

void Store::discard_pending() {
  for (const auto& p : pending_) ::unlinkat(tmp_.get(), p.tmp_name.c_str(), 0);
  pending_.clear();
  pending_hashes_.clear();
}

Result<sys::UniqueFd> Store::open_object(const std::string& hash) const {
  if (!is_hash_hex(hash)) return make_error("not an object name: " + hash);
  const std::string rel = hash.substr(0, 2) + "/" + hash.substr(2);
  sys::UniqueFd fd(::openat(objects_.get(), rel.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd) return errno_error("the store has lost an object", errno, dir_ + "/objects/" + rel);
  return fd;
}

Result<std::vector<std::string>> Store::session_ids() const {
  std::vector<std::string> out;
  for (auto& n : dir_names(sessions_.get())) {
    if (valid_session_id(n)) out.push_back(std::move(n));
  }
  // An id names its second only (then 4 random hex digits): sessions of one second are ordered by
  // the time each was created (one unreadable sorts by its id).
  std::vector<std::pair<std::int64_t, std::string>> by_time;
  for (auto& id : out) {
    auto s = load_session(id);
    by_time.emplace_back(s ? s->created_ns : 0, std::move(id));
  }
  std::sort(by_time.begin(), by_time.end(), [](const auto& a, const auto& b) {
    const std::string_view sa = std::string_view(a.second).substr(0, 15), sb = std::string_view(b.second).substr(0, 15);
    if (sa != sb) return sa < sb;
    return a < b;
  });
  out.clear();
  for (auto& [ns, id] : by_time) out.push_back(std::move(id));
  return out;
}

Result<sys::UniqueFd> Store::session_dir(const std::string& id, bool create) const {
  if (!valid_session_id(id)) return make_error("not a session id: \"" + id + "\"", {}, "paddock undo list shows them");
  auto fd = open_subdir(sessions_.get(), id.c_str(), create, dir_ + "/sessions/" + id);
  if (!fd && fd.error().sys_errno == ENOENT) {
    return make_error("no session " + id + " in the undo store", dir_, "paddock undo list shows them");
  }
  return fd;
}

Result<SessionInfo> Store::load_session(const std::string& id) const {
  auto d = session_dir(id, false);
  if (!d) return std::move(d).take_error();
  const std::string where = dir_ + "/sessions/" + id + "/session.json";
  auto text = read_all_at(d->get(), "session.json", where);
  if (!text) return std::move(text).take_error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return make_error("not valid JSON", where);
  SessionInfo s;
  try {
    s.version = j.at("version").get<int>();
    if (s.version > kStoreVersion) {
      return make_error("session format " + std::to_string(s.version) + " is newer than this paddock's", where);
    }
    s.id = j.at("id").get<std::string>();
    if (s.id != id) return make_error("the session names another id (" + s.id + ")", where);
    s.created = j.at("created").get<std::string>();
    s.created_ns = j.at("created_ns").get<std::int64_t>();
    s.command = j.at("command").get<std::vector<std::string>>();
    s.cwd = j.at("cwd").get<std::string>();
    s.roots = j.at("roots").get<std::vector<std::string>>();
    for (const auto& e : j.at("excludes")) {
      Exclude x;
      x.kind = e.at("kind").get<std::string>() == "path" ? Exclude::Kind::Path : Exclude::Kind::Name;
      x.pattern = e.at("pattern").get<std::string>();
      x.why = e.at("why").get<std::string>();
      s.excludes.push_back(std::move(x));
    }
    s.not_captured = j.value("not_captured", std::vector<std::string>{});
    s.incomplete = j.value("incomplete", std::string());
    s.home = j.value("home", std::string());
    s.budget = j.value("budget", std::uint64_t{0});
    s.budget_refused = j.value("budget_refused", 0);
    if (j.contains("base")) {
      s.base_session = j.at("base").at("session").get<std::string>();
      s.base_snapshot = j.at("base").at("snapshot").get<int>();
      if (!valid_session_id(s.base_session) || s.base_session == s.id || s.base_snapshot < 0)
        return make_error("a bad base", where);
    }
    for (const auto& e : j.at("snapshots")) {
      SnapshotInfo si;
      si.n = e.at("n").get<int>();
      si.time = e.at("time").get<std::string>();
      si.time_ns = e.at("time_ns").get<std::int64_t>();
      si.label = e.at("label").get<std::string>();
      si.entries = e.at("entries").get<std::uint64_t>();
      si.files_hashed = e.at("files_hashed").get<std::uint64_t>();
      si.bytes_read = e.value("bytes_read", std::uint64_t{0});
      si.objects_new = e.at("objects_new").get<std::uint64_t>();
      si.bytes_new = e.at("bytes_new").get<std::uint64_t>();
      si.elapsed_us = e.value("elapsed_us", std::int64_t{0});
      s.snapshots.push_back(std::move(si));
    }
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("a field is missing or has the wrong type: ") + e.what(), where);
  }
  return s;
}

Result<void> Store::save_session(const SessionInfo& s) {
  auto d = session_dir(s.id, true);
  if (!d) return std::move(d).take_error();
  nlohmann::json j;
  // A session stored against another is one an older paddock would misread.
  j["version"] = s.base_session.empty() ? kSessionDeltaStoreVersion : kStoreVersion;
  j["id"] = s.id;
  j["created"] = s.created;
  j["created_ns"] = s.created_ns;
  j["command"] = s.command;
  j["cwd"] = s.cwd;
  j["roots"] = s.roots;
  j["excludes"] = nlohmann::json::array();
  for (const auto& e : s.excludes) j["excludes"].push_back(exclude_json(e));
  j["not_captured"] = s.not_captured;
  if (!s.incomplete.empty()) j["incomplete"] = s.incomplete;
  if (!s.home.empty()) j["home"] = s.home;
  if (s.budget != 0) j["budget"] = s.budget;
  if (s.budget_refused != 0) j["budget_refused"] = s.budget_refused;
  if (!s.base_session.empty()) j["base"] = {{"session", s.base_session}, {"snapshot", s.base_snapshot}};
  j["snapshots"] = nlohmann::json::array();
  for (const auto& si : s.snapshots) {
    j["snapshots"].push_back({{"n", si.n},
                              {"time", si.time},
                              {"time_ns", si.time_ns},
                              {"label", si.label},
                              {"entries", si.entries},
                              {"files_hashed", si.files_hashed},
                              {"bytes_read", si.bytes_read},
                              {"objects_new", si.objects_new},
                              {"bytes_new", si.bytes_new},
                              {"elapsed_us", si.elapsed_us}});
  }
  auto w = sys::write_file_at(d->get(), "session.json", j.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", 0600);
  crash_point();
  return w;
}

Result<Manifest> Store::load_manifest(const std::string& id, int n) const {
  std::optional<Seed> none;
  int unused = -1;
  return load_manifest_at(id, n, 0, none, unused);
}

Result<Manifest> Store::load_manifest_seeded(const std::string& id, int n, std::optional<Seed>& seed, int& hops) const {
  hops = -1;
  return load_manifest_at(id, n, 0, seed, hops);
}

Result<Manifest> Store::load_manifest_at(const std::string& id, int n, int hops, std::optional<Seed>& seed,
                                         int& seed_hops) const {
  auto d = session_dir(id, false);
  if (!d) return std::move(d).take_error();
  const std::string dir = dir_ + "/sessions/" + id + "/";
  // Stored as a delta: the deltas back to the nearest full manifest, applied forward; a snapshot
  // 0 stored against another session's continues there.
  std::vector<Delta> chain;
  auto forward = [&](Manifest m) -> Result<Manifest> {
    int k = n - static_cast<int>(chain.size());
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      if (auto a = apply_delta(m, *it, dir + std::to_string(++k) + ".delta"); !a) return std::move(a).take_error();
    }
    return m;
  };
  for (int k = n;; --k) {
    if (seed && seed->session == id && seed->n == k) {
      // The seed holds this snapshot whole: the chain starts there.
      Manifest m = std::move(seed->manifest);
      seed.reset();
      seed_hops = hops;
      return forward(std::move(m));
    }
    const std::string where = dir + std::to_string(k) + ".manifest";
    auto t = read_all_at(d->get(), std::to_string(k) + ".manifest", where);
    if (t) {
      auto m = parse_manifest(*t, where);
      if (!m) return std::move(m).take_error();
      return forward(std::move(*m));
    }
    if (t.error().sys_errno != ENOENT) return std::move(t).take_error();
    auto delta = load_delta(id, k);
    if (!delta) return std::move(delta).take_error();
    if (!*delta) {
      if (k == 0) return make_error("no full manifest before it", dir + std::to_string(n) + ".manifest");
      return make_error("neither a manifest nor a delta for snapshot " + std::to_string(k), where);
    }
    const std::string base_session = (*delta)->base_session;
    const int base = (*delta)->base;
    chain.push_back(std::move(**delta));
    if (k == 0) {
      // Each session in a chain was stored at most kMaxBaseChain deep; more is a loop or damage.
      if (hops >= 4 * kMaxBaseChain) return make_error("a chain of sessions' first snapshots too long (a loop?)", where);
      auto m = load_manifest_at(base_session, base, hops + 1, seed, seed_hops);
      if (!m) return make_error("snapshot 0 is stored against " + base_session + ":" + std::to_string(base) +
                                    ", which cannot be read: " + m.error().describe(),
                                dir + "0.delta");
      return forward(std::move(*m));
    }
  }
}

Result<std::optional<Delta>> Store::load_delta(const std::string& id, int n) const {
  auto d = session_dir(id, false);
  if (!d) return std::move(d).take_error();
  const std::string name = std::to_string(n) + ".delta";
  const std::string where = dir_ + "/sessions/" + id + "/" + name;
  auto text = read_all_at(d->get(), name, where);
  if (!text) {
    if (text.error().sys_errno == ENOENT) return std::optional<Delta>();
    return std::move(text).take_error();
  }
  auto delta = parse_delta(*text, where);
  if (!delta) return std::move(delta).take_error();
  // Snapshot 0 only against another session's snapshot; every later one against the one before.
  if (n == 0 ? delta->base_session.empty() || delta->base_session == id
             : !delta->base_session.empty() || delta->base != n - 1)
    return make_error("the delta is against snapshot " + (delta->base_session.empty() ? "" : delta->base_session + ":") +
                          std::to_string(delta->base),
                      where);
  return std::optional<Delta>(std::move(*delta));
}

Result<void> Store::mark_version(int version) {
  if (version_ >= version) return {};
  if (auto w = sys::write_file_at(fd_.get(), "VERSION", "paddock-undo-store " + std::to_string(version) + "\n", 0600); !w)
    return w;
  version_ = version;
  crash_point();
  return {};
}

Result<void> Store::save_delta(const std::string& id, int n, const Delta& delta) {
  // The store is marked before it holds what an older paddock would misread (a version 1 store
  // its first delta, a version 2 store its first delta against another session): that paddock
  // then refuses it instead of missing snapshots.
  if (auto m = mark_version(delta.base_session.empty() ? kSessionDeltaStoreVersion : kStoreVersion); !m) return m;
  auto d = session_dir(id, true);
  if (!d) return std::move(d).take_error();
  auto w = sys::write_file_at(d->get(), std::to_string(n) + ".delta", serialize_delta(delta), 0600);
  crash_point();
  return w;
}

Result<std::vector<RootDelta>> Store::load_meta(const std::string& id, int n) const {
  auto delta = load_delta(id, n);
  if (!delta) return std::move(delta).take_error();
  std::vector<RootDelta> out;
  if (*delta) {
    for (auto& r : (*delta)->roots) out.push_back({std::move(r.meta), r.entries, {}});
    return out;
  }
  auto d = session_dir(id, false);
  if (!d) return std::move(d).take_error();
  const std::string name = std::to_string(n) + ".manifest";
  const std::string where = dir_ + "/sessions/" + id + "/" + name;
  auto text = read_all_at(d->get(), name, where);
  if (!text) return std::move(text).take_error();
  // The entry lines are counted, not parsed (a start, an exclude, a note never begins "e ").
  std::string kept;
  std::vector<std::uint64_t> counts;
  std::uint64_t skipped = 0;
  for (std::size_t pos = 0; pos < text->size();) {
    std::size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) return make_error("the file ends in the middle of a line (torn)", where);
    if (text->compare(pos, 2, "e ") == 0) {
      ++skipped;
      if (!counts.empty()) ++counts.back();
    } else if (text->compare(pos, 4, "end ") == 0) {
      kept += "end 0\n";
      if (text->compare(pos + 4, nl - pos - 4, std::to_string(skipped)) != 0) {
        return make_error("the entry count does not match (torn or edited)", where);
      }
    } else {
      if (text->compare(pos, 5, "root ") == 0) counts.push_back(0);
      kept.append(*text, pos, nl + 1 - pos);
    }
    pos = nl + 1;
  }
  auto m = parse_manifest(kept, where);
  if (!m) return std::move(m).take_error();
  if (m->roots.size() != counts.size()) return make_error("a bad root line", where);
  for (std::size_t k = 0; k < counts.size(); ++k) out.push_back({std::move(m->roots[k]), counts[k], {}});
  return out;
}

Result<void> Store::save_manifest(const std::string& id, int n, const Manifest& m) {
  auto d = session_dir(id, true);
  if (!d) return std::move(d).take_error();
  auto w = sys::write_file_at(d->get(), std::to_string(n) + ".manifest", serialize_manifest(m), 0600);
  crash_point();
  return w;
}

Result<void> Store::remove_session(const std::string& id) {
  auto d = session_dir(id, false);
  if (!d) return std::move(d).take_error();
  // The sessions whose snapshot 0 is stored against one of this one's get it in full first.
  auto ids = session_ids();
  if (!ids) return std::move(ids).take_error();
  for (const std::string& other : *ids) {
    if (other == id) continue;
    auto od = session_dir(other, false);
    struct stat st;
    if (!od || ::fstatat(od->get(), "0.manifest", &st, AT_SYMLINK_NOFOLLOW) == 0) continue;
    auto delta = load_delta(other, 0);
    if (!delta || !*delta || (*delta)->base_session != id) continue;
    auto m = load_manifest(other, 0);
    if (!m) return make_error("cannot remove the session: " + other + " is stored against it and " + m.error().describe(),
                              dir_ + "/sessions/" + id);
    if (auto w = save_manifest(other, 0, *m); !w) return w;
    // Then the delta goes (its "before" entries would keep this session's objects alive).
    auto os = load_session(other);
    if (!os) return std::move(os).take_error();
    os->base_session.clear();
    os->base_snapshot = 0;
    if (auto w = save_session(*os); !w) return w;
    if (::unlinkat(od->get(), "0.delta", 0) != 0 && errno != ENOENT)
      return errno_error("cannot remove", errno, dir_ + "/sessions/" + other + "/0.delta");
    crash_point();
  }
  // Moved out of sessions/ in one rename, then emptied: a crash leaves it in tmp/, not half a session.
  const std::string gone = "s-" + id;
  if (::renameat(sessions_.get(), id.c_str(), tmp_.get(), gone.c_str()) != 0) {
    return errno_error("cannot remove the session", errno, dir_ + "/sessions/" + id);
  }
  crash_point();
  for (const auto& m : dir_names(d->get())) ::unlinkat(d->get(), m.c_str(), 0);
  ::unlinkat(tmp_.get(), gone.c_str(), AT_REMOVEDIR);
  return {};
}

Result<int> Store::base_chain(const std::string& id) const {
  std::string at = id;
  for (int depth = 0; depth <= 4 * kMaxBaseChain; ++depth) {
    auto d = session_dir(at, false);
    if (!d) return std::move(d).take_error();
    struct stat st;
    if (::fstatat(d->get(), "0.manifest", &st, AT_SYMLINK_NOFOLLOW) == 0) return depth;
    auto delta = load_delta(at, 0);
    if (!delta) return std::move(delta).take_error();
    if (!*delta) return make_error("snapshot 0 is neither a manifest nor a delta", dir_ + "/sessions/" + at);
    at = (*delta)->base_session;
  }
  return make_error("a chain of sessions' first snapshots too long (a loop?)", dir_ + "/sessions/" + id);
}

Result<void> Store::save_seed(const Seed& s) {
  std::vector<std::string> roots;
  for (const auto& r : s.manifest.roots) roots.push_back(r.root);
  auto d = open_subdir(fd_.get(), "seeds", true, dir_ + "/seeds");
  if (!d) return std::move(d).take_error();
  return sys::write_file_at(d->get(), seed_name(roots), serialize_seed(s), 0600);
}

std::optional<Seed> Store::load_seed(const std::vector<std::string>& roots) const {
  auto d = open_subdir(fd_.get(), "seeds", false, dir_ + "/seeds");
  if (!d) return std::nullopt;
  const std::string name = seed_name(roots);
  auto text = read_all_at(d->get(), name, dir_ + "/seeds/" + name);
  if (!text) return std::nullopt;
  auto s = parse_seed(*text, dir_ + "/seeds/" + name);
  if (!s || s->manifest.roots.size() != roots.size()) return std::nullopt;
  for (std::size_t i = 0; i < roots.size(); ++i)
    if (s->manifest.roots[i].root != roots[i]) return std::nullopt;
  return std::move(*s);
}

Result<void> Store::save_last(const std::vector<std::string>& roots, const std::string& session) {
  auto d = open_subdir(fd_.get(), "seeds", true, dir_ + "/seeds");
  if (!d) return std::move(d).take_error();
  return sys::write_file_at(d->get(), seed_name(roots) + ".last", session + "\n", 0600);
}

std::string Store::load_last(const std::vector<std::string>& roots) const {
  auto d = open_subdir(fd_.get(), "seeds", false, dir_ + "/seeds");
  if (!d) return {};
  auto text = read_all_at(d->get(), seed_name(roots) + ".last", dir_ + "/seeds");
  if (!text || text->empty() || text->back() != '\n') return {};
  std::string id = text->substr(0, text->size() - 1);
  return valid_session_id(id) ? id : std::string();
}

Result<std::optional<Journal>> Store::load_journal() const {
  const std::string where = dir_ + "/journal";
  auto text = read_all_at(fd_.get(), "journal", where);
  if (!text) {
    if (text.error().sys_errno == ENOENT) return std::optional<Journal>();
    return std::move(text).take_error();
  }
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return make_error("not valid JSON", where);
  Journal out;
  try {
    out.version = j.at("version").get<int>();
    if (out.version > kStoreVersion) return make_error("journal format newer than this paddock's", where);
    out.session = j.at("session").get<std::string>();
    out.target = j.at("target").get<int>();
    out.before = j.at("before").get<int>();
    out.paths = j.at("paths").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("a field is missing or has the wrong type: ") + e.what(), where);
  }
  return std::optional<Journal>(out);
}

Result<void> Store::save_journal(const Journal& jr) {
  nlohmann::json j{{"version", kSessionDeltaStoreVersion},
                   {"session", jr.session},
                   {"target", jr.target},
                   {"before", jr.before},
                   {"paths", jr.paths}};
  auto w = sys::write_file_at(fd_.get(), "journal", j.dump() + "\n", 0600);
  crash_point();
  return w;
}

Result<void> Store::remove_journal() {
  if (::unlinkat(fd_.get(), "journal", 0) != 0 && errno != ENOENT) return errno_error("cannot remove", errno, dir_ + "/journal");
  if (::fsync(fd_.get()) != 0) return errno_error("fsync", errno, dir_);
  return {};
}

Result<Store::GcStats> Store::collect_garbage() {
  std::set<std::string> live;
  auto ids = session_ids();
  if (!ids) return std::move(ids).take_error();
  for (const auto& id : *ids) {
    auto d = session_dir(id, false);
    if (!d) return std::move(d).take_error();
    for (const auto& name : dir_names(d->get())) {
      const std::string where = dir_ + "/sessions/" + id + "/" + name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".delta") == 0) {
        auto text = read_all_at(d->get(), name, where);
        if (!text) return std::move(text).take_error();
        auto delta = parse_delta(*text, where);
        if (!delta) return make_error("not collecting garbage: " + delta.error().describe(), dir_);
        for (const auto& r : delta->roots) {
          for (const auto& c : r.changes) {
            for (const auto* e : {&c.before, &c.after}) {
              if (*e && !(*e)->hash.empty()) live.insert((*e)->hash);
            }
          }
        }
        continue;
      }
      if (name.size() < 10 || name.compare(name.size() - 9, 9, ".manifest") != 0) continue;
      auto text = read_all_at(d->get(), name, where);
      if (!text) return std::move(text).take_error();
      auto m = parse_manifest(*text, where);
      // A manifest that cannot be read keeps everything: nothing is removed on a doubt.
      if (!m) return make_error("not collecting garbage: " + m.error().describe(), dir_);
      for (const auto& r : m->roots) {
        for (const auto& e : r.entries) {
          if (!e.hash.empty()) live.insert(e.hash);
        }
      }
    }
  }
  GcStats st;
  // The kept total is counted again by the next run that asks (object_bytes_known).
  ::unlinkat(fd_.get(), "objects.size", 0);
  for (const auto& sub : dir_names(objects_.get())) {
    auto d = open_subdir(objects_.get(), sub.c_str(), false, sub);
    if (!d) continue;
    for (const auto& name : dir_names(d->get())) {
      struct stat s;
      if (::fstatat(d->get(), name.c_str(), &s, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (live.count(sub + name)) {
        ++st.objects_kept;
        st.bytes_kept += s.st_size;
        continue;
      }
      if (::unlinkat(d->get(), name.c_str(), 0) == 0) {
        ++st.objects_removed;
        st.bytes_removed += s.st_size;
      }
    }
  }
  return st;
}

Result<std::uint64_t> Store::object_bytes_known() {
  if (auto known = read_known_size(fd_.get(), dir_)) return *known;
  auto total = object_bytes();
  if (!total) return total;
  (void)sys::write_file_at(fd_.get(), "objects.size", std::to_string(*total) + "\n", 0600);
  return total;
}

Result<std::uint64_t> Store::object_bytes() const {
  std::uint64_t total = 0;
  for (const auto& sub : dir_names(objects_.get())) {
    auto d = open_subdir(objects_.get(), sub.c_str(), false, sub);
    if (!d) continue;
    for (const auto& name : dir_names(d->get())) {
      struct stat s;
      if (::fstatat(d->get(), name.c_str(), &s, AT_SYMLINK_NOFOLLOW) == 0) total += s.st_blocks * 512;
    }
  }
  return total;
}

}  // namespace paddock::undo
