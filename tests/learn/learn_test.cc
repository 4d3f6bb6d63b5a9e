// Unit tests of heuristic training (driver/learn): targets from tie sets and slowdowns, the
// exported-row reader, XGBoost training whose converted trees predict what XGBoost predicts and
// learn a rule that is there, and leave-one-program-out figures against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "learn/dataset_json.h"
#include "learn/evaluation.h"
#include "learn/trainer.h"

namespace ll = looprace::learn;

namespace {

// A loop whose factor F costs means[F]; factors 2..16 beyond the list share the last code.
ll::LoopExample loop_with(std::string program, std::vector<double> means, std::set<int> winners,
                          double insns = 10) {
  ll::LoopExample loop;
  loop.program = std::move(program);
  loop.id = loop.program + std::to_string(static_cast<int>(insns));
  loop.features = {{"stmts", insns}, {"niter", -1}, {"calls", 0}};
  for (int factor = 0; factor <= 16; ++factor) {
    int own = std::min<int>(factor, static_cast<int>(means.size()) - 1);
    loop.code_group[factor] = own;
    if (factor == own) loop.mean[factor] = means[own];
  }
  loop.winners = std::move(winners);
  return loop;
}

TEST(Examples, SlowdownsAndTiesFollowCodeGroups) {
  ll::LoopExample loop = loop_with("p", {120, 110, 100, 101}, {2, 3});
  EXPECT_EQ(ll::best_factor(loop), 2);
  EXPECT_DOUBLE_EQ(ll::slowdown(loop, 0), 1.2);
  EXPECT_DOUBLE_EQ(ll::slowdown(loop, 9), 1.01);  // factor 9 has factor 3's code
  EXPECT_TRUE(ll::tied_best(loop, 16));
  EXPECT_FALSE(ll::tied_best(loop, 1));
  EXPECT_TRUE(ll::same_as_best(loop, 2));
  EXPECT_FALSE(ll::same_as_best(loop, 3));
  std::map<int, double> targets = ll::log_slowdown_targets(loop);
  EXPECT_DOUBLE_EQ(targets.at(3), 0.0);  // tied: no cost
  EXPECT_NEAR(targets.at(0), std::log(1.2), 1e-12);
  EXPECT_EQ(targets.count(9), 0u);  // only factors with observations of their own
}

TEST(Examples, AFactorWithoutObservationsCostsItsGroupsOrTheSlowest) {
  ll::LoopExample loop = loop_with("p", {120, 110, 100}, {2});
  loop.mean.erase(1);  // disqualified
  EXPECT_DOUBLE_EQ(ll::slowdown(loop, 1), 1.2);
}

TEST(Examples, StakesAndResolutionOfARace) {
  ll::LoopExample loop = loop_with("p", {120, 110, 100, 101}, {2, 3});
  EXPECT_NEAR(ll::stakes(loop), std::log(1.2), 1e-12);
  EXPECT_TRUE(ll::resolved(loop));
  // Every code tied (factors 2..16 share factor 1's): nothing at stake, whatever the means.
  ll::LoopExample tied = loop_with("p", {100, 104}, {0, 1});
  EXPECT_DOUBLE_EQ(ll::stakes(tied), 0);
  EXPECT_FALSE(ll::resolved(tied));
  // On these two, 2 and 3 are 1.2x faster than GCC's choice on one loop and 1.04x slower on
  // the other; 2 (the lowest of equals) is the best constant.
  std::vector<const ll::LoopExample*> loops = {&loop, &tied};
  EXPECT_EQ(ll::best_constant_factor(loops), 2);
  EXPECT_NEAR(ll::speedup_over_default(loops, [](const ll::LoopExample&) { return 2; }),
              std::sqrt(1.2 / 1.04), 1e-12);
}

TEST(DatasetJson, ReadsExportRowsAndNamesTheBadLine) {
  const std::string row =
      R"({"id":"00000000000000aa","location":"a.c:3:5","features":{"stmts":12,"base":"-O2"},)"
      R"("factors":[{"factor":0,"mean":200,"code_group":0},{"factor":1,"mean":null,"code_group":0},)"
      R"({"factor":2,"mean":100,"code_group":2}],"winners":[2]})";
  const std::string undecided = R"({"id":"00000000000000bb","factors":[],"winners":null})";
  auto examples = ll::examples_from_jsonl(row + "\n\n" + undecided + "\n", "d.jsonl", "prog");
  ASSERT_EQ(examples.size(), 1u);
  EXPECT_EQ(examples[0].program, "prog");
  EXPECT_EQ(examples[0].features.count("base"), 0u);  // not a number
  EXPECT_EQ(examples[0].mean.size(), 2u);
  EXPECT_EQ(examples[0].code_group.at(1), 0);
  try {
    ll::examples_from_jsonl(row + "\n{\"id\": 3, \"winners\": [1]}\n", "d.jsonl", "prog");
    FAIL() << "a bad row was accepted";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("d.jsonl:2:"), std::string::npos) << error.what();
  }
}

// Loops whose best factor is 8 when the body is small and 1 (no unrolling) when it is large.
std::vector<ll::LoopExample> size_rule_examples() {
  std::vector<ll::LoopExample> examples;
  for (int i = 0; i < 24; ++i) {
    const double insns = 4 + 8 * i;
    const bool small = insns < 60;
    std::vector<double> means(17);
    for (int f = 0; f <= 16; ++f) {
      const int copies = f < 2 ? 1 : f;
      means[f] = small ? 100.0 / std::sqrt(std::min(copies, 8)) + (copies > 8 ? copies : 0)
                       : 100.0 + 2 * (copies - 1);
    }
    std::set<int> winners = small ? std::set<int>{8} : std::set<int>{0, 1};
    examples.push_back(loop_with("program" + std::to_string(i % 6), means, winners, insns));
  }
  return examples;
}

// Large bodies: not unrolled, as tied best; small ones: a near miss at most (7 for 8 costs
// 6 %), where GCC's choice costs 2.8x.
void expect_the_size_rule(const looprace::model::Model& model,
                          const std::vector<ll::LoopExample>& examples) {
  for (const ll::LoopExample& loop : examples) {
    const int factor = ll::predict_factor(model, loop);
    if (loop.features.at("stmts") >= 60)
      EXPECT_TRUE(ll::tied_best(loop, factor)) << "insns " << loop.features.at("stmts");
    else
      EXPECT_LT(ll::slowdown(loop, factor), 1.07) << "insns " << loop.features.at("stmts");
  }
}

TEST(Trainer, LearnsARuleThatIsThereAndPredictsLikeXGBoost) {
  std::vector<ll::LoopExample> examples = size_rule_examples();
  looprace::model::Model model = ll::train_model(examples, {});  // checks XGBoost agreement
  EXPECT_EQ(model.factors.size(), 17u);
  EXPECT_EQ(model.features.back(), "trip_per_copy");
  expect_the_size_rule(model, examples);
  // The written model reads back to the same choices (what the plugin will do).
  auto again = std::get<looprace::model::Model>(looprace::model::parse(format_model(model)));
  for (const ll::LoopExample& loop : examples)
    EXPECT_EQ(ll::predict_factor(again, loop), ll::predict_factor(model, loop));
}

TEST(Trainer, PrefersTheBestConstantAndLearnsDeviationsFromIt) {
  std::vector<ll::LoopExample> examples = size_rule_examples();
  std::vector<const ll::LoopExample*> loops;
  for (const auto& loop : examples) loops.push_back(&loop);
  ll::TrainingOptions options;
  options.preferred = ll::Preferred::kBestConstant;
  options.target = ll::Target::kPreferred;
  looprace::model::Model model = ll::train_model(examples, options);
  EXPECT_EQ(model.prefer, ll::best_constant_factor(loops));
  EXPECT_NE(model.prefer, 0);
  expect_the_size_rule(model, examples);
  // A margin no prediction clears keeps the preferred factor everywhere (outside the ranges,
  // GCC's choice); the file reads back as version 2 with the same choices.
  options.margins = {1.0};
  model = ll::train_model(examples, options);
  auto again = std::get<looprace::model::Model>(looprace::model::parse(format_model(model)));
  EXPECT_EQ(again.version, 2);
  for (const ll::LoopExample& loop : examples)
    EXPECT_EQ(ll::predict_factor(again, loop), model.prefer);
  ll::LoopExample unlike = examples.front();
  unlike.features["calls"] = 1;
  EXPECT_EQ(ll::predict_factor(again, unlike), 0);
}

TEST(Trainer, WeighingByStakesIgnoresRacesThatTiedEverything) {
  std::vector<ll::LoopExample> examples = size_rule_examples();
  std::vector<ll::LoopExample> with_ties = examples;
  for (int i = 0; i < 10; ++i)  // within the others' ranges, every factor the same code
    with_ties.push_back(loop_with("tied" + std::to_string(i), {100}, {0}, 10 + 10 * i));
  ll::TrainingOptions options;
  options.weighting = ll::Weighting::kStakes;
  EXPECT_EQ(format_model(ll::train_model(with_ties, options)),
            format_model(ll::train_model(examples, options)));
  options.weighting = ll::Weighting::kEqual;  // weighed equally, they count
  EXPECT_NE(format_model(ll::train_model(with_ties, options)),
            format_model(ll::train_model(examples, options)));
  // With nothing at stake anywhere, every loop counts the same, and GCC's choice stays.
  options.weighting = ll::Weighting::kStakes;
  std::vector<ll::LoopExample> only_ties(with_ties.end() - 10, with_ties.end());
  ll::TrainingOptions equal;
  equal.weighting = ll::Weighting::kEqual;
  EXPECT_EQ(format_model(ll::train_model(only_ties, options)),
            format_model(ll::train_model(only_ties, equal)));
  EXPECT_EQ(ll::predict_factor(ll::train_model(only_ties, options), only_ties.front()), 0);
}

// Loops of 12 programs whose best factor b is anywhere in 4..12, each factor costing 2 % per
// step away from it and 0 (not unrolled) 30 %, with features that say nothing of b (a fixed
// pseudo-random sequence): 8 is the best one can do, GCC's choice the worst.
std::vector<ll::LoopExample> unpredictable_examples() {
  std::vector<ll::LoopExample> examples;
  unsigned state = 12345;
  auto next = [&state](unsigned range) {
    state = state * 1103515245u + 12345u;
    return (state >> 16) % range;
  };
  for (int i = 0; i < 48; ++i) {
    const int b = 4 + static_cast<int>(next(9));
    std::vector<double> means(17);
    for (int f = 0; f <= 16; ++f) means[f] = f < 2 ? 130 : 100 + 2 * std::abs(f - b);
    ll::LoopExample loop = loop_with("program" + std::to_string(i % 12), means, {b},
                                     10 + static_cast<double>(next(40)));
    loop.features["loads"] = next(8);
    examples.push_back(loop);
  }
  return examples;
}

TEST(Trainer, ChoosesTheDecisionRuleOnHeldOutPrograms) {
  std::vector<ll::LoopExample> examples = unpredictable_examples();
  ll::TrainingOptions options;  // margins 0..0.05 (the defaults), either factor preferred
  options.preferred = ll::Preferred::kSelected;
  const ll::Decision decision = ll::select_decision(examples, options);
  EXPECT_EQ(decision.preferred, ll::Preferred::kBestConstant);
  EXPECT_GT(decision.margin, 0);  // the noise the trees fit does not pay
  looprace::model::Model model = ll::train_model(examples, options);
  EXPECT_EQ(model.prefer, 8);
  EXPECT_DOUBLE_EQ(model.keep_default_within, decision.margin);
  // Fixed, the rule is what it is told: GCC's choice within a margin nothing clears.
  options.preferred = ll::Preferred::kGcc;
  options.margins = {1.0};
  EXPECT_EQ(ll::select_decision(examples, options).preferred, ll::Preferred::kGcc);
  EXPECT_EQ(ll::predict_factor(ll::train_model(examples, options), examples.front()), 0);
}

TEST(Trainer, RefusesADatasetWithoutLoopFeatures) {
  ll::LoopExample loop = loop_with("p", {120, 100}, {1});
  loop.features.clear();
  EXPECT_THROW(ll::train_model({loop}, {}), std::runtime_error);
}

TEST(Trainer, ALoopUnlikeEveryTrainingLoopKeepsGccsChoice) {
  std::vector<ll::LoopExample> examples = size_rule_examples();
  looprace::model::Model model = ll::train_model(examples, {});
  ll::LoopExample unlike = examples.front();  // small: the model unrolls it
  ASSERT_NE(ll::predict_factor(model, unlike), 0);
  unlike.features["calls"] = 1;  // no training loop calls anything
  EXPECT_EQ(ll::predict_factor(model, unlike), 0);
  unlike = examples.front();
  unlike.features["stmts"] = 1;  // smaller than any training loop
  EXPECT_EQ(ll::predict_factor(model, unlike), 0);
  unlike.features.erase("stmts");  // unknown
  EXPECT_EQ(ll::predict_factor(model, unlike), 0);
}

// A fake trainer: a model that always picks `factor`.
ll::Trainer always(int factor) {
  return [factor](const std::vector<ll::LoopExample>&) {
    looprace::model::Model model;
    model.features = {"factor"};
    model.factors = {factor};
    model.trees.push_back({{looprace::model::Node{}}});
    return model;
  };
}

TEST(Evaluation, FiguresOfEveryPolicyAgainstHandComputedValues) {
  // Loop a: 0 costs 1.21x the best (4); loop b: 0 is the best.
  std::vector<ll::LoopExample> examples = {loop_with("a", {121, 121, 110, 110, 100}, {4}),
                                           loop_with("b", {100, 100, 105}, {0, 1})};
  ll::Evaluation e = ll::evaluate_leave_one_program_out(examples, always(4));
  EXPECT_EQ(e.programs, 2u);
  EXPECT_NEAR(e.oracle_speedup, 1.1, 1e-12);  // sqrt(1.21 * 1)
  const ll::PolicyResult& model = e.policies.front();
  EXPECT_EQ(model.name, "model (left-out program)");
  // a: 4 is the best; b: 4 has factor 2's code, 1.05x: G = sqrt(1.21 / 1.05).
  EXPECT_NEAR(model.geomean_slowdown, std::sqrt(1.05), 1e-12);
  EXPECT_NEAR(model.share_of_oracle, (std::sqrt(1.21 / 1.05) - 1) / 0.1, 1e-9);
  EXPECT_DOUBLE_EQ(model.exact_accuracy, 0.5);
  EXPECT_DOUBLE_EQ(model.tied_accuracy, 0.5);
  EXPECT_DOUBLE_EQ(model.worst_slowdown, 1.05);
  const ll::PolicyResult& gcc = e.policies[2];
  EXPECT_EQ(gcc.name, "GCC's heuristic (factor 0)");
  EXPECT_DOUBLE_EQ(gcc.share_of_oracle, 0);
  EXPECT_EQ(e.policies.back().name, "oracle (best factor)");
  EXPECT_DOUBLE_EQ(e.policies.back().share_of_oracle, 1);
  // The best constant of the other program: for a, b's best constant is 0; for b, a's is 4.
  const ll::PolicyResult& constant = e.policies[1];
  EXPECT_EQ(constant.choices[0].factor, 0);
  EXPECT_EQ(constant.choices[1].factor, 4);
}

TEST(Evaluation, FiguresOnTheLoopsWhoseRaceResolvedSomething) {
  // a: 4 is the best, 2 (110) tied with it; c: every code tied, c's best (1) is noise.
  std::vector<ll::LoopExample> examples = {loop_with("a", {121, 121, 110, 110, 100}, {2, 4}),
                                           loop_with("c", {100, 90}, {0, 1})};
  ll::Evaluation e = ll::evaluate_leave_one_program_out(examples, always(4));
  ASSERT_EQ(e.resolved_loops.size(), 1u);
  EXPECT_EQ(e.resolved_loops[0]->program, "a");
  ASSERT_EQ(e.resolved_policies.size(), e.policies.size());
  // The slowest tied best is 2 (or 3, its code) on a and 0 on c (tied with 1, slower).
  const ll::PolicyResult& worst_tied = e.policies[e.policies.size() - 2];
  EXPECT_EQ(worst_tied.name, ll::kWorstTiedPolicy);
  EXPECT_EQ(worst_tied.choices[0].factor, 2);
  EXPECT_EQ(worst_tied.choices[1].factor, 0);
  EXPECT_DOUBLE_EQ(worst_tied.tied_accuracy, 1);
  // On all loops the oracle gains sqrt(1.21 * 1.1 / 1): c's noise counts; on a alone, 1.21.
  EXPECT_NEAR(e.oracle_speedup, std::sqrt(1.21 * 100 / 90), 1e-12);
  const ll::PolicyResult& on_a = e.resolved_policies[e.resolved_policies.size() - 2];
  EXPECT_NEAR(on_a.share_of_oracle, (1.21 / 1.1 - 1) / 0.21, 1e-12);
  EXPECT_DOUBLE_EQ(e.resolved_policies.front().share_of_oracle, 1);  // the model picks 4
}

TEST(Evaluation, NeedsTwoPrograms) {
  std::vector<ll::LoopExample> examples = {loop_with("a", {100, 90}, {1})};
  EXPECT_THROW(ll::evaluate_leave_one_program_out(examples, always(1)), std::invalid_argument);
}

}  // namespace
