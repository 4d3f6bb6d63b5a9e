// Unit tests of the shared model grammar and evaluator (plugin/model_grammar.h): round trips,
// predictions of hand-made trees, the factor choice with its margin for GCC's default, and every
// malformed input reported with its line number.
#include "model_grammar.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace lm = looprace::model;

namespace {

// One tree on `stmts` (index 0) and `factor` (index 1): factor < 3.5 predicts 0.10;
// otherwise stmts < 20 predicts -0.20 and larger bodies 0.05.
const char* const kModel =
    "looprace-model 1\n"
    "# by hand\n"
    "features stmts factor\n"
    "factors 0 1 2 4 8\n"
    "keep-default-within 0.01\n"
    "base 0.5\n"
    "tree\n"
    "split 0 1 3.5 1 2 1\n"
    "leaf 1 0.1\n"
    "split 2 0 20 3 4 3   # small bodies\n"
    "leaf 3 -0.2\n"
    "leaf 4 0.05\n";

lm::Model parse_ok(const std::string& text) {
  lm::ParseResult result = lm::parse(text);
  if (auto* error = std::get_if<lm::ParseError>(&result))
    ADD_FAILURE() << "line " << error->line << ": " << error->message;
  if (auto* model = std::get_if<lm::Model>(&result)) return *model;
  return {};
}

lm::ParseError parse_error(const std::string& text) {
  lm::ParseResult result = lm::parse(text);
  EXPECT_TRUE(std::holds_alternative<lm::ParseError>(result)) << text;
  if (auto* error = std::get_if<lm::ParseError>(&result)) return *error;
  return {};
}

TEST(ModelGrammar, ReadsEveryPart) {
  lm::Model model = parse_ok(kModel);
  EXPECT_EQ(model.features, (std::vector<std::string>{"stmts", "factor"}));
  EXPECT_EQ(model.features_line, 3);
  EXPECT_EQ(model.factor_index(), 1);
  EXPECT_EQ(model.factors, (std::vector<int>{0, 1, 2, 4, 8}));
  EXPECT_DOUBLE_EQ(model.keep_default_within, 0.01);
  EXPECT_DOUBLE_EQ(model.base, 0.5);
  ASSERT_EQ(model.trees.size(), 1u);
  ASSERT_EQ(model.trees[0].nodes.size(), 5u);
  EXPECT_EQ(model.trees[0].nodes[2].feature, 0);
  EXPECT_FLOAT_EQ(model.trees[0].nodes[2].threshold, 20);
  EXPECT_EQ(model.header_comments, (std::vector<std::string>{"by hand"}));
}

TEST(ModelGrammar, PredictsByWalkingEachTree) {
  lm::Model model = parse_ok(kModel);
  EXPECT_NEAR(lm::predict(model, {10, 2}), 0.6, 1e-6);
  EXPECT_NEAR(lm::predict(model, {10, 4}), 0.3, 1e-6);
  EXPECT_NEAR(lm::predict(model, {20, 4}), 0.55, 1e-6);  // the threshold itself goes to `no`
  EXPECT_NEAR(lm::predict(model, {NAN, 4}), 0.3, 1e-6);  // missing follows `missing`
  model.trees.push_back(model.trees[0]);                 // trees add up
  EXPECT_NEAR(lm::predict(model, {10, 4}), 0.1, 1e-6);
}

TEST(ModelGrammar, ChoosesThePredictedFastestFactor) {
  lm::Model model = parse_ok(kModel);
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 4);  // ties between 4 and 8: the first listed
  EXPECT_EQ(lm::choose_factor(model, {30, 0}), 4);  // 0.55 against 0's 0.6
}

TEST(ModelGrammar, KeepsGccsChoiceUnlessAnotherIsFasterByTheMargin) {
  lm::Model model = parse_ok(kModel);
  model.keep_default_within = 0.31;  // 4 is predicted 0.3 faster than 0: within the margin
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 0);
  model.keep_default_within = 0.29;
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 4);
  model.keep_default_within = 0.06;  // 0.05 faster (a larger body): not more than the margin
  EXPECT_EQ(lm::choose_factor(model, {30, 0}), 0);
  model.factors = {1, 2, 8};  // without 0 among the candidates, the fastest is taken
  model.keep_default_within = 10;
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 8);
}

TEST(ModelGrammar, Version2KeepsThePreferredFactorUnlessAnotherIsFasterByTheMargin) {
  std::string text = kModel;
  text.replace(text.find("model 1"), 7, "model 2");
  text.insert(text.find("base"), "prefer 8\n");
  lm::Model model = parse_ok(text);
  EXPECT_EQ(model.prefer, 8);
  EXPECT_EQ(model.version, 2);
  // Small bodies: 4 and 8 are both predicted 0.3; 8 is kept, since it is preferred.
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 8);
  model.prefer = 2;  // 0.6 for 2, 0.3 for 4: faster by more than the margin
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 4);
  model.keep_default_within = 0.31;
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 2);
  model.ranges.push_back({0, 4, 40});  // outside its ranges a loop keeps GCC's choice
  EXPECT_EQ(lm::choose_factor(model, {41, 0}), 0);
  // Written as version 2 with its prefer line, read back the same; without one, as version 1.
  const std::string written = lm::format_model(model);
  EXPECT_EQ(written.rfind("looprace-model 2\n", 0), 0u) << written;
  EXPECT_EQ(lm::format_model(parse_ok(written)), written);
  model.prefer = 0;
  EXPECT_EQ(lm::format_model(model).rfind("looprace-model 1\n", 0), 0u);
}

TEST(ModelGrammar, KeepsGccsChoiceForALoopOutsideItsRanges) {
  lm::Model model = parse_ok(std::string(kModel) + "");
  ASSERT_TRUE(model.ranges.empty());
  std::string text = kModel;
  text.insert(text.find("tree\n"), "range stmts 4 40\n");
  model = parse_ok(text);
  ASSERT_EQ(model.ranges.size(), 1u);
  EXPECT_EQ(lm::choose_factor(model, {10, 0}), 4);
  EXPECT_EQ(lm::choose_factor(model, {41, 0}), 0);   // above: never seen, never changed
  EXPECT_EQ(lm::choose_factor(model, {3, 0}), 0);    // below
  EXPECT_EQ(lm::choose_factor(model, {NAN, 0}), 0);  // unknown
  EXPECT_EQ(lm::format_model(parse_ok(lm::format_model(model))), lm::format_model(model));
}

TEST(ModelGrammar, FillsTheFactorInputsFromStmtsAndNiter) {
  lm::Model model;
  model.features = {"stmts",          "niter",          "factor",
                    "unrolled_stmts", "trip_remainder", "trip_per_copy"};
  std::vector<float> row = {10, 9, 0, 0, 0, 0};  // 10 iterations
  lm::set_factor_inputs(model, row, 4);
  EXPECT_EQ(row, (std::vector<float>{10, 9, 4, 40, 2, 2}));
  lm::set_factor_inputs(model, row, 0);  // 0 and 1: one copy
  EXPECT_EQ(row, (std::vector<float>{10, 9, 0, 10, 0, 10}));
  row[1] = -1;  // not constant
  lm::set_factor_inputs(model, row, 8);
  EXPECT_EQ(row, (std::vector<float>{10, -1, 8, 80, -1, -1}));
}

TEST(ModelGrammar, RoundTripsThroughFormat) {
  lm::Model model = parse_ok(kModel);
  model.trees[0].nodes[4].value = 0.123456789f;
  lm::Model again = parse_ok(lm::format_model(model));
  EXPECT_EQ(lm::format_model(again), lm::format_model(model));
  EXPECT_EQ(again.trees[0].nodes[4].value, model.trees[0].nodes[4].value);
  for (float insns : {1.f, 19.5f, 20.f, 100.f})
    for (int factor : {0, 4})
      EXPECT_EQ(lm::predict(again, {insns, float(factor)}),
                lm::predict(model, {insns, float(factor)}));
}

TEST(ModelGrammar, ReportsEveryMalformedInputWithItsLine) {
  auto with = [](const std::string& from, const std::string& to) {
    std::string text = kModel;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  struct Case {
    std::string text;
    int line;
    std::string message;
  };
  const Case cases[] = {
      {"", 1, "empty model"},
      {"looprace-profile 1\n", 1, "not a looprace model"},
      {"looprace-model 3\n", 1, "unsupported model version"},
      {with("base 0.5", "prefer 4"), 6, "needs 'looprace-model 2'"},
      {with("base 0.5", "prefer 17").replace(0, 16, "looprace-model 2"), 6, "expected 'prefer F'"},
      {with("features stmts factor", "features stmts"), 3, "must name 'factor'"},
      {with("factors 0 1 2 4 8", "factors 0 17"), 4, "bad factor '17'"},
      {with("keep-default-within 0.01", "keep-default-within -1"), 5, "M >= 0"},
      {with("base 0.5", "base nan"), 6, "expected 'base B'"},
      {with("base 0.5", "bias 0.5"), 6, "unknown line 'bias'"},
      {with("split 0 1 3.5 1 2 1", "split 0 2 3.5 1 2 1"), 8, "bad feature index '2'"},
      {with("split 0 1 3.5 1 2 1", "split 0 1 3.5 0 2 1"), 8, "bad child ids"},
      {with("leaf 1 0.1", "leaf 2 0.1"), 9, "out of order"},
      {with("leaf 1 0.1", "leaf 1 x"), 9, "bad leaf value"},
      {with("leaf 1 0.1", "leaf 1 1e39"), 9, "bad leaf value"},  // no float holds it
      {with("split 0 1 3.5 1 2 1", "split 0 1 -1e39 1 2 1"), 8, "bad threshold"},
      {with("split 0 1 3.5 1 2 1", "split 0 1 3.5 1 9 1"), 12, "points past"},
      {with("tree\n", "tree\nbase 1\n"), 8, "after the first tree"},
      {with("tree\n", ""), 7, "before the first 'tree'"},
      {with("base 0.5", "range stmts 5 1"), 6, "LO <= HI"},
      {with("features stmts factor", "features factor unrolled_stmts"), 3, "computed from 'stmts'"},
      {with("base 0.5", "range factor 0 16"), 6, "not a loop feature"},
      {with("base 0.5", "range niter 0 16"), 6, "not a loop feature"},
      {with("leaf 4 0.05\n", "leaf 4 0.05\ntree\n"), 13, "empty tree"},
      {with("factors 0 1 2 4 8\n", ""), 11, "missing the 'factors' line"},
      // Found by the fuzzer: ranges named by a first features line, then a second one.
      {with("base 0.5", "range stmts 0 45\nfeatures factor"), 7, "second features line"},
  };
  for (const Case& c : cases) {
    lm::ParseError error = parse_error(c.text);
    EXPECT_EQ(error.line, c.line) << c.text;
    EXPECT_NE(error.message.find(c.message), std::string::npos) << error.message;
  }
}

}  // namespace
