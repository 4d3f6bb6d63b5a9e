#include "run/digest.h"

#include <fmt/format.h>

namespace looprace::run {

void Digest::update(const void* data, std::size_t size) {
  constexpr std::uint64_t kPrime = 0x100000001b3ULL;
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    state_ ^= bytes[i];
    state_ *= kPrime;
  }
}

void Digest::update(std::string_view bytes) { update(bytes.data(), bytes.size()); }

std::string Digest::hex() const { return fmt::format("{:016x}", state_); }

}  // namespace looprace::run
