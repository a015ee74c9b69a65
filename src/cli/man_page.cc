#include "cli/man_page.h"

#include <cctype>
#include <set>

#include "cli/app_tree.h"
#include "cli/arg_values.h"
#include "cli/roff.h"

namespace paddock::cli {
namespace {

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

std::string header(const std::string& name, int section, const std::string& version) {
  // No hyphenation and ragged right: option names and paths stay whole, as --help prints them.
  return ".TH \"" + upper(name) + "\" \"" + std::to_string(section) + "\" \"\" \"" + roff::text(version) +
         "\" \"paddock manual\"\n.nh\n.ad l\n";
}

std::string page_name(const CLI::App& cmd) {
  std::string p = command_path(cmd);
  for (char& c : p)
    if (c == ' ') c = '-';
  return p;
}

// A positional shows its placeholder ("JAIL", "SESSION[:N]"), or its name upper-cased.
std::string positional_word(const CLI::Option* o) {
  return o->get_type_name().empty() ? upper(o->get_name()) : o->get_type_name();
}

// "\fB\-y\fR, \fB\-\-yes\fR \fISESSION\fR" for an option, "\fIJAIL\fR" for a positional.
std::string option_tag(const CLI::Option* o) {
  if (!o->nonpositional()) return "\\fI" + roff::literal(positional_word(o)) + "\\fR";
  std::string tag;
  for (const auto& s : o->get_snames()) tag += (tag.empty() ? "" : ", ") + std::string("\\fB") + roff::literal("-" + s) + "\\fR";
  for (const auto& l : o->get_lnames()) tag += (tag.empty() ? "" : ", ") + std::string("\\fB") + roff::literal("--" + l) + "\\fR";
  if (takes_value(o) && !o->get_type_name().empty())
    tag += " \\fI" + roff::literal(o->get_type_name()) + "\\fR";
  return tag;
}

std::string option_entries(const std::vector<const CLI::Option*>& opts) {
  std::string out;
  for (const CLI::Option* o : opts) out += ".TP\n" + option_tag(o) + "\n" + roff::text(o->get_description()) + "\n";
  return out;
}

// The options of CMD grouped as --help groups them ("Options", "Limits", ...), positionals first.
// A group other than "Options" gets a heading: a subsection on the command's own page (NESTED
// false), an italic line under a subcommand's subsection.
std::string options_block(const CLI::App& cmd, bool nested) {
  std::string out = option_entries(positionals(cmd));
  std::vector<std::string> groups;
  for (const CLI::Option* o : named_options(cmd)) {
    if (o->get_group().empty()) continue;
    bool seen = false;
    for (const auto& g : groups) seen = seen || g == o->get_group();
    if (!seen) groups.push_back(o->get_group());
  }
  for (const auto& g : groups) {
    std::vector<const CLI::Option*> in;
    for (const CLI::Option* o : named_options(cmd))
      if (o->get_group() == g) in.push_back(o);
    if (g != "Options") out += nested ? ".PP\n\\fI" + roff::text(g) + "\\fR\n" : ".SS \"" + roff::text(g) + "\"\n";
    out += option_entries(in);
  }
  return out;
}

// "paddock jail create [OPTIONS] NAME" in roff.
std::string synopsis_line(const CLI::App& cmd) {
  std::string out = "\\fB" + roff::literal(command_path(cmd)) + "\\fR";
  if (!visible_subcommands(cmd).empty()) return out + " \\fICOMMAND\\fR [\\fIOPTIONS\\fR]";
  out += " [\\fIOPTIONS\\fR]";
  for (const CLI::Option* p : positionals(cmd)) {
    if (value_spec(p).kind == ValueKind::Command) {
      out += " \\fB\\-\\-\\fR \\fICOMMAND\\fR [\\fIARG\\fR...]";
      continue;
    }
    const bool many = p->get_items_expected_max() >= CLI::detail::expected_max_vector_size;
    std::string name = "\\fI" + roff::literal(positional_word(p)) + "\\fR" + (many ? "..." : "");
    out += p->get_required() ? " " + name : " [" + name + "]";
  }
  return out;
}

// Every command below CMD (depth first), each with its synopsis, description and options.
std::string commands_block(const CLI::App& cmd) {
  std::string out;
  const auto all = all_commands(cmd);
  for (std::size_t i = 1; i < all.size(); ++i) {
    const CLI::App& s = *all[i];
    out += ".SS \"" + roff::text(command_path(s)) + "\"\n" + synopsis_line(s) + "\n.PP\n" +
           roff::text(s.get_description()) + "\n" + options_block(s, true);
  }
  return out;
}

std::string section(const std::string& title, const std::string& body) {
  return ".SH " + (title.find(' ') == std::string::npos ? title : "\"" + title + "\"") + "\n" + body;
}

// --x words in PROSE that no command of APP has.
std::vector<std::string> unknown_options(const CLI::App& app, const std::string& prose) {
  std::set<std::string> known;
  for (const CLI::App* c : all_commands(app))
    for (const CLI::Option* o : named_options(*c))
      for (const auto& n : option_names(o)) known.insert(n);
  std::vector<std::string> out;
  for (std::size_t i = prose.find("--"); i != std::string::npos; i = prose.find("--", i + 2)) {
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(prose[i - 1])) || prose[i - 1] == '-')) continue;
    std::size_t e = i + 2;
    while (e < prose.size() && (std::isalnum(static_cast<unsigned char>(prose[e])) || prose[e] == '-')) ++e;
    const std::string word = prose.substr(i, e - i);
    if (word.size() > 2 && std::isalpha(static_cast<unsigned char>(word[2])) && !known.count(word)) out.push_back(word);
  }
  return out;
}

// The page of CMD (the root or a top-level command) with its prose.
std::string command_roff(const CLI::App& cmd, const std::string& prose, const std::string& version) {
  const std::string name = page_name(cmd);
  std::string out = header(name, 1, version);
  out += section("NAME", roff::literal(name) + " \\- " + roff::text(cmd.get_description()) + "\n");
  std::string syn;
  if (cmd.get_parent() == nullptr || visible_subcommands(cmd).empty()) {
    syn = synopsis_line(cmd) + "\n";
  } else {
    const auto subs = visible_subcommands(cmd);
    for (std::size_t i = 0; i < subs.size(); ++i) syn += (i ? ".br\n" : "") + synopsis_line(*subs[i]) + "\n";
  }
  out += section("SYNOPSIS", syn);
  const auto sections = roff::from_markdown(prose, 1);
  // DESCRIPTION first, then what the tree says, then the rest of the prose in its order.
  for (const auto& s : sections)
    if (s.title == "DESCRIPTION") out += section(s.title, s.body);
  if (cmd.get_parent() == nullptr) {
    std::string cmds;
    for (const CLI::App* s : visible_subcommands(cmd)) {
      cmds += ".TP\n\\fB" + roff::literal(s->get_name()) + "\\fR\n" + roff::text(s->get_description()) + " See \\fB" +
              roff::literal(page_name(*s)) + "\\fR(1).\n";
    }
    out += section("COMMANDS", cmds);
    out += section("OPTIONS", options_block(cmd, false));
  } else {
    out += section("OPTIONS", options_block(cmd, false));
    if (!visible_subcommands(cmd).empty()) out += section("COMMANDS", commands_block(cmd));
  }
  for (const auto& s : sections) {
    if (s.title == "DESCRIPTION" || s.title.empty()) continue;
    out += s.level == 1 ? section(s.title, s.body) : ".SS \"" + roff::text(s.title) + "\"\n" + s.body;
  }
  return out;
}

}  // namespace

Result<std::vector<ManPage>> command_pages(const CLI::App& app, const std::map<std::string, std::string>& prose,
                                           const std::string& version) {
  std::vector<const CLI::App*> cmds{&app};
  for (const CLI::App* s : visible_subcommands(app)) cmds.push_back(s);
  std::vector<ManPage> out;
  std::set<std::string> used;
  for (const CLI::App* c : cmds) {
    ManPage p{page_name(*c), 1, ""};
    auto it = prose.find(p.file());
    if (it == prose.end()) {
      return make_error("no prose for the man page " + p.file() + " (command \"" + command_path(*c) + "\")",
                        "docs/man/" + p.file() + ".md", "write its DESCRIPTION (docs/man/README.md)");
    }
    if (auto bad = unknown_options(app, it->second); !bad.empty()) {
      return make_error("mentions " + bad.front() + ", which no paddock command has", "docs/man/" + p.file() + ".md");
    }
    used.insert(p.file());
    p.roff = command_roff(*c, it->second, version);
    out.push_back(std::move(p));
  }
  for (const auto& [file, text] : prose) {
    if (!used.count(file) && file != "paddock-profile.5")
      return make_error("prose for a man page no command has", "docs/man/" + file + ".md",
                        "remove it, or name the command it belongs to");
  }
  return out;
}

ManPage profile_page(const std::string& profiles_md, const std::string& version) {
  ManPage p{"paddock-profile", 5, header("paddock-profile", 5, version)};
  p.roff += section("NAME", "paddock-profile \\- the TOML profiles of paddock run, why and jail\n");
  p.roff += section("SYNOPSIS", "\\fB$XDG_CONFIG_HOME/paddock/profiles/\\fINAME\\fB.toml\\fR\n.br\n"
                                "\\fBpaddock run \\-\\-profile\\fR \\fINAME\\fR|\\fIFILE\\fR\n");
  for (const auto& s : roff::from_markdown(profiles_md, 2, {"Library"})) {
    const std::string title = s.title.empty() ? "DESCRIPTION" : s.title;
    p.roff += s.level == 1 ? section(title, s.body) : ".SS \"" + roff::text(title) + "\"\n" + s.body;
  }
  p.roff += section("SEE ALSO", "\\fBpaddock\\fR(1), \\fBpaddock\\-run\\fR(1), \\fBpaddock\\-why\\fR(1)\n");
  return p;
}

}  // namespace paddock::cli
