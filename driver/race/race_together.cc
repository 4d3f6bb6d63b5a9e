// Racing several loops in the same program runs (race --together): joint builds give every
// loop one of its factors, JointRounds runs the fewest of them that carry every factor still
// asked for, and each loop's plan runs unchanged in its own thread.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <mutex>

#include "race/joint_rounds.h"
#include "race/racer.h"

namespace looprace::race::detail {

std::vector<LoopOutcome> Racer::race_together(const std::vector<build::LoopRow>& loops) {
  // Each loop's variants are built, verified and warmed up alone: a variant that fails is then
  // known by its own loop and factor, and left out of the joint builds.
  std::vector<std::unique_ptr<LoopRace>> all;
  std::vector<LoopRace*> racing;
  for (const auto& loop : loops) {
    progress_.start_loop();
    auto r = std::make_unique<LoopRace>();
    r->loop = loop;
    if (setup_loop(*r)) {
      warm_up(*r);
      racing.push_back(r.get());
    }
    all.push_back(std::move(r));
  }
  if (!racing.empty()) race_batch(racing);
  std::vector<LoopOutcome> out;
  for (auto& r : all) out.push_back(std::move(r->outcome));
  return out;
}

std::string JointBatch::slot_factors(std::size_t s) const {
  std::vector<std::string> parts;
  for (const auto& [id, per_slot] : factors) parts.push_back(fmt::format("{}:{}", id, per_slot[s]));
  return fmt::format("{}", fmt::join(parts, " "));
}

// The batch is named by its loops, so that a rerun with the same loops undecided continues it;
// its slots (each loop's factor per joint build) are stored before its first run.
JointBatch Racer::joint_batch(const std::vector<LoopRace*>& racing) {
  JointBatch b;
  std::vector<std::string> ids;
  for (const LoopRace* r : racing) ids.push_back(r->loop.id);
  std::sort(ids.begin(), ids.end());
  for (const auto& id : ids) b.key = mix(b.key, id_number(id));
  b.name = fmt::format("joint:{:016x}", b.key);
  b.dir = fmt::format("joint-{:016x}", b.key);  // no ':' for make's sake
  b.factors = store_->joint_slots(program_, b.name);
  if (b.factors.empty()) {
    std::vector<std::vector<std::size_t>> eligible;
    for (const LoopRace* r : racing) {
      std::vector<std::size_t> versions;
      for (std::size_t v = 0; v < r->groups.representatives.size(); ++v) {
        if (!r->disqualified.count(v)) versions.push_back(v);
      }
      eligible.push_back(versions);  // never empty: the baseline passed its warm-up
    }
    SlotAssignment slots = assign_slots(eligible, mix(options_.seed, b.key));
    for (std::size_t l = 0; l < racing.size(); ++l) {
      for (const auto& slot : slots) {
        b.factors[racing[l]->loop.id].push_back(racing[l]->groups.representatives[slot[l]]);
      }
    }
    store_->put_joint_slots(program_, b.name, b.factors);
  }
  const std::size_t slot_count = b.factors.begin()->second.size();
  b.slots.assign(slot_count, std::vector<std::size_t>(racing.size()));
  for (std::size_t l = 0; l < racing.size(); ++l) {
    const LoopRace& r = *racing[l];
    const auto& per_slot = b.factors.at(r.loop.id);
    for (std::size_t s = 0; s < slot_count; ++s) {
      auto v = r.version_of.find(r.groups.group_of.at(static_cast<std::size_t>(per_slot[s])));
      b.slots[s][l] = v == r.version_of.end() ? SIZE_MAX : v->second;
    }
  }
  return b;
}

// Builds every slot (each loop at its slot's factor, all of them timed); a slot that does not
// build ends the batch, since each factor built alone.
void Racer::build_joint_slots(JointBatch& b, const std::vector<std::string>& instrument) {
  std::vector<build::BuildJob> jobs;
  for (std::size_t s = 0; s < b.slots.size(); ++s) {
    std::filesystem::path dir = build::variant_dir(ws_.workdir, b.dir, static_cast<int>(s));
    build::VariantSpec spec;
    for (const auto& [id, per_slot] : b.factors) spec.unroll.emplace_back(id, per_slot[s]);
    spec.instrument = instrument;
    if (!build::prepare_incremental(dir, baseline_.dir, instrument)) build::prepare_fresh(dir);
    jobs.push_back(build_job(ws_, spec, dir,
                             fmt::format("slot {} of {} loops together", s, instrument.size())));
    b.dirs.push_back(dir);
  }
  auto results = ws_.executor->build(jobs, ws_.jobs);
  for (std::size_t s = 0; s < b.slots.size(); ++s) {
    if (!results[s].ok()) {
      throw Error(
          fmt::format("the joint build of {} does not build, though each factor built "
                      "alone: {} (race these loops without --together)",
                      b.slot_factors(s), results[s].failure_message()));
    }
  }
}

// One run of a slot: judged and stored; each loop's cycles (none when the run failed).
std::vector<std::optional<plans::Observation>> Racer::run_slot(const JointBatch& b,
                                                               const std::vector<LoopRace*>& racing,
                                                               std::size_t s, std::size_t round,
                                                               store::RunKind kind) {
  store::RunRow row;
  row.kind = kind;
  row.group = -1;
  row.joint = store::JointSlot{b.name, static_cast<int>(s)};
  row.round = static_cast<int>(round);
  run::RunResult result = run_build_once(ws_, b.dirs[s], mix(mix(options_.seed, round), s));
  fill_run_row(row, result);
  // Joint runs are not taken again: a disturbed run counts with its raw sum, stored so that a
  // resumed race replays what this one used.
  if (options_.observation == stats::ObservationKind::kFiltered) {
    for (auto& o : row.observations) {
      if (!o.filtered) o.filtered = static_cast<double>(o.cycles);
    }
  }
  store_->add_run(program_, session_, row);
  std::vector<std::optional<plans::Observation>> out(racing.size());
  for (std::size_t l = 0; l < racing.size(); ++l) {
    if (b.slots[s][l] == SIZE_MAX) continue;  // a factor this race does not know
    LoopRace& r = *racing[l];
    std::optional<double> cycles = result.observations.value(r.loop.id, options_.observation);
    if (!cycles) cycles = result.observations.cycles(r.loop.id);
    if (!row.ok) {
      r.disqualified.emplace(
          b.slots[s][l], fmt::format("in the joint build {}: {}", b.slot_factors(s), row.reason));
    } else if (!cycles || *cycles <= 0) {
      r.disqualified.emplace(b.slots[s][l], "the loop did not run");
    } else {
      out[l] = cycles;
    }
  }
  return out;
}

// One warm-up run of every slot: a slot in which no loop runs fails the batch, since each
// factor ran alone.
void Racer::warm_up_slots(const JointBatch& b, const std::vector<LoopRace*>& racing) {
  for (std::size_t s = 0; s < b.slots.size(); ++s) {
    auto got = run_slot(b, racing, s, 0, store::RunKind::kWarmup);
    if (std::none_of(got.begin(), got.end(), [](const auto& o) { return o.has_value(); })) {
      throw Error(
          fmt::format("the joint build of {} fails though each factor ran alone; race "
                      "these loops without --together",
                      b.slot_factors(s)));
    }
  }
}

// The joint rounds: every loop's plan runs in its own thread on a sampler that JointRounds
// answers, each round running the fewest slots that carry every version asked for. Rounds an
// earlier command took are replayed first, and new rounds are numbered after them.
std::vector<plans::Decision> Racer::run_joint_plans(const JointBatch& b,
                                                    const std::vector<LoopRace*>& racing,
                                                    RaceProgress& p) {
  std::size_t rounds_before = 0;
  for (const auto& run : store_->joint_runs(program_, store::RunKind::kRace, b.name)) {
    rounds_before = std::max(rounds_before, static_cast<std::size_t>(run.round));
  }
  JointRounds joint(
      b.slots, racing.size(),
      [&](std::size_t s, std::size_t round) {
        return run_slot(b, racing, s, round, store::RunKind::kRace);
      },
      mix(options_.seed, b.key ^ 0x4a4f494eULL), rounds_before);
  std::mutex traces;
  std::vector<std::size_t> survivors(racing.size());
  std::vector<bool> done(racing.size(), false);
  std::vector<std::unique_ptr<LiveSampler>> samplers;
  std::vector<plans::Decision> decisions(racing.size());
  std::vector<std::function<void()>> bodies;
  for (std::size_t l = 0; l < racing.size(); ++l) {
    LoopRace& r = *racing[l];
    survivors[l] = r.groups.representatives.size();
    samplers.push_back(std::make_unique<LiveSampler>(
        std::move(r.recorded), [&joint, l](const std::vector<std::size_t>& versions, std::size_t) {
          return joint.measure(l, versions);
        }));
    bodies.push_back([&, l] {
      decisions[l] = run_plan(*racing[l], *samplers[l], [&, l](const plans::RoundTrace& t) {
        std::lock_guard lock(traces);
        survivors[l] = t.survivors.size();
      });
      std::lock_guard lock(traces);
      done[l] = true;
    });
  }
  joint.run(bodies, [&](std::size_t round, std::size_t) {
    std::lock_guard lock(traces);
    report_joint_round(p, racing, round, survivors, done);
  });
  return decisions;
}

// Progress of a joint round: the loops decided so far, the survivors and observations of the
// others.
void Racer::report_joint_round(RaceProgress& p, const std::vector<LoopRace*>& racing,
                               std::size_t round, const std::vector<std::size_t>& survivors,
                               const std::vector<bool>& done) {
  p.round = round;
  p.survivors = 0;
  p.observations = 0;
  p.loop = progress_.loop_count() - racing.size();
  for (std::size_t l = 0; l < racing.size(); ++l) {
    if (done[l]) {
      ++p.loop;
    } else {
      p.survivors += survivors[l];
    }
    p.observations += racing[l]->observations;
  }
  report(p);
}

// Races a batch of loops together: slot builds, their warm-up, the joint rounds, then each
// loop's confirmation pairs alone, on its own builds: a joint run serves several loops at once,
// so it could not be one loop's confirmation run.
void Racer::race_batch(const std::vector<LoopRace*>& racing) {
  JointBatch b = joint_batch(racing);
  RaceProgress p;
  p.together = true;
  p.loop = progress_.loop_count() - racing.size();  // decided by earlier runs of the command
  p.phase = "building";
  report(p);
  std::vector<std::string> instrument;
  for (const auto& [id, per_slot] : b.factors) instrument.push_back(id);
  build_joint_slots(b, instrument);
  p.phase = "warm-up";
  report(p);
  warm_up_slots(b, racing);
  p.phase = "racing";
  std::vector<plans::Decision> decisions = run_joint_plans(b, racing, p);
  p.phase = "confirming";
  report(p);
  for (std::size_t l = 0; l < racing.size(); ++l) {
    confirm(*racing[l], decisions[l]);
    decide(*racing[l], decisions[l]);
  }
}
}  // namespace looprace::race::detail
