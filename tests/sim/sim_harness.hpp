#pragma once
// Test harness for the simulator: temporary roots, running gpusim to completion, and polling
// with a bounded deadline (the suite never sleeps for luck).

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gpusim_test {

// A fresh directory under TMPDIR, removed with everything in it.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  private:
    std::filesystem::path path_;
};

struct CommandResult {
    int exit_code = -1;  // -1: killed (signal or deadline)
    std::string out;
    std::string err;
};

// Runs GPUSIM_BIN with `args` to completion (SIGKILLed past `deadline`).
CommandResult gpusim(const std::vector<std::string>& args,
                     std::chrono::milliseconds deadline = std::chrono::seconds(20));

// `gpusim init --root ROOT [--scenario FILE]`, asserting success.
void init_root(const std::filesystem::path& root, const std::string& scenario_yaml = {});

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

// Polls `condition` every few milliseconds until it holds or `deadline` passes.
bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds deadline = std::chrono::seconds(10));

std::vector<std::string> split_lines(const std::string& text);

}  // namespace gpusim_test
