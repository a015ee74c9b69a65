#include "cli/roff.h"

#include <algorithm>
#include <cstdio>

namespace paddock::cli::roff {
namespace {

// One UTF-8 sequence starting at s[i] as a code point; i moves past it. Bytes that are not valid
// UTF-8 come out as U+FFFD.
char32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto b = static_cast<unsigned char>(s[i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = len == 1 ? b : b & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c >> 6) != 2) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (c & 0x3F);
  }
  i += len;
  return cp;
}

// Escapes S for the inside of a roff line. The start of a line is guarded by guard_line_start().
std::string escape_inline(std::string_view s, bool literal_dashes) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "\\[u%04X]", static_cast<unsigned>(next_code_point(s, i)));
      out += buf;
      continue;
    }
    ++i;
    if (c == '\\') out += "\\e";
    else if (c == '-' && literal_dashes) out += "\\-";
    else if (c == '\t') out += ' ';
    else if (c == '\n') out += ' ';
    else if (static_cast<unsigned char>(c) < 0x20) continue;
    else out += c;
  }
  return out;
}

// A line starting with '.' or '\'' would be read as a request.
std::string guard_line_start(std::string line) {
  if (!line.empty() && (line[0] == '.' || line[0] == '\'')) line.insert(0, "\\&");
  return line;
}

std::string escape(std::string_view s, bool literal_dashes) {
  return guard_line_start(escape_inline(s, literal_dashes));
}

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  std::size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// "## Title" -> 2; 0 when LINE is not a heading.
int heading_level(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && line[n] == '#') ++n;
  return n > 0 && n < line.size() && line[n] == ' ' ? static_cast<int>(n) : 0;
}

bool list_item(std::string_view line, std::string& marker, std::string& rest) {
  if (line.rfind("- ", 0) == 0) {
    marker = "\\(bu";
    rest = line.substr(2);
    return true;
  }
  std::size_t d = 0;
  while (d < line.size() && line[d] >= '0' && line[d] <= '9') ++d;
  if (d > 0 && d + 1 < line.size() && line[d] == '.' && line[d + 1] == ' ') {
    marker = std::string(line.substr(0, d + 1));
    rest = line.substr(d + 2);
    return true;
  }
  return false;
}

std::vector<std::string> table_cells(std::string_view line) {
  std::string l = trim(line);
  if (!l.empty() && l.front() == '|') l.erase(0, 1);
  if (!l.empty() && l.back() == '|') l.pop_back();
  std::vector<std::string> cells;
  std::string cur;
  bool code = false;
  for (char c : l) {
    if (c == '`') code = !code;
    if (c == '|' && !code) {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  cells.push_back(trim(cur));
  return cells;
}

bool is_separator_row(std::string_view line) {
  return line.find("---") != std::string_view::npos &&
         line.find_first_not_of("|-: ") == std::string_view::npos;
}

}  // namespace

std::string text(std::string_view s) { return escape(s, false); }
std::string literal(std::string_view s) { return escape(s, true); }

std::string inline_markdown(std::string_view s) {
  std::string out;
  std::string plain;  // text not yet escaped
  auto flush = [&] {
    out += escape_inline(plain, false);
    plain.clear();
  };
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '`') {
      std::size_t end = s.find('`', i + 1);
      if (end != std::string_view::npos) {
        flush();
        out += "\\fB" + escape_inline(s.substr(i + 1, end - i - 1), true) + "\\fR";
        i = end + 1;
        continue;
      }
    }
    if (s.compare(i, 2, "**") == 0) {
      std::size_t end = s.find("**", i + 2);
      if (end != std::string_view::npos && end > i + 2) {
        flush();
        out += "\\fB" + inline_markdown(s.substr(i + 2, end - i - 2)) + "\\fR";
        i = end + 2;
        continue;
      }
    }
    if (s[i] == '*' && i + 1 < s.size() && s[i + 1] != ' ' && s[i + 1] != '*' && s[i + 1] != '.') {
      std::size_t end = s.find('*', i + 1);
      if (end != std::string_view::npos && s[end - 1] != ' ') {
        flush();
        out += "\\fI" + inline_markdown(s.substr(i + 1, end - i - 1)) + "\\fR";
        i = end + 1;
        continue;
      }
    }
    if (s[i] == '[') {
      std::size_t close = s.find("](", i + 1);
      std::size_t end = close == std::string_view::npos ? close : s.find(')', close + 2);
      if (close != std::string_view::npos && end != std::string_view::npos &&
          s.substr(i + 1, close - i - 1).find('[') == std::string_view::npos) {
        flush();
        out += inline_markdown(s.substr(i + 1, close - i - 1));
        i = end + 1;
        continue;
      }
    }
    plain += s[i];
    ++i;
  }
  flush();
  return guard_line_start(out);
}

std::vector<Section> from_markdown(std::string_view md, int sh_level, const std::vector<std::string>& drop) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start <= md.size();) {
    std::size_t end = md.find('\n', start);
    if (end == std::string_view::npos) end = md.size();
    lines.emplace_back(md.substr(start, end - start));
    start = end + 1;
  }
  std::vector<Section> out{{"", 1, ""}};  // what comes before the first section
  bool skipping = false;                  // inside a dropped section
  std::string para;      // a paragraph or list item being gathered
  std::string para_start = ".PP";
  auto body = [&]() -> std::string& { return out.back().body; };
  auto end_para = [&] {
    if (!para.empty() && !skipping) body() += para_start + "\n" + inline_markdown(para) + "\n";
    para.clear();
    para_start = ".PP";
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (int level = heading_level(line)) {
      end_para();
      const std::string title = trim(std::string_view(line).substr(level + 1));
      if (level < sh_level) continue;  // the document's title
      if (level == sh_level) {
        skipping = std::find(drop.begin(), drop.end(), title) != drop.end();
        if (!skipping) out.push_back({title, 1, ""});
        continue;
      }
      if (!skipping) out.push_back({title, 2, ""});
      continue;
    }
    if (line.rfind("```", 0) == 0) {
      end_para();
      std::string block;
      for (++i; i < lines.size() && lines[i].rfind("```", 0) != 0; ++i) block += literal(lines[i]) + "\n";
      // An empty line inside .nf is fine; one starting with a request character is guarded.
      if (!skipping) body() += ".PP\n.RS 4\n.nf\n" + block + ".fi\n.RE\n";
      continue;
    }
    if (trim(line).empty()) {
      end_para();
      continue;
    }
    if (line.front() == '|' && i + 1 < lines.size() && is_separator_row(lines[i + 1])) {
      end_para();
      const std::vector<std::string> head = table_cells(line);
      std::string rows;
      for (i += 2; i < lines.size() && !lines[i].empty() && lines[i].front() == '|'; ++i) {
        const auto cells = table_cells(lines[i]);
        rows += ".TP\n" + inline_markdown(cells.empty() ? "" : cells[0]) + "\n";
        for (std::size_t c = 1; c < cells.size(); ++c) {
          if (c > 1) rows += ".br\n";
          rows += inline_markdown((c < head.size() ? head[c] + ": " : "") + cells[c]) + "\n";
        }
      }
      --i;
      if (!skipping) body() += rows;
      continue;
    }
    std::string marker, rest;
    if (list_item(line, marker, rest)) {
      end_para();
      para_start = ".IP " + marker + " 4";
      para = rest;
      continue;
    }
    para += (para.empty() ? "" : " ") + trim(line);
  }
  end_para();
  if (out.front().body.empty()) out.erase(out.begin());
  for (auto& s : out) s.title = upper(s.title);
  return out;
}

}  // namespace paddock::cli::roff
