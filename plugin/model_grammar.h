// The one grammar of the looprace model file (docs/formats.md section 5b) and its evaluator,
// shared by the GCC plugin (which applies models) and the driver (which trains, writes and
// evaluates them). A model is a sum of regression trees predicting, for a loop and a factor, the
// log of that factor's slowdown against the loop's best factor; the factor chosen is the one
// predicted fastest, the preferred factor (GCC's own choice, 0, unless the file names another)
// kept unless another is predicted faster by more than a margin, and GCC's choice kept for
// every loop unlike those the model learnt from.
//
// Header-only, no GCC header, and never throws on bad input: every problem is returned as a
// ParseError carrying the 1-based line at fault.
//
//   looprace-model 1           (2 when the file has a prefer line)
//   # comments, anywhere a token could start
//   features NAME ...          the inputs, in the order split lines index them; one is `factor`
//   factors F ...              the candidate factors (0..16)
//   keep-default-within M      log-slowdown margin in favour of the preferred factor (>= 0)
//   prefer F                   the preferred factor (version 2 only; 0 when absent)
//   base B                     added to every prediction
//   range NAME LO HI           a loop whose feature NAME lies outside [LO, HI] keeps factor 0
//   tree                       starts a tree; its nodes follow, root first (id 0)
//   split ID FEATURE THRESHOLD YES NO MISSING    value < THRESHOLD goes to YES
//   leaf ID VALUE
#ifndef LOOPRACE_PLUGIN_MODEL_GRAMMAR_H
#define LOOPRACE_PLUGIN_MODEL_GRAMMAR_H

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "profile_grammar.h"

namespace looprace::model {

inline constexpr std::string_view kMagic = "looprace-model";
// Version 2 adds the prefer line; a model without one is written as version 1, which every
// looprace reads.
inline constexpr int kVersion = 2;
// The loop features a model may read: the loop table's (docs/formats.md section 3), which the
// plugin counts where it sets factors, before inlining.
inline constexpr std::string_view kLoopFeatures[] = {"blocks", "stmts",     "loads",    "stores",
                                                     "calls",  "branches",  "exits",    "inner",
                                                     "niter",  "est_niter", "max_niter"};
// The input that carries the candidate factor.
inline constexpr std::string_view kFactorFeature = "factor";
// The inputs that depend on the candidate factor, which the evaluator fills for each candidate
// from the loop's stmts and niter (latch executions when constant, else -1):
//   factor          the candidate itself
//   unrolled_stmts  stmts times the copies the factor asks for (0 and 1: one)
//   trip_remainder  iterations left over by the copies, (niter + 1) mod copies; -1 when the
//                   count is not constant
//   trip_per_copy   (niter + 1) / copies rounded down; -1 when the count is not constant
inline constexpr std::string_view kFactorInputs[] = {kFactorFeature, "unrolled_stmts",
                                                     "trip_remainder", "trip_per_copy"};

inline bool is_factor_input(std::string_view name) {
  for (std::string_view input : kFactorInputs)
    if (name == input) return true;
  return false;
}
// Bounds that keep a hostile file from exhausting memory (a trained model is far below them).
inline constexpr std::size_t kMaxNodesPerTree = 1 << 16;
inline constexpr std::size_t kMaxFeatures = 256;

// One node: a split (feature >= 0) or a leaf (feature < 0, value).
struct Node {
  int feature = -1;
  float threshold = 0;
  int yes = 0;  // value < threshold
  int no = 0;
  int missing = 0;  // value is NaN
  float value = 0;
};

struct Tree {
  std::vector<Node> nodes;  // nodes[0] is the root; children always have larger ids
};

// The values of one input the model learnt from: a loop outside them keeps GCC's choice.
struct Range {
  int feature = 0;  // index into Model::features
  double low = 0;
  double high = 0;
};

struct Model {
  std::vector<std::string> features;
  int features_line = 0;  // where the features line was, for diagnostics about a name
  std::vector<int> factors;
  double keep_default_within = 0;
  int prefer = 0;  // the factor kept unless another is predicted faster by the margin
  int version = 1;
  double base = 0;
  std::vector<Range> ranges;
  std::vector<Tree> trees;
  std::vector<std::string> header_comments;

  // Index of the `factor` input.
  int factor_index() const {
    for (std::size_t i = 0; i < features.size(); ++i)
      if (features[i] == kFactorFeature) return static_cast<int>(i);
    return -1;
  }
};

struct ParseError {
  std::string message;
  int line = 0;
};

using ParseResult = std::variant<Model, ParseError>;

namespace detail {

inline std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  if (text.empty()) return std::nullopt;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A number that is finite as a 32-bit float (a tree's values are floats).
inline std::optional<float> parse_float(std::string_view text) {
  auto value = parse_number(text);
  if (!value || !std::isfinite(static_cast<float>(*value))) return std::nullopt;
  return static_cast<float>(*value);
}

// Parses a node line's tokens into the tree being read; a message on failure.
inline std::optional<std::string> add_node(const std::vector<std::string_view>& tokens,
                                           std::size_t feature_count, Tree& tree) {
  using profile::detail::parse_int;
  const bool split = tokens[0] == "split";
  if (tokens.size() != (split ? 7u : 3u))
    return split ? "expected 'split ID FEATURE THRESHOLD YES NO MISSING'"
                 : "expected 'leaf ID VALUE'";
  auto id = parse_int(tokens[1]);
  if (!id || *id != static_cast<int>(tree.nodes.size()))
    return "node id '" + std::string(tokens[1]) + "' out of order (expected " +
           std::to_string(tree.nodes.size()) + ")";
  if (tree.nodes.size() >= kMaxNodesPerTree)
    return "tree has more than " + std::to_string(kMaxNodesPerTree) + " nodes";
  Node node;
  if (!split) {
    auto value = parse_float(tokens[2]);
    if (!value) return "bad leaf value '" + std::string(tokens[2]) + "'";
    node.value = *value;
    tree.nodes.push_back(node);
    return std::nullopt;
  }
  auto feature = parse_int(tokens[2]);
  auto threshold = parse_float(tokens[3]);
  auto yes = parse_int(tokens[4]), no = parse_int(tokens[5]), missing = parse_int(tokens[6]);
  if (!feature || *feature < 0 || static_cast<std::size_t>(*feature) >= feature_count)
    return "bad feature index '" + std::string(tokens[2]) + "' (the features line names " +
           std::to_string(feature_count) + ")";
  if (!threshold) return "bad threshold '" + std::string(tokens[3]) + "'";
  for (auto child : {yes, no, missing})
    if (!child || *child <= *id)
      return "bad child ids (each must be a number above the node's own id " + std::to_string(*id) +
             ")";
  node = {*feature, *threshold, *yes, *no, *missing, 0};
  tree.nodes.push_back(node);
  return std::nullopt;
}

// A message when a finished tree points at nodes it does not have.
inline std::optional<std::string> check_tree(const Tree& tree) {
  if (tree.nodes.empty()) return "empty tree";
  const int size = static_cast<int>(tree.nodes.size());
  for (const Node& node : tree.nodes)
    if (node.feature >= 0 && (node.yes >= size || node.no >= size || node.missing >= size))
      return "a split points past the tree's last node " + std::to_string(size - 1);
  return std::nullopt;
}

// A message when a factor input is named without the loop feature it is computed from.
inline std::optional<std::string> missing_source(const std::vector<std::string>& features) {
  auto has = [&](std::string_view name) {
    return std::find(features.begin(), features.end(), name) != features.end();
  };
  const std::pair<std::string_view, std::string_view> needs[] = {
      {"unrolled_stmts", "stmts"}, {"trip_remainder", "niter"}, {"trip_per_copy", "niter"}};
  for (const auto& [input, source] : needs)
    if (has(input) && !has(source))
      return "'" + std::string(input) + "' is computed from '" + std::string(source) +
             "': name it on the features line too";
  return std::nullopt;
}

// Parses a header line (features, factors, keep-default-within, base, range); a message on
// failure.
inline std::optional<std::string> add_header(const std::vector<std::string_view>& tokens, int line,
                                             Model& model) {
  std::string_view key = tokens[0];
  if (key == "features") {
    // Ranges and trees name features by the first features line; a second would change them.
    if (model.features_line != 0)
      return "a second features line (the first is line " + std::to_string(model.features_line) +
             ")";
    model.features_line = line;
    if (tokens.size() < 2 || tokens.size() - 1 > kMaxFeatures)
      return "expected 'features NAME ...' (1.." + std::to_string(kMaxFeatures) + " names)";
    model.features.assign(tokens.begin() + 1, tokens.end());
    if (model.factor_index() < 0) return "the features line must name 'factor'";
    return std::nullopt;
  }
  if (key == "factors") {
    model.factors.clear();
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      auto factor = profile::parse_factor(tokens[i]);
      if (!factor) return "bad factor '" + std::string(tokens[i]) + "' (expected 0..16)";
      model.factors.push_back(*factor);
    }
    if (model.factors.empty()) return "expected 'factors F ...'";
    return std::nullopt;
  }
  if (key == "range") {
    auto low = tokens.size() == 4 ? parse_number(tokens[2]) : std::nullopt;
    auto high = tokens.size() == 4 ? parse_number(tokens[3]) : std::nullopt;
    if (!low || !high || *low > *high) return "expected 'range NAME LO HI' with LO <= HI";
    for (std::size_t i = 0; i < model.features.size(); ++i)
      if (model.features[i] == tokens[1] && !is_factor_input(tokens[1])) {
        model.ranges.push_back({static_cast<int>(i), *low, *high});
        return std::nullopt;
      }
    return "range of '" + std::string(tokens[1]) +
           "', which is not a loop feature of the features line (give that line first)";
  }
  std::optional<double> number;
  if (tokens.size() == 2) number = parse_number(tokens[1]);
  if (key == "prefer") {
    auto factor = tokens.size() == 2 ? profile::parse_factor(tokens[1]) : std::nullopt;
    if (!factor) return "expected 'prefer F' with F in 0..16";
    if (model.version < 2) return "'prefer' needs 'looprace-model 2'";
    model.prefer = *factor;
    return std::nullopt;
  }
  if (key == "keep-default-within") {
    if (!number || *number < 0) return "expected 'keep-default-within M' with M >= 0";
    model.keep_default_within = *number;
    return std::nullopt;
  }
  if (key == "base") {
    if (!number) return "expected 'base B'";
    model.base = *number;
    return std::nullopt;
  }
  return "unknown line '" + std::string(key) +
         "' (expected features, factors, keep-default-within, prefer, base, range, tree, split or "
         "leaf)";
}

}  // namespace detail

// Parses a whole model file.
inline ParseResult parse(std::string_view text) {
  Model model;
  bool seen_magic = false;
  int line_number = 0;
  std::size_t start = 0;
  auto error = [&](std::string message) { return ParseError{std::move(message), line_number}; };
  while (start < text.size()) {
    std::string_view line = profile::detail::next_line(text, start);
    ++line_number;
    auto tokens = profile::detail::tokenize(line);
    if (tokens.empty()) {
      std::size_t hash = line.find('#');
      if (hash != std::string_view::npos && model.trees.empty() && seen_magic) {
        std::string_view comment = line.substr(hash + 1);
        if (!comment.empty() && comment.front() == ' ') comment.remove_prefix(1);
        model.header_comments.emplace_back(comment);
      }
      continue;
    }
    if (!seen_magic) {
      if (tokens[0] != kMagic) return error("not a looprace model: expected 'looprace-model 1'");
      auto version = tokens.size() == 2 ? profile::detail::parse_int(tokens[1]) : std::nullopt;
      if (!version || *version < 1 || *version > kVersion)
        return error("unsupported model version (this looprace reads 'looprace-model 1' and 2)");
      model.version = *version;
      seen_magic = true;
      continue;
    }
    std::optional<std::string> problem;
    if (tokens[0] == "tree") {
      if (tokens.size() != 1) return error("expected 'tree' alone");
      if (!model.trees.empty()) problem = detail::check_tree(model.trees.back());
      model.trees.emplace_back();
    } else if (tokens[0] == "split" || tokens[0] == "leaf") {
      if (model.trees.empty()) return error("a node before the first 'tree' line");
      if (model.features.empty()) return error("a node before the 'features' line");
      problem = detail::add_node(tokens, model.features.size(), model.trees.back());
    } else if (!model.trees.empty()) {
      problem = "'" + std::string(tokens[0]) + "' after the first tree (headers come first)";
    } else {
      problem = detail::add_header(tokens, line_number, model);
    }
    if (problem) return error(*problem);
  }
  if (!seen_magic) return ParseError{"empty model: missing 'looprace-model 1'", 1};
  if (model.features.empty()) return error("missing the 'features' line");
  if (auto missing = detail::missing_source(model.features))
    return ParseError{*missing, model.features_line};
  if (model.factors.empty()) return error("missing the 'factors' line");
  if (model.trees.empty()) return error("no tree");
  if (auto problem = detail::check_tree(model.trees.back())) return error(*problem);
  return model;
}

// The model's prediction for one input row (in model.features order).
inline double predict(const Model& model, const std::vector<float>& row) {
  double sum = model.base;
  for (const Tree& tree : model.trees) {
    int at = 0;
    while (tree.nodes[at].feature >= 0) {
      const Node& node = tree.nodes[at];
      float value = row[node.feature];
      at = std::isnan(value) ? node.missing : value < node.threshold ? node.yes : node.no;
    }
    sum += tree.nodes[at].value;
  }
  return sum;
}

// Sets the factor-dependent inputs of row (see kFactorInputs) for a candidate factor.
inline void set_factor_inputs(const Model& model, std::vector<float>& row, int factor) {
  auto value_of = [&](std::string_view name) {
    for (std::size_t i = 0; i < model.features.size(); ++i)
      if (model.features[i] == name) return row[i];
    return std::nanf("");
  };
  const float stmts = value_of("stmts");
  const float niter = value_of("niter");
  const int copies = factor < 2 ? 1 : factor;
  const bool constant = niter >= 0;  // false for NaN too
  const float trip = constant ? niter + 1 : -1;
  for (std::size_t i = 0; i < model.features.size(); ++i) {
    const std::string& name = model.features[i];
    if (name == kFactorFeature)
      row[i] = static_cast<float>(factor);
    else if (name == "unrolled_stmts")
      row[i] = stmts * static_cast<float>(copies);
    else if (name == "trip_remainder")
      row[i] = constant ? std::fmod(trip, static_cast<float>(copies)) : -1;
    else if (name == "trip_per_copy")
      row[i] = constant ? std::floor(trip / static_cast<float>(copies)) : -1;
  }
}

// True when every ranged input of row lies in its range (a NaN never does).
inline bool within_ranges(const Model& model, const std::vector<float>& row) {
  for (const Range& range : model.ranges) {
    const float value = row[range.feature];
    if (!(value >= range.low && value <= range.high)) return false;
  }
  return true;
}

// The factor the model picks for a loop whose features are `row` (the factor inputs are set
// here): 0 for a loop outside the model's ranges; otherwise
// the candidate predicted fastest, or the preferred factor when it is a candidate and no other
// is predicted faster than it by more than keep_default_within.
inline int choose_factor(const Model& model, std::vector<float> row) {
  if (!within_ranges(model, row)) return 0;
  int best = model.factors.front();
  double best_prediction = 0;
  std::optional<double> default_prediction;
  for (std::size_t i = 0; i < model.factors.size(); ++i) {
    set_factor_inputs(model, row, model.factors[i]);
    double prediction = predict(model, row);
    if (model.factors[i] == model.prefer) default_prediction = prediction;
    if (i == 0 || prediction < best_prediction) {
      best = model.factors[i];
      best_prediction = prediction;
    }
  }
  if (default_prediction && *default_prediction - best_prediction <= model.keep_default_within)
    return model.prefer;
  return best;
}

// Formats a number so that parse() reads back the same float.
inline std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

// Formats a whole model file.
inline std::string format_model(const Model& model) {
  const int version = model.prefer != 0 ? 2 : 1;
  std::string text = std::string(kMagic) + " " + std::to_string(version) + "\n";
  for (const std::string& comment : model.header_comments) text += "# " + comment + "\n";
  text += "features";
  for (const std::string& name : model.features) text += " " + name;
  text += "\nfactors";
  for (int factor : model.factors) text += " " + std::to_string(factor);
  text += "\nkeep-default-within " + format_number(model.keep_default_within) + "\n";
  if (model.prefer != 0) text += "prefer " + std::to_string(model.prefer) + "\n";
  text += "base " + format_number(model.base) + "\n";
  for (const Range& range : model.ranges)
    text += "range " + model.features[range.feature] + " " + format_number(range.low) + " " +
            format_number(range.high) + "\n";
  for (const Tree& tree : model.trees) {
    text += "tree\n";
    for (std::size_t id = 0; id < tree.nodes.size(); ++id) {
      const Node& n = tree.nodes[id];
      text += n.feature < 0
                  ? "leaf " + std::to_string(id) + " " + format_number(n.value) + "\n"
                  : "split " + std::to_string(id) + " " + std::to_string(n.feature) + " " +
                        format_number(n.threshold) + " " + std::to_string(n.yes) + " " +
                        std::to_string(n.no) + " " + std::to_string(n.missing) + "\n";
    }
  }
  return text;
}

}  // namespace looprace::model

#endif  // LOOPRACE_PLUGIN_MODEL_GRAMMAR_H
