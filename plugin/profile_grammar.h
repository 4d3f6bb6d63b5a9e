// The one grammar of the looprace profile file (docs/formats.md section 5), shared by the GCC
// plugin (which reads profiles) and the driver (which writes and reads them).
//
// Header-only, no GCC header, valid C++17 and C++20, and never throws on bad input: every
// problem is returned as a ParseError carrying the 1-based line of the profile at fault.
//
//   looprace-profile 1
//   # comments, anywhere a token could start
//   flags <flag> ...        (optional, once, before the entries: flags the decisions were
//                            raced with on top of the build's own, which a build applies too)
//   <id> <file:line:col> <function> <index/loops> <factor> [key=value ...]
//
// '%' escapes (%20 blank, %23 '#', %25 '%', %3D '=', any %XX) are used in the location, the
// function and evidence values, so that blanks and '#' in names survive a round trip.
#ifndef LOOPRACE_PLUGIN_PROFILE_GRAMMAR_H
#define LOOPRACE_PLUGIN_PROFILE_GRAMMAR_H

#include <charconv>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

namespace looprace::profile {

// The magic first line of every profile, and the only version this grammar reads.
inline constexpr std::string_view kMagic = "looprace-profile";
inline constexpr int kVersion = 1;
// Factor semantics everywhere: 0 = GCC's heuristic, 1 = not unrolled, 2..16 = copies.
inline constexpr int kMaxFactor = 16;

// A readable loop location `file:line:col`; the file is matched as a path suffix.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
};

// One data line: a loop and the factor chosen for it.
struct Entry {
  std::string id;  // 16 lower-case hex digits (docs/formats.md section 1)
  std::string file;
  int line = 0;
  int column = 0;
  std::string function;  // assembler name
  int index = 0;         // preorder position of the loop in its function ...
  int loops = 0;         // ... among this many loops: used to re-match stale ids
  int factor = 0;
  std::vector<std::pair<std::string, std::string>> evidence;  // for humans and tools
  int source_line = 0;  // line of the profile this entry came from (0 when built in memory)
};

struct Profile {
  std::vector<std::string> header_comments;  // text of comment lines before the first entry
  std::vector<std::string> flags;            // the `flags` line's, e.g. "-funroll-loops"
  std::vector<Entry> entries;
};

// The keyword of the optional flags line.
inline constexpr std::string_view kFlagsKeyword = "flags";

// Flags as one command-line string, blank-separated: what the flags line holds after its
// keyword, and what a build adds.
inline std::string join_flags(const std::vector<std::string>& flags) {
  std::string text;
  for (const std::string& flag : flags) text += (text.empty() ? "" : " ") + flag;
  return text;
}

struct ParseError {
  std::string message;
  int line = 0;  // 1-based line of the profile; 0 when not tied to a line
};

using ParseResult = std::variant<Profile, ParseError>;

namespace detail {

// Characters that would split a token, start a comment or be ambiguous when unescaped ('='
// ends an evidence key).
inline bool needs_escape(char c) {
  return c == '%' || c == '#' || c == '=' || static_cast<unsigned char>(c) <= ' ' || c == '\x7f';
}

inline int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Parses a whole string_view as a decimal int; nullopt on any stray character or overflow.
inline std::optional<int> parse_int(std::string_view text) {
  int value = 0;
  if (text.empty()) return std::nullopt;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Splits a line into blank-separated tokens, stopping at a token that starts with '#'.
inline std::vector<std::string_view> tokenize(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i == line.size() || line[i] == '#') break;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

// The line of text that starts at `start` (without its '\n'), moving start past it.
inline std::string_view next_line(std::string_view text, std::size_t& start) {
  std::size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(start, end - start);
  start = end + 1;
  return line;
}

}  // namespace detail

// Escapes a name for one profile token (see the file comment).
inline std::string escape(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (detail::needs_escape(c)) {
      auto byte = static_cast<unsigned char>(c);
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out;
}

// Undoes escape(); nullopt when a '%' is not followed by two hex digits.
inline std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    int high = detail::hex_value(text[i + 1]);
    int low = detail::hex_value(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// True for a loop id: exactly 16 lower-case hex digits.
inline bool is_loop_id(std::string_view text) {
  if (text.size() != 16) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Parses a factor 0..16; nullopt for anything else (the caller names the bad text).
inline std::optional<int> parse_factor(std::string_view text) {
  auto value = detail::parse_int(text);
  if (!value || *value < 0 || *value > kMaxFactor) return std::nullopt;
  return value;
}

// Parses `file:line:col` (the file may itself contain ':'; line >= 1, col >= 0). The file part
// is taken verbatim: callers unescape first when the text comes from a profile.
inline std::optional<Location> parse_location(std::string_view text) {
  std::size_t col_colon = text.rfind(':');
  if (col_colon == std::string_view::npos || col_colon == 0) return std::nullopt;
  std::size_t line_colon = text.rfind(':', col_colon - 1);
  if (line_colon == std::string_view::npos || line_colon == 0) return std::nullopt;
  auto line = detail::parse_int(text.substr(line_colon + 1, col_colon - line_colon - 1));
  auto column = detail::parse_int(text.substr(col_colon + 1));
  if (!line || !column || *line < 1 || *column < 0) return std::nullopt;
  return Location{std::string(text.substr(0, line_colon)), *line, *column};
}

// Parses one data line's tokens into an Entry; on failure returns the message only.
inline std::variant<Entry, std::string> parse_entry(const std::vector<std::string_view>& tokens) {
  using namespace std::string_literals;
  if (tokens.size() < 5)
    return "expected 'id file:line:col function index/loops factor [key=value ...]', got "s +
           std::to_string(tokens.size()) + " field(s)";
  Entry entry;
  if (!is_loop_id(tokens[0]))
    return "bad loop id '"s + std::string(tokens[0]) + "' (expected 16 lower-case hex digits)";
  entry.id = std::string(tokens[0]);

  auto location_text = unescape(tokens[1]);
  auto location = location_text ? parse_location(*location_text) : std::nullopt;
  if (!location) return "bad location '"s + std::string(tokens[1]) + "' (expected file:line:col)";
  entry.file = location->file;
  entry.line = location->line;
  entry.column = location->column;

  auto function = unescape(tokens[2]);
  if (!function || function->empty()) return "bad function name '"s + std::string(tokens[2]) + "'";
  entry.function = *function;

  std::size_t slash = tokens[3].find('/');
  auto index = detail::parse_int(tokens[3].substr(0, slash));
  auto loops = slash == std::string_view::npos ? std::nullopt
                                               : detail::parse_int(tokens[3].substr(slash + 1));
  if (!index || !loops || *index < 0 || *index >= *loops)
    return "bad position '"s + std::string(tokens[3]) +
           "' (expected index/loops, 0 <= index < loops)";
  entry.index = *index;
  entry.loops = *loops;

  auto factor = parse_factor(tokens[4]);
  if (!factor) return "bad factor '"s + std::string(tokens[4]) + "' (expected 0..16)";
  entry.factor = *factor;

  for (std::size_t i = 5; i < tokens.size(); ++i) {
    std::size_t equals = tokens[i].find('=');
    auto key =
        equals == std::string_view::npos ? std::nullopt : unescape(tokens[i].substr(0, equals));
    auto value = key ? unescape(tokens[i].substr(equals + 1)) : std::nullopt;
    if (!key || key->empty() || !value)
      return "bad evidence '"s + std::string(tokens[i]) + "' (expected key=value)";
    entry.evidence.emplace_back(std::move(*key), std::move(*value));
  }
  return entry;
}

namespace detail {

// The flags line: once, before the first entry, each flag an option ('-' first, no '#').
inline std::optional<std::string> parse_flags(const std::vector<std::string_view>& tokens,
                                              Profile& profile) {
  if (!profile.entries.empty()) return "the flags line must come before the first loop line";
  if (!profile.flags.empty()) return "a second flags line (a profile has at most one)";
  if (tokens.size() < 2) return "the flags line names no flag";
  for (std::size_t i = 1; i < tokens.size(); ++i) {
    if (tokens[i].size() < 2 || tokens[i][0] != '-')
      return "flag '" + std::string(tokens[i]) + "' on the flags line is not an option";
    profile.flags.emplace_back(tokens[i]);
  }
  return std::nullopt;
}

}  // namespace detail

// Parses a whole profile. Blank lines and comments are ignored except that comment lines before
// the first entry are kept as header_comments (without '#' and one following blank).
inline ParseResult parse(std::string_view text) {
  Profile profile;
  bool seen_magic = false;
  std::map<std::string, int> line_of_id;
  int line_number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::string_view line = detail::next_line(text, start);
    ++line_number;

    auto tokens = detail::tokenize(line);
    if (tokens.empty()) {
      std::size_t hash = line.find('#');
      if (hash != std::string_view::npos && profile.entries.empty()) {
        std::string_view comment = line.substr(hash + 1);
        if (!comment.empty() && comment.front() == ' ') comment.remove_prefix(1);
        while (!comment.empty() && comment.back() == '\r') comment.remove_suffix(1);
        profile.header_comments.emplace_back(comment);
      }
      continue;
    }
    if (!seen_magic) {
      if (tokens[0] != kMagic)
        return ParseError{"not a looprace profile: expected 'looprace-profile 1' first",
                          line_number};
      if (tokens.size() != 2 || detail::parse_int(tokens[1]) != kVersion)
        return ParseError{"unsupported profile version line '" + std::string(line) +
                              "' (this looprace reads 'looprace-profile 1')",
                          line_number};
      seen_magic = true;
      continue;
    }
    if (tokens[0] == kFlagsKeyword) {
      if (auto message = detail::parse_flags(tokens, profile))
        return ParseError{std::move(*message), line_number};
      continue;
    }
    auto parsed = parse_entry(tokens);
    if (auto* message = std::get_if<std::string>(&parsed))
      return ParseError{std::move(*message), line_number};
    Entry& entry = std::get<Entry>(parsed);
    auto [previous, inserted] = line_of_id.emplace(entry.id, line_number);
    if (!inserted)
      return ParseError{"duplicate loop id " + entry.id + " (first on line " +
                            std::to_string(previous->second) + ")",
                        line_number};
    entry.source_line = line_number;
    profile.entries.push_back(std::move(entry));
  }
  if (!seen_magic)
    return ParseError{"empty profile: missing 'looprace-profile 1'", std::max(line_number, 1)};
  return profile;
}

// Formats one data line (no trailing newline), columns padded for reading.
inline std::string format_entry(const Entry& entry) {
  auto pad = [](std::string text, std::size_t width) {
    if (text.size() < width) text.append(width - text.size(), ' ');
    return text;
  };
  std::string location =
      escape(entry.file) + ":" + std::to_string(entry.line) + ":" + std::to_string(entry.column);
  std::string line = pad(entry.id, 16) + " " + pad(location, 17) + " " +
                     pad(escape(entry.function), 11) + " " +
                     pad(std::to_string(entry.index) + "/" + std::to_string(entry.loops), 4) + " " +
                     std::to_string(entry.factor);
  if (!entry.evidence.empty()) line.append(entry.factor < 10 ? 7 : 6, ' ');
  for (std::size_t i = 0; i < entry.evidence.size(); ++i) {
    if (i > 0) line += ' ';
    line += escape(entry.evidence[i].first) + "=" + escape(entry.evidence[i].second);
  }
  return line;
}

// Formats a whole profile: the version line, the header comments, then one line per entry.
inline std::string format_profile(const Profile& profile) {
  std::string text = std::string(kMagic) + " " + std::to_string(kVersion) + "\n";
  if (!profile.flags.empty())
    text += std::string(kFlagsKeyword) + " " + join_flags(profile.flags) + "\n";
  for (const std::string& comment : profile.header_comments) text += "# " + comment + "\n";
  for (const Entry& entry : profile.entries) text += format_entry(entry) + "\n";
  return text;
}

}  // namespace looprace::profile

#endif  // LOOPRACE_PLUGIN_PROFILE_GRAMMAR_H
