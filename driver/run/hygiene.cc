#include "run/hygiene.h"

#include "run/process.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace looprace::run {

namespace {

std::optional<std::string> read_first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

// The "key : value" lines of /proc/cpuinfo's first processor, read once.
std::map<std::string, std::string> first_cpuinfo() {
  std::map<std::string, std::string> values;
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line) && !line.empty()) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    values.emplace(name, line.substr(std::min(line.size(), colon + 2)));
  }
  return values;
}

// cpu_description() of a first_cpuinfo().
std::string describe_cpu(std::map<std::string, std::string> cpuinfo) {
  return cpu_description(cpuinfo["model name"], cpuinfo["cpu family"], cpuinfo["model"],
                         cpuinfo["stepping"]);
}

// TSC ticks per second against CLOCK_MONOTONIC_RAW over a short interval; nullopt off x86.
std::optional<double> calibrate_tsc_hz() {
#if defined(__x86_64__) || defined(__i386__)
  using Clock = std::chrono::steady_clock;
  timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
  std::uint64_t c0 = __rdtsc();
  auto until = Clock::now() + std::chrono::milliseconds(20);
  while (Clock::now() < until) {
  }
  clock_gettime(CLOCK_MONOTONIC_RAW, &t1);
  std::uint64_t c1 = __rdtsc();
  double ns = double(t1.tv_sec - t0.tv_sec) * 1e9 + double(t1.tv_nsec - t0.tv_nsec);
  return double(c1 - c0) / ns * 1e9;
#else
  return std::nullopt;
#endif
}

std::string allowed_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "unknown";
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return fmt::format("{}", fmt::join(cpus, ","));
}

bool cpu_allowed(int cpu) {
  cpu_set_t set;
  return cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof set, &set) == 0 &&
         CPU_ISSET(cpu, &set);
}

}  // namespace

std::vector<std::string> machine_warnings(const MachineFacts& facts) {
  std::vector<std::string> warnings;
  if (facts.load1 >= 0.5 * facts.cores) {
    warnings.push_back(fmt::format("load average {:.2f} on {} CPU{}: timings are noisy",
                                   facts.load1, facts.cores, facts.cores == 1 ? "" : "s"));
  }
  for (const auto& governor : facts.governors) {
    if (governor != "performance") {
      warnings.push_back(fmt::format(
          "CPU frequency governor \"{}\" (not \"performance\"): the clock speed follows the load",
          governor));
    }
  }
  if (facts.boost.value_or(false)) {
    warnings.push_back(
        "frequency boost (turbo) is on: the clock speed depends on temperature and "
        "on what the other cores do");
  }
  if (!facts.constant_tsc || !facts.nonstop_tsc) {
    warnings.push_back(
        "the TSC is not invariant (constant_tsc/nonstop_tsc missing): cycle counts "
        "change with the clock speed");
  }
  if (facts.hypervisor) {
    warnings.push_back("running in a virtual machine: other guests on the host add noise");
  }
  return warnings;
}

std::string cpu_description(const std::string& model_name, const std::string& family,
                            const std::string& model, const std::string& stepping) {
  if (family.empty() || model.empty()) return model_name;
  return fmt::format("{} (family {}, model {}{})", model_name, family, model,
                     stepping.empty() ? "" : ", stepping " + stepping);
}

std::string this_cpu() { return describe_cpu(first_cpuinfo()); }

bool same_cpu(const std::string& a, const std::string& b) {
  constexpr std::string_view kFamily = " (family ";
  const std::size_t in_a = a.find(kFamily), in_b = b.find(kFamily);
  if ((in_a == std::string::npos) == (in_b == std::string::npos)) return a == b;
  return a.substr(0, in_a) == b.substr(0, in_b);
}

MachineFacts collect_machine_facts(const std::string& compiler, std::optional<int> pin_cpu) {
  MachineFacts facts;
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  facts.hostname = host;
  utsname names{};
  if (uname(&names) == 0) facts.kernel = fmt::format("{} {}", names.sysname, names.release);
  const std::map<std::string, std::string> cpuinfo = first_cpuinfo();
  facts.cpu_model = describe_cpu(cpuinfo);
  facts.cores = unsigned(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));

  std::set<std::string> governors;
  for (unsigned cpu = 0; cpu < facts.cores; ++cpu) {
    auto governor =
        read_first_line(fmt::format("/sys/devices/system/cpu/cpu{}/cpufreq/scaling_governor", cpu));
    if (governor) governors.insert(*governor);
  }
  facts.governors.assign(governors.begin(), governors.end());
  if (auto boost = read_first_line("/sys/devices/system/cpu/cpufreq/boost")) {
    facts.boost = *boost == "1";
  } else if (auto no_turbo = read_first_line("/sys/devices/system/cpu/intel_pstate/no_turbo")) {
    facts.boost = *no_turbo == "0";
  }
  double loads[3] = {0, 0, 0};
  if (getloadavg(loads, 3) == 3) {
    facts.load1 = loads[0];
    facts.load5 = loads[1];
    facts.load15 = loads[2];
  }

  std::istringstream flags(cpuinfo.count("flags") ? cpuinfo.at("flags") : "");
  for (std::string flag; flags >> flag;) {
    if (flag == "constant_tsc") facts.constant_tsc = true;
    if (flag == "nonstop_tsc") facts.nonstop_tsc = true;
    if (flag == "hypervisor") facts.hypervisor = true;
  }
  if (auto khz = read_first_line("/sys/devices/system/cpu/cpu0/tsc_freq_khz")) {
    facts.tsc_hz = std::atof(khz->c_str()) * 1e3;
    facts.tsc_hz_source = "sysfs";
  } else if ((facts.tsc_hz = calibrate_tsc_hz())) {
    facts.tsc_hz_source = "calibrated";
  }

  ProcessSpec version;
  version.command = compiler + " --version";
  version.timeout = std::chrono::seconds(10);
  ProcessResult ran = run_process(version);
  if (ran.succeeded()) facts.compiler = ran.out.head.substr(0, ran.out.head.find('\n'));

  facts.pinned_cpu = pin_cpu;
  facts.warnings = machine_warnings(facts);
  if (facts.compiler.empty()) {
    facts.warnings.push_back(
        fmt::format("cannot run \"{} --version\": {}", compiler, ran.describe()));
  }
  if (pin_cpu && !cpu_allowed(*pin_cpu)) {
    facts.warnings.push_back(fmt::format("cannot pin to CPU {}: this process may run on CPUs {}",
                                         *pin_cpu, allowed_cpus()));
  }
  return facts;
}

nlohmann::json MachineFacts::to_json() const {
  nlohmann::json json = {{"hostname", hostname},           {"kernel", kernel},
                         {"cpu_model", cpu_model},         {"cores", cores},
                         {"governors", governors},         {"load", {load1, load5, load15}},
                         {"tsc_hz_source", tsc_hz_source}, {"constant_tsc", constant_tsc},
                         {"nonstop_tsc", nonstop_tsc},     {"hypervisor", hypervisor},
                         {"compiler", compiler},           {"warnings", warnings}};
  json["boost"] = boost ? nlohmann::json(*boost) : nlohmann::json();
  json["tsc_hz"] = tsc_hz ? nlohmann::json(*tsc_hz) : nlohmann::json();
  json["pinned_cpu"] = pinned_cpu ? nlohmann::json(*pinned_cpu) : nlohmann::json();
  return json;
}

std::string MachineFacts::identity() const {
  return fmt::format("{} | {} | {}", hostname, cpu_model, compiler);
}

}  // namespace looprace::run
