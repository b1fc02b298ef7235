// Running a command-line tool from a test and collecting what it printed.
#ifndef SIFT_TESTS_TESTUTIL_SUBPROCESS_H_
#define SIFT_TESTS_TESTUTIL_SUBPROCESS_H_

#include <string>

namespace sift::test {

struct CommandResult {
  int exit_code = -1;  // -1 if the command did not exit normally
  std::string out;     // its stdout
  std::string err;     // its stderr
};

// Runs `command` with /bin/sh (the caller quotes), capturing stdout and
// stderr through files in scratch_dir.
CommandResult RunCommand(const std::string& command,
                         const std::string& scratch_dir);

// The directory holding the built tools (build/bin), from the compile
// definition SIFT_BIN_DIR; empty when the tools are not built.
std::string ToolPath(const std::string& tool);

}  // namespace sift::test

#endif  // SIFT_TESTS_TESTUTIL_SUBPROCESS_H_
