// The plugin's file input and output: bounded reads of the files arguments name (profiles,
// models) and atomic appends of the files it writes (tables, verify records).
#ifndef LOOPRACE_PLUGIN_FILES_H
#define LOOPRACE_PLUGIN_FILES_H

#include "gcc_headers.h"

namespace looprace {

// Reads the whole of path into text; false with a message naming the file (`what` says which
// kind it should be) when it cannot be read or is larger than limit bytes, so that /dev/zero
// or a mistaken path to a binary gives a diagnostic instead of exhausting the compiler's memory.
bool read_bounded_file(const std::string& path, const char* what, std::size_t limit,
                       std::string& text, std::string& error);

// Appends text to path with a single write() under O_APPEND, so concurrent compilers (make -j)
// never interleave their lines. False with errno set on failure.
bool append_atomically(const std::string& path, const std::string& text);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_FILES_H
