#include "store/store.h"

#include "store/decision_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <random>
#include <utility>

namespace looprace::store {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions(
  id INTEGER PRIMARY KEY, uid TEXT UNIQUE NOT NULL, started TEXT NOT NULL,
  command TEXT NOT NULL, facts TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS programs(
  id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL,
  build_command TEXT NOT NULL, run_command TEXT NOT NULL, code TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS loops(
  program INTEGER NOT NULL REFERENCES programs(id), id TEXT NOT NULL,
  file TEXT NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL, function TEXT NOT NULL,
  depth INTEGER NOT NULL, idx INTEGER NOT NULL, loops INTEGER NOT NULL, features TEXT NOT NULL,
  PRIMARY KEY(program, id));
CREATE TABLE IF NOT EXISTS variants(
  program INTEGER NOT NULL REFERENCES programs(id), loop TEXT NOT NULL,
  factor INTEGER NOT NULL, layout INTEGER NOT NULL, code_hash TEXT NOT NULL,
  applied INTEGER, how TEXT NOT NULL, built INTEGER NOT NULL, build_log TEXT NOT NULL,
  grp INTEGER NOT NULL,
  PRIMARY KEY(program, loop, factor, layout));
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, uid TEXT UNIQUE NOT NULL,
  program INTEGER NOT NULL REFERENCES programs(id), session INTEGER REFERENCES sessions(id),
  kind TEXT NOT NULL, target_loop TEXT NOT NULL, grp INTEGER NOT NULL, round INTEGER NOT NULL,
  layout INTEGER NOT NULL, env_padding INTEGER NOT NULL, taken TEXT NOT NULL,
  wall_seconds REAL NOT NULL, exit_status INTEGER NOT NULL, ok INTEGER NOT NULL,
  reason TEXT NOT NULL, nivcsw INTEGER NOT NULL DEFAULT 0,
  steal_ticks INTEGER NOT NULL DEFAULT 0, off_cpu_ns INTEGER NOT NULL DEFAULT 0,
  batch TEXT, slot INTEGER, cpu_seconds REAL NOT NULL DEFAULT 0, observed TEXT);
CREATE INDEX IF NOT EXISTS runs_by_target ON runs(program, kind, target_loop, id);
CREATE INDEX IF NOT EXISTS runs_by_batch ON runs(program, kind, batch, id);
CREATE TABLE IF NOT EXISTS observations(
  run INTEGER NOT NULL REFERENCES runs(id), loop TEXT NOT NULL,
  cycles INTEGER NOT NULL, entries INTEGER NOT NULL, migrated INTEGER NOT NULL,
  nested INTEGER NOT NULL, filtered_cycles REAL, disturbed INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(run, loop));
CREATE TABLE IF NOT EXISTS joint_slots(
  program INTEGER NOT NULL REFERENCES programs(id), batch TEXT NOT NULL, slot INTEGER NOT NULL,
  loop TEXT NOT NULL, factor INTEGER NOT NULL,
  PRIMARY KEY(program, batch, slot, loop));
CREATE TABLE IF NOT EXISTS decisions(
  program INTEGER NOT NULL REFERENCES programs(id), loop TEXT NOT NULL, plan TEXT NOT NULL,
  chosen INTEGER NOT NULL, winners TEXT NOT NULL, samples TEXT NOT NULL, groups TEXT NOT NULL,
  cap_hit INTEGER NOT NULL, rounds TEXT NOT NULL, disqualified TEXT NOT NULL,
  speedup TEXT NOT NULL, decided_at TEXT NOT NULL,
  PRIMARY KEY(program, loop, plan));
)sql";

// What turns a store of schema version N - 1 into version N, in order (index 0: 1 -> 2). Each
// step runs in the transaction that also records the new version.
constexpr const char* kMigrations[] = {
    // 2: the filtered observation beside the raw sum, and what the machine did to each run.
    "ALTER TABLE observations ADD COLUMN filtered_cycles REAL;"
    "ALTER TABLE observations ADD COLUMN disturbed INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN nivcsw INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN steal_ticks INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN off_cpu_ns INTEGER NOT NULL DEFAULT 0;",
    // 3: a program is its commands and the code they build, so a race of edited code never
    // reuses the decisions and observations of the code before.
    "ALTER TABLE programs ADD COLUMN code TEXT NOT NULL DEFAULT '';",
    // 4: confirmation runs are their own kind, no longer race runs that replay, reports and
    // exports took for the race's observations. In a store of schema 3 they are a decided
    // loop's own runs after the plan's last round, of two groups (factor 0's and the chosen
    // one's); joint runs stay race runs.
    "WITH last(program, loop, round) AS (SELECT d.program, d.loop, "
    "  max(json_extract(t.value, '$.round')) FROM decisions d, json_each(d.rounds) t "
    "  GROUP BY d.program, d.loop), "
    "after(id, program, loop, grp) AS (SELECT r.id, r.program, r.target_loop, r.grp FROM runs r "
    "  JOIN last l ON r.program = l.program AND r.target_loop = l.loop AND r.round > l.round "
    "  WHERE r.kind = 'race') "
    "UPDATE runs SET kind = 'confirm' WHERE id IN (SELECT a.id FROM after a WHERE "
    "  (SELECT count(DISTINCT b.grp) FROM after b WHERE b.program = a.program AND "
    "   b.loop = a.loop) <= 2);",
    // 5: a joint run's batch and slot in columns of their own; it had them in target_loop and
    // grp, which hold a loop and a code group in every other run.
    "ALTER TABLE runs ADD COLUMN batch TEXT;"
    "ALTER TABLE runs ADD COLUMN slot INTEGER;"
    "UPDATE runs SET batch = target_loop, slot = grp, target_loop = '', grp = -1 "
    "  WHERE target_loop LIKE 'joint:%';",
    // 6: a run's CPU time, which a hotness share divides by: unlike its wall time, it holds no
    // wait for a CPU, before the runtime started either.
    "ALTER TABLE runs ADD COLUMN cpu_seconds REAL NOT NULL DEFAULT 0;",
    // 7: the loop a race run observed, now that a run also times other loops (the race's
    // controls): NULL in earlier runs, whose only other loops were never the observed one's.
    "ALTER TABLE runs ADD COLUMN observed TEXT;",
};
static_assert(std::size(kMigrations) == kSchemaVersion - 1);

// A prepared statement that finalizes itself; binds by 1-based position.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      throw StoreError(fmt::format("store: cannot prepare statement: {}", sqlite3_errmsg(db)));
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
  Statement& bind(int i, double v) {
    check(sqlite3_bind_double(stmt_, i, v));
    return *this;
  }
  Statement& bind(int i, const std::string& v) {
    check(sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  Statement& bind_null(int i) {
    check(sqlite3_bind_null(stmt_, i));
    return *this;
  }
  Statement& bind(int i, const std::optional<double>& v) { return v ? bind(i, *v) : bind_null(i); }
  // Binds column `col` of `from`'s current row as it is, NULL and type included.
  Statement& bind_column(int i, const Statement& from, int col) {
    check(sqlite3_bind_value(stmt_, i, sqlite3_column_value(from.stmt_, col)));
    return *this;
  }
  Statement& bind(int i, const std::optional<int>& v) { return v ? bind(i, *v) : bind_null(i); }

  // Steps once; true when a row is available.
  bool step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw StoreError(fmt::format("store: {}", sqlite3_errmsg(db_)));
  }
  // Runs to completion and resets, so one prepared statement serves a loop of inserts.
  void run() {
    while (step()) {
    }
    sqlite3_reset(stmt_);
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)))
             : std::string();
  }
  nlohmann::json json(int col) const {
    std::string s = text(col);
    return s.empty() ? nlohmann::json() : nlohmann::json::parse(s);
  }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) throw StoreError(fmt::format("store: {}", sqlite3_errmsg(db_)));
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back when an exception leaves the scope.
class Transaction {
 public:
  // Inside an open transaction this is a no-op: the outer one commits or rolls back.
  explicit Transaction(sqlite3* db) : db_(db), nested_(sqlite3_get_autocommit(db) == 0) {
    if (!nested_) exec("BEGIN IMMEDIATE");
  }
  ~Transaction() {
    if (!nested_ && !done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit() {
    if (!nested_) exec("COMMIT");
    done_ = true;
  }

 private:
  void exec(const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw StoreError(fmt::format("store: {}: {}", sql, msg));
    }
  }
  sqlite3* db_;
  bool nested_;
  bool done_ = false;
};

// A random 128-bit id: what makes a run or session unique across merged stores.
std::string unique_id() {
  static thread_local std::mt19937_64 gen{std::random_device{}()};
  return fmt::format("{:016x}{:016x}", gen(), gen());
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

RunKind kind_from_string(const std::string& s) {
  for (RunKind k : {RunKind::kBaseline, RunKind::kHotness, RunKind::kWarmup, RunKind::kRace,
                    RunKind::kConfirm}) {
    if (to_string(k) == s) return k;
  }
  throw StoreError(fmt::format("store: unknown run kind '{}'", s));
}

// Reads the kDecisionColumns starting at column `first`.
plans::LoopDecision decision_from(const Statement& q, int first = 0) {
  plans::LoopDecision d;
  d.loop_id = q.text(first);
  d.plan = q.text(first + 1);
  d.chosen = static_cast<int>(q.integer(first + 2));
  d.cap_hit = q.integer(first + 6) != 0;
  d.decided_at = q.text(first + 10);
  try {
    from_columns({q.json(first + 3), q.json(first + 4), q.json(first + 5), q.json(first + 7),
                  q.json(first + 8), q.json(first + 9)},
                 d);
  } catch (const nlohmann::json::exception& e) {
    throw StoreError(
        fmt::format("store: the decision of loop {} is malformed: {}", d.loop_id, e.what()));
  }
  return d;
}

constexpr const char* kDecisionColumns =
    "loop, plan, chosen, winners, samples, groups, cap_hit, rounds, disqualified, speedup, "
    "decided_at";

}  // namespace

std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string to_string(RunKind kind) {
  switch (kind) {
    case RunKind::kBaseline:
      return "baseline";
    case RunKind::kHotness:
      return "hotness";
    case RunKind::kWarmup:
      return "warmup";
    case RunKind::kRace:
      return "race";
    case RunKind::kConfirm:
      return "confirm";
  }
  return "race";
}

std::string program_key(const std::string& build_command, const std::string& run_command) {
  return fmt::format("{:016x}", fnv1a(build_command + '\0' + run_command));
}

Store::Store(std::filesystem::path path, sqlite3* db) : path_(std::move(path)), db_(db) {}

Store::Store(Store&& o) noexcept : path_(std::move(o.path_)), db_(std::exchange(o.db_, nullptr)) {}

Store& Store::operator=(Store&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close(db_);
    path_ = std::move(o.path_);
    db_ = std::exchange(o.db_, nullptr);
  }
  return *this;
}

Store::~Store() {
  if (db_) sqlite3_close(db_);
}

Store Store::open(const std::filesystem::path& path, bool create) {
  if (!create && !std::filesystem::exists(path)) {
    throw StoreError(fmt::format("store {}: no such file", path.string()));
  }
  if (create && path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw StoreError(fmt::format("store {}: cannot open: {}", path.string(), msg));
  }
  Store s(path, db);
  sqlite3_busy_timeout(db, 10000);
  try {
    // WAL + synchronous=FULL: each committed run survives a crash or power loss.
    s.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
    bool has_tables = false;
    {
      Statement q(db, "SELECT count(*) FROM sqlite_master WHERE type='table'");
      q.step();
      has_tables = q.integer(0) > 0;
    }
    if (has_tables) {
      s.check_integrity();
      bool has_meta = false;
      {
        Statement q(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='meta'");
        q.step();
        has_meta = q.integer(0) > 0;
      }
      auto version = has_meta ? s.meta("schema") : std::nullopt;
      if (!version) {
        throw StoreError(fmt::format("store {}: not a looprace store", path.string()));
      }
      s.migrate(path, *version);
      s.exec(kSchema);  // creates the tables added since within this version (joint_slots)
    } else {
      Transaction t(db);
      s.exec(kSchema);
      s.set_meta("schema", std::to_string(kSchemaVersion));
      s.set_meta("created", utc_now());
      t.commit();
    }
  } catch (const StoreError& e) {
    std::string what = e.what();
    if (what.find("file is not a database") != std::string::npos) {
      throw StoreError(fmt::format("store {}: not an SQLite database", path.string()));
    }
    if (what.find("malformed") != std::string::npos &&
        what.find(path.string()) == std::string::npos) {
      throw StoreError(
          fmt::format("store {} is damaged ({}): restore it from a copy, or race "
                      "into a new --store",
                      path.string(), what));
    }
    throw;
  }
  return s;
}

void Store::check_integrity() const {
  // quick_check reads every page (unlike integrity_check it skips the index contents), so a
  // damaged store is refused before a race writes more into it or a report trusts it.
  std::string problems;
  try {
    Statement q(db_, "PRAGMA quick_check(5)");
    while (q.step()) {
      std::string row = q.text(0);
      std::replace(row.begin(), row.end(), '\n', ' ');
      if (row != "ok") problems += (problems.empty() ? "" : "; ") + row;
    }
  } catch (const StoreError& e) {
    problems = e.what();
  }
  if (!problems.empty()) {
    throw StoreError(fmt::format(
        "store {} is damaged (SQLite quick_check: {}): restore it from a copy, or race into a "
        "new --store",
        path_.string(), problems));
  }
}

void Store::migrate(const std::filesystem::path& path, const std::string& version) {
  int from = 0;
  try {
    from = std::stoi(version);
  } catch (const std::exception&) {
  }
  if (from < 1 || from > kSchemaVersion) {
    throw StoreError(fmt::format("store {}: schema version {} (this looprace reads 1 to {})",
                                 path.string(), version, kSchemaVersion));
  }
  if (from == kSchemaVersion) return;
  Transaction t(db_);
  for (int v = from; v < kSchemaVersion; ++v) exec(kMigrations[v - 1]);
  set_meta("schema", std::to_string(kSchemaVersion));
  t.commit();
}

void Store::exec(const char* sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    throw StoreError(fmt::format("store {}: {}", path_.string(), msg));
  }
}

std::optional<std::string> Store::meta(const std::string& key) const {
  Statement q(db_, "SELECT value FROM meta WHERE key=?");
  q.bind(1, key);
  if (!q.step()) return std::nullopt;
  return q.text(0);
}

std::optional<nlohmann::json> Store::program_check(const std::string& key) const {
  auto value = meta("program-check " + key);
  if (!value) return std::nullopt;
  return nlohmann::json::parse(*value, nullptr, false);
}

void Store::record_program_check(const std::string& key, const nlohmann::json& check) {
  set_meta("program-check " + key, check.dump());
}

void Store::set_meta(const std::string& key, const std::string& value) {
  Statement q(db_,
              "INSERT INTO meta(key, value) VALUES(?, ?) "
              "ON CONFLICT(key) DO UPDATE SET value=excluded.value");
  q.bind(1, key).bind(2, value).run();
}

std::optional<Identity> Store::identity() const {
  auto program = meta("program");
  auto machine = meta("machine");
  if (!program || !machine) return std::nullopt;
  return Identity{*program, *machine};
}

void Store::bind_identity(const Identity& id, bool force) {
  check_identity(id, force);
  if (identity()) return;
  Transaction t(db_);
  set_meta("program", id.program);
  set_meta("machine", id.machine);
  t.commit();
}

void Store::check_identity(const Identity& id, bool force) const {
  if (auto have = identity()) {
    if (!force && have->program != id.program) {
      throw StoreError(fmt::format(
          "store {} holds another program (build/run commands hash {}, these hash {}); use "
          "another --store, or --force to add to it anyway",
          path_.string(), have->program, id.program));
    }
    if (!force && have->machine != id.machine) {
      throw StoreError(fmt::format(
          "store {} was measured on another machine ('{}', this is '{}'); use another --store, "
          "or --force to add to it anyway",
          path_.string(), have->machine, id.machine));
    }
  }
}

std::int64_t Store::program(const std::string& build_command, const std::string& run_command,
                            const std::string& code) {
  std::string key = program_key(build_command, run_command);
  if (!code.empty()) key += "@" + code;
  Statement ins(
      db_, "INSERT OR IGNORE INTO programs(key, build_command, run_command, code) VALUES(?,?,?,?)");
  ins.bind(1, key).bind(2, build_command).bind(3, run_command).bind(4, code).run();
  Statement q(db_, "SELECT id FROM programs WHERE key=?");
  q.bind(1, key);
  q.step();
  return q.integer(0);
}

std::vector<Store::ProgramRow> Store::programs() const {
  Statement q(db_, "SELECT id, build_command, run_command, key, code FROM programs ORDER BY id");
  std::vector<ProgramRow> out;
  while (q.step()) out.push_back({q.integer(0), q.text(1), q.text(2), q.text(3), q.text(4)});
  return out;
}

std::int64_t Store::begin_session(const std::string& command, const nlohmann::json& facts) {
  Statement q(db_, "INSERT INTO sessions(uid, started, command, facts) VALUES(?,?,?,?)");
  q.bind(1, unique_id()).bind(2, utc_now()).bind(3, command).bind(4, facts.dump()).run();
  return sqlite3_last_insert_rowid(db_);
}

std::vector<SessionRow> Store::sessions() const {
  Statement q(db_, "SELECT id, started, command, facts FROM sessions ORDER BY id");
  std::vector<SessionRow> out;
  while (q.step()) out.push_back({q.integer(0), q.text(1), q.text(2), q.json(3)});
  return out;
}

void Store::put_loops(std::int64_t program, const std::vector<LoopRow>& loops) {
  Transaction t(db_);
  Statement row(db_,
                "INSERT INTO loops(program, id, file, line, col, function, depth, idx, loops, "
                "features) VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(program, id) DO UPDATE SET "
                "file=excluded.file, line=excluded.line, col=excluded.col, "
                "function=excluded.function, depth=excluded.depth, idx=excluded.idx, "
                "loops=excluded.loops, features=excluded.features");
  for (const auto& l : loops) {
    row.bind(1, program)
        .bind(2, l.id)
        .bind(3, l.file)
        .bind(4, l.line)
        .bind(5, l.column)
        .bind(6, l.function)
        .bind(7, l.depth)
        .bind(8, l.index)
        .bind(9, l.loops)
        .bind(10, l.features.dump())
        .run();
  }
  t.commit();
}

std::vector<LoopRow> Store::loops(std::int64_t program) const {
  Statement q(db_,
              "SELECT id, file, line, col, function, depth, idx, loops, features FROM loops "
              "WHERE program=? ORDER BY file, line, col, id");
  q.bind(1, program);
  std::vector<LoopRow> out;
  while (q.step()) {
    LoopRow l;
    l.id = q.text(0);
    l.file = q.text(1);
    l.line = static_cast<int>(q.integer(2));
    l.column = static_cast<int>(q.integer(3));
    l.function = q.text(4);
    l.depth = static_cast<int>(q.integer(5));
    l.index = static_cast<int>(q.integer(6));
    l.loops = static_cast<int>(q.integer(7));
    l.features = q.json(8);
    out.push_back(std::move(l));
  }
  return out;
}

void Store::put_variant(std::int64_t program, const VariantRow& v) {
  Statement q(db_,
              "INSERT INTO variants(program, loop, factor, layout, code_hash, applied, how, built, "
              "build_log, grp) VALUES(?,?,?,?,?,?,?,?,?,?) "
              "ON CONFLICT(program, loop, factor, layout) DO UPDATE SET "
              "code_hash=excluded.code_hash, applied=excluded.applied, how=excluded.how, "
              "built=excluded.built, build_log=excluded.build_log, grp=excluded.grp");
  q.bind(1, program)
      .bind(2, v.loop_id)
      .bind(3, v.factor)
      .bind(4, v.layout)
      .bind(5, v.code_hash)
      .bind(6, v.applied)
      .bind(7, v.how)
      .bind(8, v.built ? 1 : 0)
      .bind(9, v.build_log)
      .bind(10, v.group)
      .run();
}

std::vector<VariantRow> Store::variants(std::int64_t program, const std::string& loop_id) const {
  Statement q(db_,
              "SELECT loop, factor, layout, code_hash, applied, how, built, build_log, grp "
              "FROM variants WHERE program=? AND loop=? ORDER BY layout, factor");
  q.bind(1, program).bind(2, loop_id);
  std::vector<VariantRow> out;
  while (q.step()) {
    VariantRow v;
    v.loop_id = q.text(0);
    v.factor = static_cast<int>(q.integer(1));
    v.layout = static_cast<int>(q.integer(2));
    v.code_hash = q.text(3);
    if (!q.is_null(4)) v.applied = static_cast<int>(q.integer(4));
    v.how = q.text(5);
    v.built = q.integer(6) != 0;
    v.build_log = q.text(7);
    v.group = static_cast<int>(q.integer(8));
    out.push_back(std::move(v));
  }
  return out;
}

std::int64_t Store::add_run(std::int64_t program, std::int64_t session, const RunRow& run) {
  Transaction t(db_);
  Statement q(db_,
              "INSERT INTO runs(uid, program, session, kind, target_loop, grp, round, layout, "
              "env_padding, taken, wall_seconds, exit_status, ok, reason, nivcsw, steal_ticks, "
              "off_cpu_ns, batch, slot, cpu_seconds, observed) "
              "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
              "?)");
  q.bind(1, unique_id())
      .bind(2, program)
      .bind(3, session)
      .bind(4, to_string(run.kind))
      .bind(5, run.target_loop)
      .bind(6, run.group)
      .bind(7, run.round)
      .bind(8, run.layout)
      .bind(9, static_cast<std::int64_t>(run.env_padding))
      .bind(10, utc_now())
      .bind(11, run.wall_seconds)
      .bind(12, run.exit_status)
      .bind(13, run.ok ? 1 : 0)
      .bind(14, run.reason)
      .bind(15, static_cast<std::int64_t>(run.nivcsw))
      .bind(16, static_cast<std::int64_t>(run.steal_ticks))
      .bind(17, static_cast<std::int64_t>(run.off_cpu_ns))
      .bind(20, run.cpu_seconds);
  if (run.observed.empty()) {
    q.bind_null(21);
  } else {
    q.bind(21, run.observed);
  }
  if (run.joint) {
    q.bind(18, run.joint->batch).bind(19, run.joint->slot);
  } else {
    q.bind_null(18).bind_null(19);
  }
  q.run();
  std::int64_t id = sqlite3_last_insert_rowid(db_);
  Statement obs(db_,
                "INSERT INTO observations(run, loop, cycles, entries, migrated, nested, "
                "filtered_cycles, disturbed) VALUES(?,?,?,?,?,?,?,?)");
  for (const auto& o : run.observations) {
    obs.bind(1, id)
        .bind(2, o.loop_id)
        .bind(3, static_cast<std::int64_t>(o.cycles))
        .bind(4, static_cast<std::int64_t>(o.entries))
        .bind(5, static_cast<std::int64_t>(o.migrated))
        .bind(6, static_cast<std::int64_t>(o.nested))
        .bind(7, o.filtered)
        .bind(8, static_cast<std::int64_t>(o.disturbed))
        .run();
  }
  t.commit();
  return id;
}

std::vector<RunRow> Store::runs(std::int64_t program, RunKind kind,
                                const std::string& target_loop) const {
  bool by_target = kind == RunKind::kRace || kind == RunKind::kWarmup || kind == RunKind::kConfirm;
  return select_runs(program, kind, by_target ? "target_loop" : "", target_loop);
}

std::vector<RunRow> Store::joint_runs(std::int64_t program, RunKind kind,
                                      const std::string& batch) const {
  return select_runs(program, kind, "batch", batch);
}

std::vector<RunRow> Store::select_runs(std::int64_t program, RunKind kind,
                                       const std::string& column, const std::string& value) const {
  const std::string where = column.empty() ? "" : fmt::format(" AND {}=?3", column);
  const std::string sql = fmt::format(
      "SELECT id, kind, target_loop, grp, round, layout, env_padding, wall_seconds, exit_status, "
      "ok, reason, nivcsw, steal_ticks, off_cpu_ns, batch, slot, cpu_seconds, observed, session "
      "FROM runs "
      "WHERE "
      "program=?1 AND "
      "kind=?2{} ORDER BY round, id",
      where);
  Statement q(db_, sql.c_str());
  q.bind(1, program).bind(2, to_string(kind));
  if (!column.empty()) q.bind(3, value);
  std::vector<RunRow> out;
  std::map<std::int64_t, std::size_t> index;
  while (q.step()) {
    RunRow r;
    r.id = q.integer(0);
    r.kind = kind_from_string(q.text(1));
    r.target_loop = q.text(2);
    r.group = static_cast<int>(q.integer(3));
    r.round = static_cast<int>(q.integer(4));
    r.layout = static_cast<int>(q.integer(5));
    r.env_padding = static_cast<std::uint64_t>(q.integer(6));
    r.wall_seconds = q.real(7);
    r.exit_status = static_cast<int>(q.integer(8));
    r.ok = q.integer(9) != 0;
    r.reason = q.text(10);
    r.nivcsw = static_cast<std::uint64_t>(q.integer(11));
    r.steal_ticks = static_cast<std::uint64_t>(q.integer(12));
    r.off_cpu_ns = static_cast<std::uint64_t>(q.integer(13));
    if (!q.is_null(14)) r.joint = JointSlot{q.text(14), static_cast<int>(q.integer(15))};
    r.cpu_seconds = q.real(16);
    if (!q.is_null(17)) r.observed = q.text(17);
    r.session = q.integer(18);
    index[r.id] = out.size();
    out.push_back(std::move(r));
  }
  const std::string obs_sql = fmt::format(
      "SELECT o.run, o.loop, o.cycles, o.entries, o.migrated, o.nested, o.filtered_cycles, "
      "o.disturbed FROM observations o JOIN runs r ON r.id=o.run WHERE r.program=?1 AND "
      "r.kind=?2{}",
      column.empty() ? "" : fmt::format(" AND r.{}=?3", column));
  Statement obs(db_, obs_sql.c_str());
  obs.bind(1, program).bind(2, to_string(kind));
  if (!column.empty()) obs.bind(3, value);
  while (obs.step()) {
    auto it = index.find(obs.integer(0));
    if (it == index.end()) continue;
    LoopObservation o{obs.text(1),
                      static_cast<std::uint64_t>(obs.integer(2)),
                      static_cast<std::uint64_t>(obs.integer(3)),
                      static_cast<std::uint64_t>(obs.integer(4)),
                      static_cast<std::uint64_t>(obs.integer(5)),
                      obs.is_null(6) ? std::nullopt : std::optional<double>(obs.real(6)),
                      static_cast<std::uint64_t>(obs.integer(7))};
    out[it->second].observations.push_back(std::move(o));
  }
  return out;
}

std::vector<std::string> Store::raced_loops(std::int64_t program) const {
  Statement q(db_,
              "SELECT loop FROM ("
              " SELECT target_loop AS loop, min(id) AS first FROM runs"
              " WHERE program=?1 AND kind='race' AND batch IS NULL"
              " GROUP BY target_loop"
              " UNION ALL"
              " SELECT j.loop, min(r.id) FROM joint_slots j JOIN runs r"
              " ON r.program=j.program AND r.kind='race' AND r.batch=j.batch"
              " WHERE j.program=?1 GROUP BY j.loop)"
              " GROUP BY loop ORDER BY min(first)");
  q.bind(1, program);
  std::vector<std::string> out;
  while (q.step()) out.push_back(q.text(0));
  return out;
}

void Store::put_joint_slots(std::int64_t program, const std::string& batch,
                            const std::map<std::string, std::vector<int>>& factors) {
  Transaction t(db_);
  for (const auto& [loop, per_slot] : factors) {
    for (std::size_t slot = 0; slot < per_slot.size(); ++slot) {
      Statement q(db_,
                  "INSERT INTO joint_slots(program, batch, slot, loop, factor) VALUES(?,?,?,?,?) "
                  "ON CONFLICT(program, batch, slot, loop) DO NOTHING");
      q.bind(1, program)
          .bind(2, batch)
          .bind(3, static_cast<std::int64_t>(slot))
          .bind(4, loop)
          .bind(5, per_slot[slot])
          .run();
    }
  }
  t.commit();
}

std::map<std::string, std::vector<int>> Store::joint_slots(std::int64_t program,
                                                           const std::string& batch) const {
  Statement q(db_,
              "SELECT loop, slot, factor FROM joint_slots WHERE program=? AND batch=? "
              "ORDER BY loop, slot");
  q.bind(1, program).bind(2, batch);
  std::map<std::string, std::vector<int>> out;
  while (q.step()) {
    auto& per_slot = out[q.text(0)];
    per_slot.resize(static_cast<std::size_t>(q.integer(1)) + 1);
    per_slot.back() = static_cast<int>(q.integer(2));
  }
  return out;
}

std::vector<LoopRaceRun> Store::loop_race_runs(std::int64_t program,
                                               const std::string& loop_id) const {
  Statement q(db_,
              // A run of one loop's race timed the raced loop, or one loop around it: the one
              // it names; in runs before that column, the raced loop or the only other one.
              "SELECT r.id, r.round, r.grp, r.ok, r.reason, o.cycles, o.filtered_cycles, 0,"
              " o.entries, o.disturbed, o.loop FROM runs r"
              " LEFT JOIN observations o ON o.run=r.id AND o.loop=coalesce(r.observed,"
              "  (SELECT loop FROM observations WHERE run=r.id AND loop=?2),"
              "  (SELECT min(loop) FROM observations WHERE run=r.id))"
              " WHERE r.program=?1 AND r.kind='race' AND r.target_loop=?2"
              " UNION ALL"
              " SELECT r.id, r.round, j.factor, r.ok, r.reason, o.cycles, o.filtered_cycles, 1,"
              " o.entries, o.disturbed, o.loop FROM joint_slots j"
              " JOIN runs r ON r.program=j.program AND r.kind='race' AND r.batch=j.batch"
              " AND r.slot=j.slot"
              " LEFT JOIN observations o ON o.run=r.id AND o.loop=j.loop"
              " WHERE j.program=?1 AND j.loop=?2"
              " ORDER BY 2, 1");
  q.bind(1, program).bind(2, loop_id);
  std::vector<LoopRaceRun> out;
  while (q.step()) {
    LoopRaceRun r;
    r.run_id = q.integer(0);
    r.round = static_cast<int>(q.integer(1));
    r.factor = static_cast<int>(q.integer(2));
    r.ok = q.integer(3) != 0;
    r.reason = q.text(4);
    if (!q.is_null(5)) r.cycles = static_cast<std::uint64_t>(q.integer(5));
    if (!q.is_null(6)) r.filtered = q.real(6);
    r.joint = q.integer(7) != 0;
    r.entries = static_cast<std::uint64_t>(q.integer(8));
    r.disturbed = static_cast<std::uint64_t>(q.integer(9));
    if (!q.is_null(10)) r.observed = q.text(10);
    out.push_back(std::move(r));
  }
  return out;
}

void Store::put_decision(std::int64_t program, const plans::LoopDecision& d) {
  Statement q(db_,
              "INSERT INTO decisions(program, loop, plan, chosen, winners, samples, groups, "
              "cap_hit, rounds, disqualified, speedup, decided_at) VALUES(?,?,?,?,?,?,?,?,?,?,?,?) "
              "ON CONFLICT(program, loop, plan) DO UPDATE SET chosen=excluded.chosen, "
              "winners=excluded.winners, samples=excluded.samples, groups=excluded.groups, "
              "cap_hit=excluded.cap_hit, rounds=excluded.rounds, "
              "disqualified=excluded.disqualified, speedup=excluded.speedup, "
              "decided_at=excluded.decided_at");
  const DecisionColumns c = to_columns(d);
  q.bind(1, program)
      .bind(2, d.loop_id)
      .bind(3, d.plan)
      .bind(4, d.chosen)
      .bind(5, c.winners.dump())
      .bind(6, c.samples.dump())
      .bind(7, c.groups.dump())
      .bind(8, d.cap_hit ? 1 : 0)
      .bind(9, c.rounds.dump())
      .bind(10, c.disqualified.dump())
      .bind(11, c.speedup.dump())
      .bind(12, d.decided_at.empty() ? utc_now() : d.decided_at)
      .run();
}

std::optional<plans::LoopDecision> Store::decision(std::int64_t program, const std::string& loop_id,
                                                   const std::string& plan) const {
  std::string sql = fmt::format("SELECT {} FROM decisions WHERE program=? AND loop=? AND plan=?",
                                kDecisionColumns);
  Statement q(db_, sql.c_str());
  q.bind(1, program).bind(2, loop_id).bind(3, plan);
  if (!q.step()) return std::nullopt;
  return decision_from(q);
}

std::vector<plans::LoopDecision> Store::decisions(std::int64_t program) const {
  // The latest decision per loop (a loop raced again with another plan replaces it).
  std::string sql = fmt::format(
      "SELECT {} FROM decisions d WHERE program=? AND decided_at = (SELECT max(decided_at) FROM "
      "decisions e WHERE e.program=d.program AND e.loop=d.loop) GROUP BY loop ORDER BY loop",
      kDecisionColumns);
  Statement q(db_, sql.c_str());
  q.bind(1, program);
  std::vector<plans::LoopDecision> out;
  while (q.step()) out.push_back(decision_from(q));
  return out;
}

std::set<std::pair<std::string, std::string>> Store::decided_loop_plans() const {
  Statement q(db_, "SELECT DISTINCT loop, plan FROM decisions");
  std::set<std::pair<std::string, std::string>> decided;
  while (q.step()) decided.emplace(q.text(0), q.text(1));
  return decided;
}

std::vector<std::string> Store::race_hosts(std::int64_t program, const std::string& loop_id) const {
  // Race runs of the loop alone, or of a joint batch it is in.
  Statement q(db_,
              "SELECT DISTINCT json_extract(s.facts, '$.hostname') AS host FROM sessions s WHERE "
              "host IS NOT NULL AND s.id IN (SELECT r.session FROM runs r WHERE r.program=?1 AND "
              "r.kind='race' AND (r.target_loop=?2 OR r.batch IN (SELECT batch FROM joint_slots "
              "WHERE program=?1 AND loop=?2))) ORDER BY host");
  q.bind(1, program).bind(2, loop_id);
  std::vector<std::string> hosts;
  while (q.step()) hosts.push_back(q.text(0));
  return hosts;
}

Store::RunTally Store::run_tally(std::int64_t program,
                                 const std::optional<std::string>& loop_id) const {
  const std::string sql = fmt::format(
      "SELECT kind, count(*), total(wall_seconds), min(taken), max(taken) FROM runs WHERE "
      "program=?1{} GROUP BY kind",
      loop_id ? " AND target_loop=?2" : "");
  Statement q(db_, sql.c_str());
  q.bind(1, program);
  if (loop_id) q.bind(2, *loop_id);
  RunTally tally;
  while (q.step()) {
    tally.kinds[kind_from_string(q.text(0))] = {static_cast<std::size_t>(q.integer(1)), q.real(2)};
    const std::string first = q.text(3), last = q.text(4);
    if (tally.first_taken.empty() || first < tally.first_taken) tally.first_taken = first;
    tally.last_taken = std::max(tally.last_taken, last);
  }
  return tally;
}

std::optional<double> Store::first_wall_seconds(std::int64_t program, RunKind kind) const {
  Statement q(db_, "SELECT wall_seconds FROM runs WHERE program=? AND kind=? ORDER BY id LIMIT 1");
  q.bind(1, program).bind(2, to_string(kind));
  if (!q.step()) return std::nullopt;
  return q.real(0);
}

// What merge_from copies with SQL, `other` being the attached store and program_map its
// programs' ids here: sessions, loops, variants, joint slots, runs (sessions mapped by their
// unique id) and observations (runs mapped by theirs). Rows already here are kept; a run
// already here has its observations, since a run and its observations commit together.
constexpr const char* kMergeSessions =
    "INSERT OR IGNORE INTO main.sessions(uid, started, command, facts) "
    "SELECT uid, started, command, facts FROM other.sessions ORDER BY id";
constexpr const char* kMergeLoops =
    "INSERT INTO main.loops(program, id, file, line, col, function, depth, idx, loops, features) "
    "SELECT m.new, l.id, l.file, l.line, l.col, l.function, l.depth, l.idx, l.loops, l.features "
    "FROM other.loops l JOIN temp.program_map m ON m.old = l.program WHERE true "
    "ON CONFLICT(program, id) DO UPDATE SET file=excluded.file, line=excluded.line, "
    "col=excluded.col, function=excluded.function, depth=excluded.depth, idx=excluded.idx, "
    "loops=excluded.loops, features=excluded.features";
constexpr const char* kMergeVariants =
    "INSERT OR IGNORE INTO main.variants(program, loop, factor, layout, code_hash, applied, how, "
    "built, build_log, grp) SELECT m.new, v.loop, v.factor, v.layout, v.code_hash, v.applied, "
    "v.how, v.built, v.build_log, v.grp FROM other.variants v "
    "JOIN temp.program_map m ON m.old = v.program";
constexpr const char* kMergeJointSlots =
    "INSERT OR IGNORE INTO main.joint_slots(program, batch, slot, loop, factor) "
    "SELECT m.new, j.batch, j.slot, j.loop, j.factor FROM other.joint_slots j "
    "JOIN temp.program_map m ON m.old = j.program";
constexpr const char* kMergeRuns =
    "INSERT OR IGNORE INTO main.runs(uid, program, session, kind, target_loop, grp, round, "
    "layout, env_padding, taken, wall_seconds, exit_status, ok, reason, nivcsw, steal_ticks, "
    "off_cpu_ns, batch, slot, cpu_seconds, observed) "
    "SELECT r.uid, m.new, (SELECT s.id FROM main.sessions s JOIN other.sessions o "
    "ON o.uid = s.uid WHERE o.id = r.session), r.kind, r.target_loop, r.grp, r.round, r.layout, "
    "r.env_padding, r.taken, r.wall_seconds, r.exit_status, r.ok, r.reason, r.nivcsw, "
    "r.steal_ticks, r.off_cpu_ns, r.batch, r.slot, r.cpu_seconds, r.observed FROM other.runs r "
    "JOIN temp.program_map m ON m.old = r.program ORDER BY r.id";
constexpr const char* kMergeObservations =
    "INSERT OR IGNORE INTO main.observations(run, loop, cycles, entries, migrated, nested, "
    "filtered_cycles, disturbed) SELECT h.id, o.loop, o.cycles, o.entries, o.migrated, o.nested, "
    "o.filtered_cycles, o.disturbed FROM other.observations o JOIN other.runs r ON r.id = o.run "
    "JOIN main.runs h ON h.uid = r.uid";

// `other` attached to a connection as schema "other" for the lifetime of this object.
class Attached {
 public:
  Attached(sqlite3* db, const std::filesystem::path& other) : db_(db) {
    Statement q(db, "ATTACH DATABASE ? AS other");
    q.bind(1, other.string()).run();
  }
  ~Attached() { sqlite3_exec(db_, "DETACH DATABASE other", nullptr, nullptr, nullptr); }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;

 private:
  sqlite3* db_;
};

Store::MergeCounts Store::merge_from(const Store& other, bool force) {
  if (auto id = other.identity()) bind_identity(*id, force);
  MergeCounts counts;
  Attached attached(db_, other.path_);  // SQLite attaches outside transactions only
  Transaction t(db_);
  exec(
      "CREATE TEMP TABLE IF NOT EXISTS program_map(old INTEGER PRIMARY KEY, new INTEGER);"
      "DELETE FROM temp.program_map;");
  std::map<std::int64_t, std::int64_t> program_map;
  for (const auto& p : other.programs()) {
    program_map[p.id] = program(p.build_command, p.run_command, p.code);
    Statement q(db_, "INSERT INTO temp.program_map(old, new) VALUES(?, ?)");
    q.bind(1, p.id).bind(2, program_map[p.id]).run();
  }
  const auto changes = [&](const char* sql) {
    exec(sql);
    return static_cast<std::size_t>(sqlite3_changes(db_));
  };
  changes(kMergeSessions);
  changes(kMergeLoops);
  counts.variants = changes(kMergeVariants);
  changes(kMergeJointSlots);
  counts.runs = changes(kMergeRuns);
  counts.observations = changes(kMergeObservations);
  {
    // Decisions: the newer of the two wins.
    std::string sql = fmt::format("SELECT program, {} FROM decisions", kDecisionColumns);
    Statement q(other.db_, sql.c_str());
    while (q.step()) {
      std::int64_t program_id = program_map.at(q.integer(0));
      plans::LoopDecision d = decision_from(q, 1);
      auto mine = decision(program_id, d.loop_id, d.plan);
      if (mine && mine->decided_at >= d.decided_at) continue;
      put_decision(program_id, d);
      ++counts.decisions;
    }
  }
  t.commit();
  return counts;
}

}  // namespace looprace::store
