// Writing man(7) roff: escaping text, and the small Markdown the man pages' prose is written in
// (docs/man/*.md, docs/profiles.md). Pure: strings in, strings out.
//
// The Markdown understood: "# H" / "## H" (a section, .SH), "### H" (.SS), paragraphs, "- " and
// "1. " list items (continuation lines indented), ``` fenced blocks (shown as they are), tables
// (each row a tagged paragraph: the first cell, then "header: cell" per other column), and inline
// `code` (bold), **bold**, *italic*, [text](link) (the text). Nothing else is special.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paddock::cli::roff {

// Text for a roff line: backslashes escaped, non-ASCII as \[uXXXX], a leading '.' or '\'' guarded.
std::string text(std::string_view s);
// The same for literal words (options, commands, code): '-' becomes "\-" as well.
std::string literal(std::string_view s);

struct Section {
  std::string title;  // upper-cased ("EXIT STATUS")
  int level = 1;      // 1: .SH, 2: .SS (a "###" heading inside a section)
  std::string body;   // roff
};

// Markdown to roff, one Section per heading. Headings of level SH_LEVEL ("#" for 1) are sections,
// one level deeper subsections; shallower ones (a document's title) are left out. Text before
// the first section is a section with an empty title. DROP names sections (with what they hold)
// to leave out.
std::vector<Section> from_markdown(std::string_view md, int sh_level = 1, const std::vector<std::string>& drop = {});

// Inline Markdown of one paragraph (`code`, **bold**, *italic*, [text](link)) to roff.
std::string inline_markdown(std::string_view s);

}  // namespace paddock::cli::roff
