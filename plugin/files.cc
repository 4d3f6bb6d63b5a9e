// Bounded reads and atomic appends.
#include "files.h"

namespace looprace {

bool read_bounded_file(const std::string& path, const char* what, std::size_t limit,
                       std::string& text, std::string& error) {
  FILE* file = fopen(path.c_str(), "rb");
  if (!file) {
    error = std::string("cannot read ") + what + " '" + path + "': " + xstrerror(errno);
    return false;
  }
  text.clear();
  char buffer[65536];
  std::size_t got;
  while ((got = fread(buffer, 1, sizeof buffer, file)) > 0 && text.size() <= limit)
    text.append(buffer, got);
  bool read_failed = ferror(file);
  fclose(file);
  if (read_failed) {
    error = std::string("cannot read ") + what + " '" + path + "'";
    return false;
  }
  if (text.size() > limit) {
    error = std::string(what) + " '" + path + "' is larger than " + std::to_string(limit >> 20) +
            " MiB: not a looprace " + what;
    return false;
  }
  return true;
}

bool append_atomically(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  ssize_t written = write(fd, text.data(), text.size());
  int saved_errno = errno;
  close(fd);
  errno = saved_errno;
  if (written >= 0 && static_cast<size_t>(written) != text.size()) errno = EIO;
  return written >= 0 && static_cast<size_t>(written) == text.size();
}

}  // namespace looprace
