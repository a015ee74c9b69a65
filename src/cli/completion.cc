#include "cli/completion.h"

#include "cli/app_tree.h"
#include "cli/arg_values.h"

namespace paddock::cli {
namespace {

// The command path, "paddock" for paddock itself, "paddock jail create": the key of the tables
// the scripts carry (bash's associative arrays take no empty key).
std::string key_of(const CLI::App& cmd) { return command_path(cmd); }

std::string join(const std::vector<std::string>& words, const std::string& sep) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

// 'text' for a POSIX shell (bash, zsh).
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// 'text' for fish, where \ and ' are escaped inside single quotes.
std::string fish_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

const char* kind_word(ValueKind k) {
  switch (k) {
    case ValueKind::Path: return "path";
    case ValueKind::File: return "file";
    case ValueKind::Dir: return "dir";
    case ValueKind::Command: return "command";
    case ValueKind::Profile: return "profile";
    case ValueKind::Jail: return "jail";
    case ValueKind::Session: return "session";
    case ValueKind::Choice: return "choice";
    default: return "text";
  }
}

// "choice host copy overlay worktree", "path", "jail".
std::string value_word(const ValueSpec& v) {
  std::string w = kind_word(v.kind);
  if (v.kind == ValueKind::Choice) w += " " + join(v.choices, " ");
  return w;
}

bool repeats(const CLI::Option* o) {
  return o->get_expected_max() >= CLI::detail::expected_max_vector_size ||
         o->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
}

std::vector<std::string> sub_names(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::App* s : visible_subcommands(cmd)) out.push_back(s->get_name());
  return out;
}

// ---- bash ----------------------------------------------------------------------------------

constexpr const char* kBashLogic = R"BASH(
# Names from files (profiles, jails, sessions) are read, never expanded: a profile file named
# "$(cmd).toml" must not run cmd when completing. Works under `set -eu` too.
_paddock_dynamic() {
  local name
  while IFS= read -r name; do
    if [[ $name == "$2"* ]]; then COMPREPLY+=("$name"); fi
  done < <("$_paddock_bin" __complete "$1" 2>/dev/null)
  return 0
}

_paddock_values() {
  local kind=${1%% *} w
  case $kind in
    choice)
      for w in ${1#choice }; do if [[ $w == "$2"* ]]; then COMPREPLY+=("$w"); fi; done ;;
    path|file)
      compopt -o filenames 2>/dev/null
      mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$2") ;;
    dir)
      compopt -o filenames 2>/dev/null
      mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -d -- "$2") ;;
    command)
      mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -c -- "$2") ;;
    profile)
      _paddock_dynamic profile "$2"
      # A profile may also be a file: offered once a path is being typed.
      if [[ $2 == */* || $2 == .* ]]; then
        compopt -o filenames 2>/dev/null
        mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -f -- "$2")
      fi ;;
    jail|session)
      _paddock_dynamic "$kind" "$2" ;;
  esac
  return 0
}

_paddock() {
  local cur=${COMP_WORDS[COMP_CWORD]} key=paddock w i npos=0 want="" dashes=0
  _paddock_bin=${COMP_WORDS[0]}
  if [[ $_paddock_bin == "~/"* ]]; then _paddock_bin=$HOME/${_paddock_bin#"~/"}; fi
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if [[ -n $want ]]; then
      # This word is the value of the option before ("--opt=value" arrives as --opt, =, value).
      if [[ $w != = ]]; then want=""; fi
      continue
    fi
    if [[ $w == -- ]]; then dashes=$i; break; fi
    if [[ $w == -?* ]]; then
      if [[ -n ${_paddock_vals["$key|$w"]+set} ]]; then want=${_paddock_vals["$key|$w"]}; fi
      continue
    fi
    if [[ " ${_paddock_subs[$key]-} " == *" $w "* ]]; then
      key="$key $w"
      npos=0
      continue
    fi
    ((npos++))
  done
  if ((dashes)); then
    # The sandboxed command, then its arguments.
    if ((COMP_CWORD == dashes + 1)); then
      mapfile -t COMPREPLY < <(compgen -c -- "$cur")
    else
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
  fi
  if [[ $cur == = ]]; then cur=""; fi
  if [[ -n $want ]]; then
    _paddock_values "$want" "$cur"
    return 0
  fi
  if [[ $cur == -* ]]; then
    for w in ${_paddock_opts[$key]-}; do if [[ $w == "$cur"* ]]; then COMPREPLY+=("$w"); fi; done
    return 0
  fi
  if [[ -n ${_paddock_subs[$key]-} ]]; then
    for w in ${_paddock_subs[$key]-}; do if [[ $w == "$cur"* ]]; then COMPREPLY+=("$w"); fi; done
    return 0
  fi
  # A positional: the one at npos, or the last one when it takes many.
  local spec=${_paddock_pos["$key|$npos"]-}
  if [[ -z $spec ]]; then
    for ((i = npos; i >= 0; i--)); do
      if [[ -n ${_paddock_pos["$key|$i+"]-} ]]; then spec=${_paddock_pos["$key|$i+"]}; break; fi
    done
  fi
  if [[ -n $spec ]]; then _paddock_values "$spec" "$cur"; fi
  return 0
}

complete -F _paddock paddock
)BASH";

std::string bash_script(const CLI::App& app, const std::string& version) {
  std::string subs, opts, vals, pos;
  for (const CLI::App* c : all_commands(app)) {
    const std::string key = key_of(*c);
    if (!visible_subcommands(*c).empty()) subs += "  [" + sh_quote(key) + "]=" + sh_quote(join(sub_names(*c), " ")) + "\n";
    std::vector<std::string> names;
    for (const CLI::Option* o : named_options(*c)) {
      for (const auto& n : option_names(o)) {
        names.push_back(n);
        const ValueSpec v = value_spec(o);
        if (v.kind != ValueKind::None) vals += "  [" + sh_quote(key + "|" + n) + "]=" + sh_quote(value_word(v)) + "\n";
      }
    }
    opts += "  [" + sh_quote(key) + "]=" + sh_quote(join(names, " ")) + "\n";
    std::size_t i = 0;
    for (const CLI::Option* p : positionals(*c)) {
      const bool many = p->get_items_expected_max() >= CLI::detail::expected_max_vector_size;
      pos += "  [" + sh_quote(key + "|" + std::to_string(i) + (many ? "+" : "")) + "]=" + sh_quote(value_word(value_spec(p))) + "\n";
      i += many ? 1 : static_cast<std::size_t>(p->get_items_expected_max());
    }
  }
  return "# bash completion for paddock: `paddock completion bash` (" + version +
         "), generated from its command line.\n"
         "# Install: paddock completion bash > ~/.local/share/bash-completion/completions/paddock\n"
         "declare -gA _paddock_subs=(\n" + subs + ")\n"
         "declare -gA _paddock_opts=(\n" + opts + ")\n"
         "declare -gA _paddock_vals=(\n" + vals + ")\n"
         "declare -gA _paddock_pos=(\n" + pos + ")\n" + kBashLogic;
}

// ---- zsh -----------------------------------------------------------------------------------

std::string zsh_function(const CLI::App& c) {
  std::string key = key_of(c);
  for (char& ch : key)
    if (ch == ' ' || ch == '-') ch = '_';
  return "_paddock_cmd_" + key;
}

// The text of a description inside an _arguments spec's [...].
std::string zsh_desc(const std::string& d) {
  std::string out;
  for (char c : d) {
    if (c == ']' || c == '[' || c == '\\' || c == ':') out += '\\';
    out += c;
  }
  return out;
}

std::string zsh_action(const ValueSpec& v) {
  switch (v.kind) {
    case ValueKind::Choice: return "(" + join(v.choices, " ") + ")";
    case ValueKind::Path:
    case ValueKind::File: return "_files";
    case ValueKind::Dir: return "_files -/";
    case ValueKind::Command: return "_command_names -e";
    case ValueKind::Profile: return "_paddock_dynamic profile";
    case ValueKind::Jail: return "_paddock_dynamic jail";
    case ValueKind::Session: return "_paddock_dynamic session";
    default: return " ";
  }
}

std::string zsh_command(const CLI::App& c) {
  std::vector<std::string> specs;
  for (const CLI::Option* o : named_options(c)) {
    const ValueSpec v = value_spec(o);
    for (const auto& n : option_names(o)) {
      std::string spec = (repeats(o) ? "*" : "") + n + (v.kind != ValueKind::None && n.size() > 2 ? "=" : "") + "[" +
                         zsh_desc(o->get_description()) + "]";
      if (v.kind != ValueKind::None) spec += ":" + zsh_desc(o->get_type_name()) + ":" + zsh_action(v);
      specs.push_back(sh_quote(spec));
    }
  }
  const auto subs = visible_subcommands(c);
  std::string out = zsh_function(c) + "() {\n";
  if (!subs.empty()) {
    specs.push_back(sh_quote("1: :->command"));
    specs.push_back(sh_quote("*:: :->argument"));
    out += "  local curcontext=$curcontext state line\n  typeset -A opt_args\n";
    out += "  _arguments -C -s -S : \\\n    " + join(specs, " \\\n    ") + "\n";
    out += "  case $state in\n    command)\n      local -a commands=(\n";
    for (const CLI::App* s : subs) {
      std::string name = s->get_name();
      out += "        " + sh_quote(name + ":" + s->get_description()) + "\n";
    }
    out += "      )\n      _describe -t commands " + sh_quote(command_path(c) + " command") + " commands ;;\n";
    out += "    argument)\n      case $line[1] in\n";
    for (const CLI::App* s : subs) out += "        (" + s->get_name() + ") " + zsh_function(*s) + " ;;\n";
    out += "      esac ;;\n  esac\n}\n";
    return out;
  }
  std::size_t i = 1;
  for (const CLI::Option* p : positionals(c)) {
    const ValueSpec v = value_spec(p);
    const bool many = p->get_items_expected_max() >= CLI::detail::expected_max_vector_size;
    if (v.kind == ValueKind::Command) {
      specs.push_back(sh_quote("*::command:_normal"));
      continue;
    }
    specs.push_back(sh_quote((many ? std::string("*") : std::to_string(i)) + ":" + zsh_desc(p->get_name()) + ":" +
                             zsh_action(v)));
    ++i;
  }
  out += "  _arguments -s -S : \\\n    " + join(specs, " \\\n    ") + "\n}\n";
  return out;
}

std::string zsh_script(const CLI::App& app, const std::string& version) {
  std::string out = "#compdef paddock\n# zsh completion for paddock: `paddock completion zsh` (" + version +
                    "), generated from its command line.\n"
                    "# Install: paddock completion zsh > \"${fpath[1]}/_paddock\", then start a new shell.\n\n"
                    "# Names from files (profiles, jails, sessions) go to compadd, never through eval.\n"
                    "_paddock_dynamic() {\n"
                    "  local -a names\n"
                    "  names=(${(f)\"$(\"${_paddock_bin:-paddock}\" __complete $1 2>/dev/null)\"})\n"
                    "  compadd -a names\n"
                    "}\n\n";
  for (const CLI::App* c : all_commands(app)) out += zsh_command(*c) + "\n";
  out += "_paddock() {\n"
         "  local _paddock_bin=${words[1]/#\\~/$HOME}\n"
         "  " + zsh_function(app) + " \"$@\"\n"
         "}\n\n"
         "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n"
         "  _paddock \"$@\"\n"
         "else\n"
         "  compdef _paddock paddock\n"
         "fi\n";
  return out;
}

// ---- fish ----------------------------------------------------------------------------------

std::string fish_script(const CLI::App& app, const std::string& version) {
  std::string subs_table, vals_table, lines;
  for (const CLI::App* c : all_commands(app)) {
    const std::string key = key_of(*c);
    const std::string cond = fish_quote("__paddock_at " + fish_quote(key));
    const auto subs = visible_subcommands(*c);
    if (!subs.empty()) subs_table += "        case " + fish_quote(key) + "\n            echo " + join(sub_names(*c), " ") + "\n";
    for (const CLI::App* s : subs)
      lines += "complete -c paddock -n " + cond + " -a " + fish_quote(s->get_name()) + " -d " +
               fish_quote(s->get_description()) + "\n";
    std::vector<std::string> takes_value;
    for (const CLI::Option* o : named_options(*c)) {
      const ValueSpec v = value_spec(o);
      std::string line = "complete -c paddock -n " + cond;
      for (const auto& l : o->get_lnames()) line += " -l " + fish_quote(l);
      for (const auto& s : o->get_snames()) line += " -s " + fish_quote(s);
      if (v.kind != ValueKind::None) {
        for (const auto& n : option_names(o)) takes_value.push_back(n);
        switch (v.kind) {
          case ValueKind::Choice: line += " -x -a " + fish_quote(join(v.choices, " ")); break;
          case ValueKind::Path:
          case ValueKind::File:
          case ValueKind::Dir: line += " -r -F"; break;
          case ValueKind::Command: line += " -x -a '(__fish_complete_command)'"; break;
          case ValueKind::Profile: line += " -r -F -a '(__paddock_dynamic profile)'"; break;
          case ValueKind::Jail: line += " -x -a '(__paddock_dynamic jail)'"; break;
          case ValueKind::Session: line += " -x -a '(__paddock_dynamic session)'"; break;
          default: line += " -x"; break;
        }
      }
      lines += line + " -d " + fish_quote(o->get_description()) + "\n";
    }
    if (!takes_value.empty())
      vals_table += "        case " + fish_quote(key) + "\n            echo " + join(takes_value, " ") + "\n";
    for (const CLI::Option* p : positionals(*c)) {
      const ValueSpec v = value_spec(p);
      std::string args;
      switch (v.kind) {
        case ValueKind::Choice: args = " -a " + fish_quote(join(v.choices, " ")); break;
        case ValueKind::Jail: args = " -a '(__paddock_dynamic jail)'"; break;
        case ValueKind::Session: args = " -a '(__paddock_dynamic session)'"; break;
        case ValueKind::Profile: args = " -a '(__paddock_dynamic profile)'"; break;
        case ValueKind::Path:
        case ValueKind::File:
        case ValueKind::Dir: args = " -F"; break;
        case ValueKind::Command: args = " -a '(__fish_complete_command)'"; break;
        default: break;
      }
      if (!args.empty()) lines += "complete -c paddock -n " + cond + args + "\n";
    }
  }
  return "# fish completion for paddock: `paddock completion fish` (" + version +
         "), generated from its command line.\n"
         "# Install: paddock completion fish > ~/.config/fish/completions/paddock.fish\n\n"
         "function __paddock_subs --argument-names key\n    switch $key\n" + subs_table + "    end\nend\n\n"
         "function __paddock_value_options --argument-names key\n    switch $key\n" + vals_table + "    end\nend\n\n"
         "# The command path typed so far (\"jail create\"), or \"--\" after the sandboxed command's \"--\".\n"
         "function __paddock_path\n"
         "    set -l key paddock\n"
         "    set -l skip 0\n"
         "    for w in (commandline -opc)[2..-1]\n"
         "        if test $skip = 1\n"
         "            set skip 0\n"
         "            continue\n"
         "        end\n"
         "        if test \"$w\" = --\n"
         "            echo -- --\n"
         "            return\n"
         "        end\n"
         "        if string match -q -- '-*' $w\n"
         "            if not string match -q -- '*=*' $w; and contains -- $w (string split ' ' -- (__paddock_value_options $key))\n"
         "                set skip 1\n"
         "            end\n"
         "            continue\n"
         "        end\n"
         "        if contains -- $w (string split ' ' -- (__paddock_subs $key))\n"
         "            set key \"$key $w\"\n"
         "        end\n"
         "    end\n"
         "    echo -- $key\n"
         "end\n\n"
         "function __paddock_at\n    test (__paddock_path) = \"$argv[1]\"\nend\n\n"
         "# Names from files (profiles, jails, sessions): command output, never evaluated.\n"
         "function __paddock_dynamic\n"
         "    set -l bin (commandline -opc)[1]\n"
         "    command $bin __complete $argv[1] 2>/dev/null\n"
         "end\n\n"
         "complete -c paddock -f\n"
         "complete -c paddock -n '__paddock_at --' -F -a '(__fish_complete_command)'\n" + lines;
}

}  // namespace

std::string completion_script(const CLI::App& app, Shell shell, const std::string& version) {
  switch (shell) {
    case Shell::Bash: return bash_script(app, version);
    case Shell::Zsh: return zsh_script(app, version);
    case Shell::Fish: return fish_script(app, version);
  }
  return {};
}

}  // namespace paddock::cli
