#include "profile/profile_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace looprace::profile {
namespace {

// Writes all of `text` to a new file next to `file`, syncs it and renames it over `file`.
void write_atomically(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::path dir = file.has_parent_path() ? file.parent_path() : ".";
  std::filesystem::create_directories(dir);
  std::string tmp = (dir / ("." + file.filename().string() + ".XXXXXX")).string();
  int fd = mkstemp(tmp.data());
  if (fd < 0) {
    throw ProfileError(file.string() + ": cannot create a temporary file: " + std::strerror(errno));
  }
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = errno;
      close(fd);
      unlink(tmp.c_str());
      throw ProfileError(file.string() + ": cannot write: " + std::strerror(err));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    throw ProfileError(file.string() + ": cannot write: " + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    int err = errno;
    unlink(tmp.c_str());
    throw ProfileError(file.string() + ": cannot replace: " + std::strerror(err));
  }
}

}  // namespace

Profile read_profile_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ProfileError(file.string() + ": cannot read the profile");
  std::ostringstream text;
  text << in.rdbuf();
  ParseResult parsed = parse(text.str());
  if (auto* error = std::get_if<ParseError>(&parsed)) {
    throw ProfileError(file.string() + ":" + std::to_string(error->line) + ": " + error->message);
  }
  return std::get<Profile>(std::move(parsed));
}

std::string provenance_comment(const Provenance& p) {
  return "looprace: " + p.looprace + "   gcc: " + p.gcc + "   cpu: " + p.cpu + "   date: " + p.date;
}

std::optional<Provenance> read_provenance(const Profile& profile) {
  static const std::regex kComment("^looprace: (.*?)   gcc: (.*?)   cpu: (.*?)   date: (.*)$");
  std::smatch m;
  for (const std::string& comment : profile.header_comments) {
    if (std::regex_match(comment, m, kComment)) return Provenance{m[1], m[2], m[3], m[4]};
  }
  return std::nullopt;
}

void update_profile_file(const std::filesystem::path& file, const std::vector<Entry>& entries,
                         const std::vector<std::string>& header_comments,
                         const std::vector<std::string>& flags) {
  Profile profile;
  if (std::filesystem::exists(file)) profile = read_profile_file(file);
  profile.header_comments = header_comments;
  profile.flags = flags;
  for (const Entry& entry : entries) {
    bool replaced = false;
    for (Entry& old : profile.entries) {
      if (old.id == entry.id) {
        old = entry;
        replaced = true;
      }
    }
    if (!replaced) profile.entries.push_back(entry);
  }
  write_atomically(file, format_profile(profile));
}

}  // namespace looprace::profile
