// Loop identity: which source position names a loop, and the id derived from it.
#include "loop_identity.h"

namespace looprace {

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string format_loop_id(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

bool path_has_suffix(std::string_view path, std::string_view suffix) {
  auto strip_dot = [](std::string_view& p) {
    while (p.substr(0, 2) == "./") p.remove_prefix(2);
  };
  strip_dot(path);
  strip_dot(suffix);
  if (suffix.empty() || suffix.size() > path.size()) return false;
  if (path.substr(path.size() - suffix.size()) != suffix) return false;
  return path.size() == suffix.size() || path[path.size() - suffix.size() - 1] == '/';
}

namespace {

// The location of the condition ending bb, if bb ends in one.
location_t condition_location(basic_block bb) {
  gimple* last = last_stmt(bb);
  if (last && gimple_code(last) == GIMPLE_COND) return gimple_location(last);
  return UNKNOWN_LOCATION;
}

// The first statement of bb with a location, debug statements skipped so -g changes nothing.
location_t first_location(basic_block bb) {
  for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
    gimple* stmt = gsi_stmt(gsi);
    if (!is_gimple_debug(stmt) && gimple_location(stmt) != UNKNOWN_LOCATION)
      return gimple_location(stmt);
  }
  return UNKNOWN_LOCATION;
}

// The loop's controlling test, falling back step by step to something always present:
// the single exit's condition (what -fopt-info reports), the header's condition, a located
// statement of header or latch, the entry edge's goto locus, the function.
location_t loop_location(class loop* loop) {
  location_t location = UNKNOWN_LOCATION;
  if (edge exit = single_exit(loop)) location = condition_location(exit->src);
  if (location == UNKNOWN_LOCATION) location = condition_location(loop->header);
  if (location == UNKNOWN_LOCATION) location = first_location(loop->header);
  if (location == UNKNOWN_LOCATION && loop->latch) location = first_location(loop->latch);
  if (location == UNKNOWN_LOCATION) {
    edge entry;
    edge_iterator ei;
    FOR_EACH_EDGE(entry, ei, loop->header->preds) {
      if (entry->src != loop->latch && entry->goto_locus != UNKNOWN_LOCATION) {
        location = entry->goto_locus;
        break;
      }
    }
  }
  if (location == UNKNOWN_LOCATION) location = DECL_SOURCE_LOCATION(current_function_decl);
  return location;
}

}  // namespace

std::vector<LoopIdentity> identify_loops(function* fun) {
  std::vector<LoopIdentity> identities;
  tree decl = fun->decl;
  std::string function = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl));
  std::string name = lang_hooks.decl_printable_name(decl, 2);
  int fn_line = DECL_SOURCE_LINE(decl);
  std::map<std::tuple<std::string, int, int>, int> ordinals;
  for (class loop* loop : loops_list(fun, 0)) {
    LoopIdentity identity;
    identity.loop = loop;
    identity.location = loop_location(loop);
    expanded_location where = expand_location(identity.location);
    identity.file = where.file ? where.file : "";
    identity.line = where.line;
    identity.column = where.column;
    identity.function = function;
    identity.name = name;
    identity.fn_line = fn_line;
    identity.depth = loop_depth(loop);
    identity.ordinal = ordinals[{identity.file, identity.line, identity.column}]++;
    identity.index = static_cast<int>(identities.size());
    std::string_view file = identity.file;
    std::string_view basename = file.substr(file.rfind('/') + 1);
    std::string key = std::string(basename) + ":" + function + ":" + std::to_string(identity.line) +
                      ":" + std::to_string(identity.column) + "#" +
                      std::to_string(identity.ordinal);
    identity.hash = fnv1a64(key);
    identity.id = format_loop_id(identity.hash);
    identities.push_back(std::move(identity));
  }
  for (LoopIdentity& identity : identities) identity.loops = static_cast<int>(identities.size());
  return identities;
}

}  // namespace looprace
