#include "tests/testutil/subprocess.h"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace sift::test {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CommandResult RunCommand(const std::string& command,
                         const std::string& scratch_dir) {
  const std::string out = scratch_dir + "/cmd.stdout";
  const std::string err = scratch_dir + "/cmd.stderr";
  const std::string full =
      absl::StrCat(command, " >", out, " 2>", err, " </dev/null");
  const int status = std::system(full.c_str());
  CommandResult r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

std::string ToolPath(const std::string& tool) {
#ifdef SIFT_BIN_DIR
  return absl::StrCat(SIFT_BIN_DIR, "/", tool);
#else
  return tool;
#endif
}

}  // namespace sift::test
