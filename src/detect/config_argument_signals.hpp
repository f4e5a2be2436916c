// Signals from the configuration file a process names in its arguments. A miner that
// keeps its command line clean (`python3 --config=/home/u/.cache/settings.json`) keeps
// its pool, wallet and algorithm in that file instead; the file's words are judged as
// a command line is (cmdline_signals.hpp), and the evidence says which file. Pure:
// facts_reader.hpp reads the files (bounded by config_file_max_bytes).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "detect/evidence.hpp"
#include "detect/rogue_config.hpp"

namespace gpukill::detect {

// Options whose value names a configuration file: --config=FILE, --config FILE, -c FILE.
// (`python3 -c CODE` names no file; reading it finds none, and nothing is judged.)
inline constexpr const char* kConfigFileOptions[] = {"--config", "--config-file", "--conf", "--cfg",
                                                     "-c",       "-config"};
inline constexpr std::size_t kMaxConfigFiles = 4;  // per process
// Words of one file looked at: a 64 KiB file has fewer, a larger bound is still linear.
inline constexpr std::size_t kMaxConfigWords = 65536;

// The files the arguments name, in order, each once, at most kMaxConfigFiles; paths as
// written (relative ones are the process's, from its working directory).
std::vector<std::string> config_file_arguments(const std::vector<std::string>& cmdline);

// A configuration file's words as a command line, for JSON, YAML, TOML, INI and
// key=value files alike: a key and its value (`"url": "pool:3333"`, `url: pool:3333`,
// `url = pool:3333`, `url=pool:3333`) become "--url" "pool:3333"; quotes, commas,
// brackets and braces separate words; every other word stays as it is.
std::vector<std::string> config_words(std::string_view text);

struct ArgumentFile {
    std::string path;  // as the arguments name it
    std::string text;  // at most config_file_max_bytes of it
    bool cut = false;  // the file is longer than text
};

// The command-line signals over the file's words; each detail starts with the file.
std::vector<Evidence> judge_config_file(const ArgumentFile& file, const RogueConfig& config);

}  // namespace gpukill::detect
