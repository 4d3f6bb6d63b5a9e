// The observation store: one SQLite file (WAL mode) holding everything a race measured, so an
// interrupted race resumes, reports are rebuilt and stores from several machines/sessions merge.
// Every run is committed in its own small transaction as soon as it is taken: Ctrl-C, kill -9
// or power loss lose at most the run in flight.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "plans/loop_decision.h"
#include "stats/entry_filter.h"

namespace looprace::store {

// The current time as ISO 8601 UTC, the form every timestamp in the store takes.
std::string utc_now();

// Bumped whenever the schema changes. An older store is migrated when opened (kMigrations in
// store.cc); a newer one is refused.
inline constexpr int kSchemaVersion = 7;

struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What makes a store belong to one program on one machine. Stored in the `meta` table by the
// first race; later races (and merges) must match it unless forced.
struct Identity {
  std::string program;  // hash of the build and run commands (program_key())
  std::string machine;  // hostname, CPU model and compiler (run::MachineFacts::identity())
};

// The identity of a program: a short hash of its build and run commands.
std::string program_key(const std::string& build_command, const std::string& run_command);

// One loop of the program (a row of the plugin's loop table, formats.md §3).
struct LoopRow {
  std::string id;
  std::string file;
  int line = 0;
  int column = 0;
  std::string function;
  int depth = 0;
  int index = 0;
  int loops = 0;
  nlohmann::json features = nlohmann::json::object();
};

// One build of one factor for one target loop. Variants whose code sections are byte-identical
// share a `group` (the lowest factor in the group) and therefore one set of observations.
struct VariantRow {
  std::string loop_id;
  int factor = 0;
  int layout = 0;              // layout seed index (0 when layouts are not randomized)
  std::string code_hash;       // empty when the build failed
  std::optional<int> applied;  // copies GCC really made (verify record), if known
  std::string how;             // why `applied` differs from the request
  bool built = false;
  std::string build_log;  // tail of the build output when the build failed
  int group = 0;
};

// Cycles one loop took in one run (sum over the run's processes).
struct LoopObservation {
  std::string loop_id;
  std::uint64_t cycles = 0;
  std::uint64_t entries = 0;
  std::uint64_t migrated = 0;
  std::uint64_t nested = 0;
  // The filtered observation (run::ObservationKind::kFiltered) beside the raw sum: none when
  // the run was visibly disturbed and could not be filtered, or was stored before schema 2.
  std::optional<double> filtered;
  std::uint64_t disturbed = 0;  // entries the filter took out
  // The observation of `kind`; none when the run has no such value.
  std::optional<double> value(stats::ObservationKind kind) const {
    if (kind == stats::ObservationKind::kFiltered) return filtered;
    return static_cast<double>(cycles);
  }
};

// Why a run was taken.
// kConfirm: a run of the chosen factor or of factor 0 after the race, for the Speedup-Test, or
// of the chosen factor or the runner-up, for the winners.
enum class RunKind { kBaseline, kHotness, kWarmup, kRace, kConfirm };
std::string to_string(RunKind kind);

// Which joint build a run of loops raced together (`race --together`) ran: the batch's name
// ("joint:<key>") and the slot, whose factor for each loop joint_slots gives.
struct JointSlot {
  std::string batch;
  int slot = 0;
  bool operator==(const JointSlot&) const = default;
};

// One program run. A run may carry observations for several loops.
struct RunRow {
  std::int64_t id = 0;       // assigned by the store
  std::int64_t session = 0;  // the session that took it (assigned by the store)
  RunKind kind = RunKind::kRace;
  // The loop raced; empty for baseline and hotness runs and for joint runs, which race several.
  std::string target_loop;
  // The variant group run (factor of the group representative); -1 for a joint run, whose
  // build gives each loop its own factor.
  int group = 0;
  std::optional<JointSlot> joint;  // for joint runs only
  int round = 0;                   // plan round, 1-based (0 outside races)
  int layout = 0;                  // layout seed index
  std::uint64_t env_padding = 0;   // bytes of random environment padding used
  double wall_seconds = 0;
  int exit_status = 0;            // exit code, or 128 + signal
  bool ok = true;                 // false: disqualifying (crash, wrong output, time-out)
  std::string reason;             // why not ok
  std::uint64_t nivcsw = 0;       // involuntary context switches of the run's processes
  std::uint64_t steal_ticks = 0;  // the host's steal time during the run
  std::uint64_t off_cpu_ns = 0;   // the processes' wall time less their CPU time
  double cpu_seconds = 0;         // user + system time of the run's processes (0: not recorded)
  // A race run's observed loop (the raced one or one around it) among the loops it timed;
  // empty for other runs, and in stores before schema 7.
  std::string observed;
  std::vector<LoopObservation> observations;

  // Whether the run timed any of `loops` (an observation with cycles).
  bool timed_any(const std::vector<std::string>& loops) const {
    return std::any_of(observations.begin(), observations.end(), [&](const LoopObservation& o) {
      return o.cycles > 0 && std::find(loops.begin(), loops.end(), o.loop_id) != loops.end();
    });
  }
  // Its observation of `loop_id`, of `kind`; none when it has no such value.
  std::optional<double> value_of(const std::string& loop_id, stats::ObservationKind kind) const {
    for (const LoopObservation& o : observations)
      if (o.loop_id == loop_id) return o.value(kind);
    return std::nullopt;
  }
};

// One race run as one loop saw it: in the loop's own race, or in a joint run of several loops
// (`race --together`).
struct LoopRaceRun {
  std::int64_t run_id = 0;
  int round = 0;
  int factor = 0;  // the loop's factor in that run (alone: its group's representative)
  bool ok = true;
  std::string reason;
  bool joint = false;                   // a run of loops raced together (race --together)
  std::optional<std::uint64_t> cycles;  // none when the loop has no observation in the run
  std::optional<double> filtered;       // the filtered observation, when there is one
  std::uint64_t entries = 0;            // of the loop, in its observation
  std::uint64_t disturbed = 0;          // entries the filter took out
  // The loop the observation timed: the raced one, or the loop around it that observed it
  // (race/hot_selection.h); empty when the run has no observation.
  std::string observed;
  // The observation of `kind`; none when the run has no such value.
  std::optional<double> value(stats::ObservationKind kind) const {
    if (kind == stats::ObservationKind::kFiltered) return filtered;
    return cycles ? std::optional<double>(double(*cycles)) : std::nullopt;
  }
};

// A session: one invocation of a command that wrote to the store, with the machine facts.
struct SessionRow {
  std::int64_t id = 0;
  std::string started;
  std::string command;
  nlohmann::json facts;  // machine hygiene facts and warnings
};

class Store {
 public:
  // Opens (creating it and its directory when `create`) the store at `path`.
  static Store open(const std::filesystem::path& path, bool create = true);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store();

  const std::filesystem::path& path() const { return path_; }

  // The stored identity, if a race has written one.
  std::optional<Identity> identity() const;
  // Throws StoreError naming both identities when the store belongs to another program or
  // machine, unless `force`; an empty store accepts any identity.
  void check_identity(const Identity& id, bool force) const;
  // check_identity(), then records `id` in a store that has none yet.
  void bind_identity(const Identity& id, bool force);

  // Program row for this build/run pair (created on first use); returns its row id.
  // The row of the program these commands build into `code` (a digest of the baseline build's
  // code; empty: not known), created when missing. Other code, another program: a race never
  // reuses what was measured of the code before an edit.
  std::int64_t program(const std::string& build_command, const std::string& run_command,
                       const std::string& code = "");
  std::int64_t begin_session(const std::string& command, const nlohmann::json& facts);
  std::vector<SessionRow> sessions() const;

  // A finished whole-program check, under `key` (what it compared and by which rule), so that
  // a rerun gives the verdict the runs gave instead of taking new runs to a new one.
  std::optional<nlohmann::json> program_check(const std::string& key) const;
  void record_program_check(const std::string& key, const nlohmann::json& check);

  void put_loops(std::int64_t program, const std::vector<LoopRow>& loops);
  std::vector<LoopRow> loops(std::int64_t program) const;

  void put_variant(std::int64_t program, const VariantRow& variant);
  std::vector<VariantRow> variants(std::int64_t program, const std::string& loop_id) const;

  // Commits one run and its observations in one transaction; returns the run id.
  std::int64_t add_run(std::int64_t program, std::int64_t session, const RunRow& run);
  // Runs of `kind` (for warm-up, race and confirmation runs, of `target_loop`), by round then
  // in the order they were taken.
  std::vector<RunRow> runs(std::int64_t program, RunKind kind,
                           const std::string& target_loop = {}) const;
  // The runs of `kind` of a joint batch, by round then in the order they were taken.
  std::vector<RunRow> joint_runs(std::int64_t program, RunKind kind,
                                 const std::string& batch) const;
  // The wall time of the first run of `kind`, if there is one.
  std::optional<double> first_wall_seconds(std::int64_t program, RunKind kind) const;
  // How many runs of each kind `program` took and their wall time, and when the first and the
  // last were taken (empty when there is none): of every run of the program, or of the runs
  // of `loop_id`'s own race (joint runs serve several loops and are in none).
  struct RunTally {
    struct Kind {
      std::size_t count = 0;
      double wall_seconds = 0;
    };
    std::map<RunKind, Kind> kinds;
    std::string first_taken, last_taken;
  };
  RunTally run_tally(std::int64_t program, const std::optional<std::string>& loop_id = {}) const;

  // Loops that have race runs (alone or joint), in the order their races started.
  std::vector<std::string> raced_loops(std::int64_t program) const;

  // The builds of a joint race: factors[loop id][slot] is the loop's factor in build `slot`.
  // Stored before the batch's first run; a batch's slots never change.
  void put_joint_slots(std::int64_t program, const std::string& batch,
                       const std::map<std::string, std::vector<int>>& factors);
  std::map<std::string, std::vector<int>> joint_slots(std::int64_t program,
                                                      const std::string& batch) const;
  // Every race run that observed `loop_id` as a raced loop, alone or joint, by round then id;
  // a run of its race alone with the observation of the loop, else of the loop it timed.
  std::vector<LoopRaceRun> loop_race_runs(std::int64_t program, const std::string& loop_id) const;

  void put_decision(std::int64_t program, const plans::LoopDecision& decision);
  std::optional<plans::LoopDecision> decision(std::int64_t program, const std::string& loop_id,
                                              const std::string& plan) const;
  // Latest decision per loop.
  std::vector<plans::LoopDecision> decisions(std::int64_t program) const;
  // Every loop with a decision and the plan it was decided by, of any program of the store.
  std::set<std::pair<std::string, std::string>> decided_loop_plans() const;
  // The hosts whose sessions took race runs of the loop (sessions' `hostname` fact), sorted.
  std::vector<std::string> race_hosts(std::int64_t program, const std::string& loop_id) const;

  struct ProgramRow {
    std::int64_t id = 0;
    std::string build_command, run_command, key;
    std::string code;  // digest of the baseline build's code; empty in stores before schema 3
  };
  std::vector<ProgramRow> programs() const;

  // Copies everything of `other` not already here (runs are matched by their unique id, so
  // merging twice adds nothing). Identity must match unless `force`.
  struct MergeCounts {
    std::size_t runs = 0, observations = 0, variants = 0, decisions = 0;
  };
  MergeCounts merge_from(const Store& other, bool force);

  sqlite3* handle() const { return db_; }

 private:
  Store(std::filesystem::path path, sqlite3* db);
  void exec(const char* sql) const;
  // Throws StoreError naming the file when SQLite finds the store damaged.
  void check_integrity() const;
  // Brings a store of schema `version` to kSchemaVersion; refuses a newer or unknown one.
  void migrate(const std::filesystem::path& path, const std::string& version);
  std::optional<std::string> meta(const std::string& key) const;
  // Runs of `kind` whose `column` (target_loop or batch) is `value`, or every run of `kind`
  // when `column` is empty.
  std::vector<RunRow> select_runs(std::int64_t program, RunKind kind, const std::string& column,
                                  const std::string& value) const;
  void set_meta(const std::string& key, const std::string& value);

  std::filesystem::path path_;
  sqlite3* db_ = nullptr;
};

}  // namespace looprace::store
