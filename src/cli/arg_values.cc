#include "cli/arg_values.h"

#include <algorithm>

#include "cli/app_tree.h"
#include "policy/did_you_mean.h"

namespace paddock::cli {
namespace {

// The spec travels as the name of a validator on the option ("paddock:choice:a,b:x>a"): CLI11
// keeps validators with their option, so nothing outside the tree has to be kept in step.
constexpr const char* kPrefix = "paddock:";

struct KindName {
  ValueKind kind;
  const char* name;
};
constexpr KindName kKinds[] = {
    {ValueKind::Text, "text"},       {ValueKind::Path, "path"},       {ValueKind::File, "file"},
    {ValueKind::Dir, "dir"},         {ValueKind::Command, "command"}, {ValueKind::Profile, "profile"},
    {ValueKind::Jail, "jail"},       {ValueKind::Session, "session"}, {ValueKind::Choice, "choice"},
};

const char* kind_name(ValueKind k) {
  for (const auto& kn : kKinds)
    if (kn.kind == k) return kn.name;
  return "text";
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = s.find(sep, start);
    out.push_back(s.substr(start, end - start));
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

std::string encode(const ValueSpec& s) {
  std::string out = std::string(kPrefix) + kind_name(s.kind);
  if (s.kind != ValueKind::Choice) return out;
  std::vector<std::string> aliases;
  for (const auto& a : s.aliases) aliases.push_back(a.alias + ">" + a.word);
  return out + ":" + join(s.choices, ",") + ":" + join(aliases, ",");
}

ValueSpec decode(const std::string& name) {
  ValueSpec s;
  s.kind = ValueKind::Text;
  std::vector<std::string> parts = split(name.substr(std::string(kPrefix).size()), ':');
  for (const auto& kn : kKinds)
    if (!parts.empty() && parts[0] == kn.name) s.kind = kn.kind;
  if (s.kind == ValueKind::Choice && parts.size() == 3) {
    s.choices = split(parts[1], ',');
    for (const auto& a : split(parts[2], ',')) {
      auto gt = a.find('>');
      if (gt != std::string::npos) s.aliases.push_back({a.substr(0, gt), a.substr(gt + 1)});
    }
  }
  return s;
}

void attach(CLI::Option* opt, const ValueSpec& spec, std::function<std::string(std::string&)> check) {
  opt->transform(CLI::Validator(std::move(check), "", encode(spec)));
}

}  // namespace

CLI::Option* values(CLI::Option* opt, ValueKind kind, const std::string& placeholder) {
  ValueSpec spec;
  spec.kind = kind;
  attach(opt, spec, [](std::string&) { return std::string(); });
  return opt->type_name(placeholder);
}

CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> choices, std::vector<Alias> aliases) {
  ValueSpec spec{ValueKind::Choice, std::move(choices), std::move(aliases)};
  attach(opt, spec, [spec](std::string& v) {
    for (const auto& a : spec.aliases)
      if (v == a.alias) v = a.word;
    return check_choice(spec, v);
  });
  // The initial value is the default: said in the text, not as CLI11's "=VALUE" after the name.
  opt->capture_default_str();
  const std::string def = opt->get_default_str();
  opt->default_str("");
  if (!def.empty()) opt->description(opt->get_description() + " (default " + def + ")");
  return opt->type_name(join(spec.choices, "|"));
}

ValueSpec value_spec(const CLI::Option* opt) {
  ValueSpec s;
  if (!takes_value(opt)) return s;  // a flag
  s.kind = ValueKind::Text;
  // get_validator is not const in CLI11; looking does not change the option.
  auto* o = const_cast<CLI::Option*>(opt);
  for (int i = 0;; ++i) {
    CLI::Validator* v = nullptr;
    try {
      v = o->get_validator(i);
    } catch (const CLI::OptionNotFound&) {
      break;
    }
    if (v->get_name().rfind(kPrefix, 0) == 0) return decode(v->get_name());
  }
  return s;
}

std::string check_choice(const ValueSpec& spec, const std::string& value) {
  if (std::find(spec.choices.begin(), spec.choices.end(), value) != spec.choices.end()) return {};
  std::string msg = "\"" + value + "\" is not one of " + join(spec.choices, ", ");
  std::string hint = did_you_mean(value, spec.choices);
  std::vector<std::string> alias_words;
  for (const auto& a : spec.aliases) alias_words.push_back(a.alias);
  if (hint.empty()) {
    std::string near = closest_match(value, alias_words);
    for (const auto& a : spec.aliases)
      if (a.alias == near) hint = "did you mean \"" + a.word + "\"?";
  }
  return hint.empty() ? msg : msg + " (" + hint + ")";
}

const std::vector<std::string>& known_placeholders() {
  static const std::vector<std::string> k = {
      "PATH", "FILE", "DIR", "NAME", "NAME[=VALUE]", "NAME|FILE", "HOST", "HOST[:PORT]", "NAME:ADDR[:PORT]",
      "ADDR:PORT", "ORIGIN", "NAME|PATH", "SIZE", "N", "CORES", "DURATION", "PORT", "JAIL", "SESSION[:N]", "BRANCH", "LABEL",
      "COMMAND", "AGENT"};
  return k;
}

}  // namespace paddock::cli
