// A streaming FNV-1a 64 digest: cheap identity for program outputs and code bytes. Not
// cryptographic; it only has to tell apart outputs and builds of one program.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace looprace::run {

class Digest {
 public:
  void update(std::string_view bytes);
  void update(const void* data, std::size_t size);
  std::uint64_t value() const { return state_; }
  std::string hex() const;  // 16 lower-case hex digits

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace looprace::run
