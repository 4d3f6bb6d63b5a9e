// A small well-formedness check for the SVG and HTML the report writes (they are written as
// XML-compatible markup): every tag closed in order, attributes quoted, no stray '<' or '&'.
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace looprace::report::testing {

// Returns an empty string when `text` is well formed, else what is wrong and where.
inline std::string xml_problem(const std::string& text) {
  std::vector<std::string> open;
  std::size_t i = 0;
  auto where = [&](std::size_t at) { return " at offset " + std::to_string(at); };
  while (i < text.size()) {
    if (text[i] == '&') {
      std::size_t semi = text.find(';', i);
      if (semi == std::string::npos || semi - i > 8) return "bare '&'" + where(i);
      i = semi + 1;
      continue;
    }
    if (text[i] != '<') {
      if (text[i] == '>') return "stray '>'" + where(i);
      ++i;
      continue;
    }
    if (text.compare(i, 4, "<!--") == 0) {
      std::size_t end = text.find("-->", i);
      if (end == std::string::npos) return "unclosed comment" + where(i);
      i = end + 3;
      continue;
    }
    if (text.compare(i, 2, "<!") == 0 || text.compare(i, 2, "<?") == 0) {
      std::size_t end = text.find('>', i);
      if (end == std::string::npos) return "unclosed declaration" + where(i);
      i = end + 1;
      continue;
    }
    bool closing = text.compare(i, 2, "</") == 0;
    std::size_t j = i + (closing ? 2 : 1);
    std::size_t name_start = j;
    while (j < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '-' || text[j] == ':'))
      ++j;
    std::string name = text.substr(name_start, j - name_start);
    if (name.empty()) return "stray '<'" + where(i);
    // Attributes: name="value" pairs until '>' or '/>'.
    bool self_closing = false;
    while (true) {
      while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
      if (j >= text.size()) return "unterminated tag <" + name + where(i);
      if (text[j] == '>') {
        ++j;
        break;
      }
      if (text.compare(j, 2, "/>") == 0) {
        self_closing = true;
        j += 2;
        break;
      }
      std::size_t eq = text.find('=', j);
      if (eq == std::string::npos || eq + 1 >= text.size() ||
          (text[eq + 1] != '"' && text[eq + 1] != '\''))
        return "unquoted attribute in <" + name + ">" + where(j);
      std::size_t close = text.find(text[eq + 1], eq + 2);
      if (close == std::string::npos) return "unterminated attribute in <" + name + ">" + where(j);
      if (text.substr(eq + 2, close - eq - 2).find('<') != std::string::npos)
        return "'<' inside an attribute of <" + name + ">" + where(j);
      j = close + 1;
    }
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> does not close <" + (open.empty() ? "" : open.back()) + ">" +
               where(i);
      open.pop_back();
    } else if (!self_closing) {
      open.push_back(name);
      // Style and script bodies are raw text: skip to their end tag.
      if (name == "style" || name == "script") {
        std::size_t end = text.find("</" + name, j);
        if (end == std::string::npos) return "unclosed <" + name + ">" + where(i);
        j = end;
      }
    }
    i = j;
  }
  if (!open.empty()) return "<" + open.back() + "> never closed";
  return "";
}

}  // namespace looprace::report::testing
