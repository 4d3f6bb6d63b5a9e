// Profile files on disk (docs/formats.md section 5) through the one grammar of
// plugin/profile_grammar.h: reading with errors that name the file and line, and updating
// atomically so a reader (or a build) never sees half a profile.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "plugin/profile_grammar.h"

namespace looprace::profile {

// "FILE:LINE: message" for a profile that does not parse, or "FILE: cannot read".
struct ProfileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Profile read_profile_file(const std::filesystem::path& file);

// Where a profile's decisions were measured: the first header comment `looprace race` writes,
// "looprace: V   gcc: G   cpu: C   date: D". A loop's best factor is the machine's, so
// `looprace apply` compares the CPU with the one it runs on.
struct Provenance {
  std::string looprace, gcc, cpu, date;
};
std::string provenance_comment(const Provenance& provenance);
// The provenance among the header comments; nullopt for a profile written by hand.
std::optional<Provenance> read_provenance(const Profile& profile);

// Writes `entries` into the profile at `file`: an entry replaces the one with the same id, the
// entries of other loops already there are kept (in their order, new ones appended), and the
// header comments become `header_comments` and the flags line `flags` (none when empty). A file
// that exists but does not parse is an error (it is never overwritten). The write goes to a
// temporary file in the same directory that is synced and renamed over `file`.
void update_profile_file(const std::filesystem::path& file, const std::vector<Entry>& entries,
                         const std::vector<std::string>& header_comments,
                         const std::vector<std::string>& flags = {});

}  // namespace looprace::profile
