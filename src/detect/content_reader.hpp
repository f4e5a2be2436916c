// Bounded reads of what a GPU holder runs and names: its executable's bytes, searched
// for miner signatures, and the configuration files its arguments name. Effects only;
// judging them is pure (executable_signals.hpp, config_argument_signals.hpp). Only
// read_facts calls these, and only for processes holding a GPU.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "detect/borrowed_name_signals.hpp"
#include "detect/config_argument_signals.hpp"
#include "detect/executable_signals.hpp"
#include "detect/rogue_config.hpp"
#include "detect/signature_scanner.hpp"
#include "model/result.hpp"

namespace gpukill::detect {

struct ExecutableRead {
    ExecutableFile file;
    // Empty when the process runs one of gpukill's own programs (this one, or its
    // partner: gpukill and gpukill-interfaces, host/own_programs.hpp): gpukill's own rule
    // lists carry every signature, and another gpukill (an agent, a watch) holds the GPUs
    // it reads through NVML.
    std::optional<ExecutableScan> scan;
};

// Reads executables through PROCFS/PID/exe, which opens the file the process runs even
// when it was deleted or renamed since (or lives in a container's filesystem): at most
// executable_scan.max_bytes of it, in chunks, through one SignatureScanner. Processes
// running the same file (DataLoader workers, several jobs of one interpreter) are read
// once per reader, which lives for one check.
class ExecutableReader {
  public:
    ExecutableReader(std::string procfs, const RogueConfig& config);

    // Whether reading is wanted at all: signatures configured and their signal weighed.
    bool enabled() const { return enabled_; }
    Result<ExecutableRead> read(pid_t pid);

  private:
    using FileKey = std::tuple<dev_t, ino_t, off_t, std::int64_t, long>;
    std::vector<std::pair<dev_t, ino_t>> own_files_;  // gpukill's executables
    std::string procfs_;
    std::uint64_t max_bytes_;
    bool enabled_;
    SignatureScanner scanner_;
    std::map<FileKey, ExecutableScan> scanned_;
};

// The file `path` names for process `pid`, at most `max_bytes` of it, resolved as the
// process itself resolves it and confined to its root (PROCFS/PID/root): an absolute
// path from that root, a relative one from its working directory expressed inside that
// root; "..", absolute symlinks and magic links never leave it (openat2 RESOLVE_IN_ROOT;
// on a kernel without openat2 nothing is read). Read only when it is a regular file
// (looked at through O_PATH first, so a device or FIFO is never opened) that the
// process's owner `uid` may read too: owned by that user, or readable by everyone.
// Empty optional when it names no such file (`python3 -c CODE`); an error when it
// exists but cannot be read, or when the working directory is outside the root (a
// chroot entered without chdir), so a relative path names nothing it could reach.
Result<std::optional<ArgumentFile>> read_argument_file(const std::string& procfs, pid_t pid,
                                                       std::optional<uid_t> uid,
                                                       const std::string& path,
                                                       std::uint64_t max_bytes);

}  // namespace gpukill::detect
