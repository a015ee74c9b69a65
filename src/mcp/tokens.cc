#include "mcp/tokens.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "mcp/http_transport.h"
#include "sys/unique_fd.h"

namespace paddock::mcp {
namespace {

constexpr std::size_t kMaxFileBytes = 64 * 1024;
constexpr std::size_t kMinSecret = 16;

bool valid_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  return std::all_of(n.begin(), n.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
  });
}

bool printable_secret(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c <= '~'; });
}

struct Word {
  std::string_view text;
  std::size_t col;  // 1-based
};

std::vector<Word> split_words(std::string_view line) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back({line.substr(start, i - start), start + 1});
  }
  return words;
}

Result<unsigned> parse_count(std::string_view v) {
  if (v.empty() || v.size() > 9 || !std::all_of(v.begin(), v.end(), ::isdigit))
    return make_error("expected a whole number");
  return static_cast<unsigned>(std::stoul(std::string(v)));
}

}  // namespace

TokenSet TokenSet::single(std::string secret) {
  Token t;
  t.name = "default";
  t.secret = std::move(secret);
  t.metrics = true;
  return TokenSet({std::move(t)});
}

const Token* TokenSet::match(std::string_view authorization) const {
  const Token* found = nullptr;
  for (const auto& t : tokens_)
    if (bearer_matches(authorization, t.secret) && !found) found = &t;
  return found;
}

Result<TokenSet> parse_token_file(std::string_view text, const std::string& source) {
  auto at = [&](std::size_t line, std::size_t col) {
    return source + ":" + std::to_string(line) + ":" + std::to_string(col);
  };
  std::vector<Token> tokens;
  std::set<std::string> names, secrets;
  std::vector<std::pair<std::size_t, std::vector<Word>>> lines;
  std::size_t lineno = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++lineno;
    pos = end + 1;
    // A comment starts a line or follows a blank: tokens may contain '#'.
    for (std::size_t hash = line.find('#'); hash != std::string_view::npos; hash = line.find('#', hash + 1)) {
      if (hash == 0 || line[hash - 1] == ' ' || line[hash - 1] == '\t') {
        line = line.substr(0, hash);
        break;
      }
    }
    auto words = split_words(line);
    if (!words.empty()) lines.emplace_back(lineno, std::move(words));
    if (end == text.size()) break;
  }
  // The format before names: the whole file is one bare token.
  if (lines.size() == 1 && lines[0].second.size() == 1) {
    const Word& w = lines[0].second[0];
    if (w.text.size() < kMinSecret)
      return make_error("token is shorter than 16 characters", at(lines[0].first, w.col));
    if (!printable_secret(w.text))
      return make_error("token must be printable ASCII without spaces", at(lines[0].first, w.col));
    return TokenSet::single(std::string(w.text));
  }
  for (const auto& [ln, words] : lines) {
    const Word& name = words[0];
    if (!valid_name(name.text))
      return make_error("token name must be 1-64 letters, digits, '_', '-' or '.'", at(ln, name.col),
                        "each line is NAME TOKEN [max_concurrency=N] [calls_per_minute=N] [scope=...]");
    if (words.size() < 2)
      return make_error("token \"" + std::string(name.text) + "\" has no secret", at(ln, name.col + name.text.size()),
                        "each line is NAME TOKEN [max_concurrency=N] [calls_per_minute=N] [scope=...]");
    Token t;
    t.name = std::string(name.text);
    const Word& secret = words[1];
    if (secret.text.size() < kMinSecret)
      return make_error("token is shorter than 16 characters", at(ln, secret.col));
    if (!printable_secret(secret.text))
      return make_error("token must be printable ASCII without spaces", at(ln, secret.col));
    t.secret = std::string(secret.text);
    for (std::size_t i = 2; i < words.size(); ++i) {
      const Word& w = words[i];
      auto eq = w.text.find('=');
      std::string_view key = w.text.substr(0, eq);
      std::string_view value = eq == std::string_view::npos ? std::string_view() : w.text.substr(eq + 1);
      if (eq == std::string_view::npos)
        return make_error("expected KEY=VALUE", at(ln, w.col));
      if (key == "max_concurrency" || key == "calls_per_minute") {
        auto n = parse_count(value);
        if (!n) return make_error(std::string(key) + ": expected a whole number", at(ln, w.col + eq + 1));
        (key == "max_concurrency" ? t.limits.max_concurrency : t.limits.calls_per_minute) = *n;
      } else if (key == "scope") {
        t.mcp = t.metrics = false;
        std::size_t p = 0;
        while (p <= value.size()) {
          std::size_t c = value.find(',', p);
          if (c == std::string_view::npos) c = value.size();
          std::string_view s = value.substr(p, c - p);
          if (s == "mcp") t.mcp = true;
          else if (s == "metrics") t.metrics = true;
          else
            return make_error("unknown scope \"" + std::string(s) + "\" (expected mcp, metrics)",
                              at(ln, w.col + eq + 1 + p));
          p = c + 1;
        }
      } else {
        return make_error("unknown key \"" + std::string(key) + "\"", at(ln, w.col),
                          "keys: max_concurrency, calls_per_minute, scope");
      }
    }
    if (!names.insert(t.name).second)
      return make_error("token name \"" + t.name + "\" appears twice", at(ln, name.col));
    if (!secrets.insert(t.secret).second)
      return make_error("the token of \"" + t.name + "\" is also another name's: each caller needs its own",
                        at(ln, secret.col));
    tokens.push_back(std::move(t));
  }
  if (tokens.empty()) return make_error("no token in the file", source);
  return TokenSet(std::move(tokens));
}

Result<TokenSet> read_token_file(const std::string& path) {
  sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (!fd) return errno_error("cannot open token file", errno, path);
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return errno_error("fstat", errno, path);
  if (!S_ISREG(st.st_mode)) return make_error("token file is not a regular file", path);
  if (st.st_mode & 077)
    return make_error("token file may be read or written by group/others", path, "chmod 600 " + path);
  if (st.st_uid != ::geteuid()) return make_error("token file is owned by another user", path);
  if (static_cast<std::size_t>(st.st_size) > kMaxFileBytes)
    return make_error("token file too large (max 64 KiB)", path);
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("read", errno, path);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return parse_token_file(text, path);
}

}  // namespace paddock::mcp
