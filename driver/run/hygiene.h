// Facts about the machine that decide whether timings can be trusted, and warnings when they
// cannot: frequency governor, boost, load, TSC properties, plus machine and compiler identity.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace looprace::run {

struct MachineFacts {
  std::string hostname;
  std::string kernel;                  // uname -sr
  std::string cpu_model;               // cpu_description() of /proc/cpuinfo
  unsigned cores = 0;                  // online logical CPUs
  std::vector<std::string> governors;  // distinct scaling governors; empty when not exposed
  std::optional<bool> boost;           // turbo/boost enabled, when the kernel says
  double load1 = 0, load5 = 0, load15 = 0;
  std::optional<double> tsc_hz;  // kernel's tsc_freq_khz, else measured against CLOCK_MONOTONIC_RAW
  std::string tsc_hz_source;     // "sysfs", "calibrated" or empty
  bool constant_tsc = false;     // cpuinfo flags
  bool nonstop_tsc = false;
  bool hypervisor = false;
  std::string compiler;  // first line of `<cc> --version`
  std::optional<int> pinned_cpu;
  std::vector<std::string> warnings;  // e.g. "load average 1.9 on 2 CPUs: timings are noisy"

  nlohmann::json to_json() const;
  // A short identity of machine + compiler, for telling stores from other machines apart.
  std::string identity() const;
};

// The CPU as a profile, a store and a baseline record name it: the model name, then the x86
// family, model and stepping when known. A virtual machine's model name can be one word for
// several generations ("AMD EPYC"), and a loop's best factor can differ between them.
std::string cpu_description(const std::string& model_name, const std::string& family,
                            const std::string& model, const std::string& stepping);

// This machine's cpu_description().
std::string this_cpu();

// Whether CPU descriptions `a` and `b` name the same CPU as far as both tell: one without the
// family and model (recorded before they were) is compared by the model name alone.
bool same_cpu(const std::string& a, const std::string& b);

// The warnings `facts` call for (load, governor, boost, TSC, virtual machine, compiler); what
// collect_machine_facts() puts in `warnings`, plus its check of the CPU to pin to.
std::vector<std::string> machine_warnings(const MachineFacts& facts);

// `compiler`: the C compiler the variants are built with; `pin_cpu`: the CPU runs will be
// pinned to (checked to exist and be allowed).
MachineFacts collect_machine_facts(const std::string& compiler = "gcc",
                                   std::optional<int> pin_cpu = std::nullopt);

}  // namespace looprace::run
