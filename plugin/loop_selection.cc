// Loop selectors: how arguments and profiles name loops.
#include "loop_selection.h"

namespace looprace {

std::optional<LoopSelector> parse_selector(std::string_view text) {
  LoopSelector selector;
  selector.text = std::string(text);
  if (text == "*" || text == "all") {  // `all` survives shells and build tools unexpanded
    selector.all = true;
  } else if (profile::is_loop_id(text)) {
    selector.id = std::string(text);
  } else {
    selector.location = profile::parse_location(text);
    if (!selector.location) return std::nullopt;
  }
  return selector;
}

bool selector_matches(const LoopSelector& selector, const LoopIdentity& loop) {
  if (selector.all) return true;
  if (!selector.id.empty()) return selector.id == loop.id;
  return selector.location->line == loop.line && selector.location->column == loop.column &&
         path_has_suffix(loop.file, selector.location->file);
}

std::vector<std::string_view> split_list(std::string_view value) {
  std::vector<std::string_view> items;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = value.find(',', start);
    items.push_back(value.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

}  // namespace looprace
