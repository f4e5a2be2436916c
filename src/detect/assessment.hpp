// One process judged: every signal run over the facts read about it, the evidence
// ordered by weight, its score and risk level, what could not be judged and why, and
// whether an allow-list entry covers it. Pure: facts are read by facts_reader.hpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "detect/allow_list.hpp"
#include "detect/borrowed_name_signals.hpp"
#include "detect/config_argument_signals.hpp"
#include "detect/evidence.hpp"
#include "detect/executable_signals.hpp"
#include "detect/network_signals.hpp"
#include "detect/rogue_config.hpp"
#include "detect/unattended_signal.hpp"
#include "history/usage_store.hpp"
#include "model/snapshot.hpp"

namespace gpukill::detect {

struct ProcessFacts {
    SnapshotProcess holder;
    std::optional<NetworkFacts> network;  // empty: its sockets could not be read
    std::string network_note;             // why not, when empty
    // Its samples in the history window; empty optional: no usage history to ask.
    std::optional<std::vector<history::ProcessSample>> history;
    std::string history_note;  // why there is none, when empty
    SessionFacts session;
    // The executable (through /proc/PID/exe): its file, and the miner signatures in its
    // bytes; empty when it could not be read (executable_note says why).
    std::optional<ExecutableFile> executable_file;
    std::optional<ExecutableScan> executable_scan;
    std::string executable_note;
    // The configuration files its arguments name that could be read, and why others not.
    std::vector<ArgumentFile> config_files;
    std::vector<std::string> config_file_notes;
};

struct Assessment {
    SnapshotProcess holder;
    std::vector<Evidence> evidence;  // heaviest first
    int score = 0;
    RiskLevel risk = RiskLevel::low;
    std::vector<std::string> notes;  // signals not judged and why; the usage-shape verdict
    std::optional<AllowMatch> allowed;
    // Its executable and its descriptors could be read; without privilege, other users'
    // cannot, and the signals over them are not judged.
    bool fully_examined = true;
};

Assessment assess(const ProcessFacts& facts, const RogueConfig& config);

struct RogueReport {
    std::vector<Assessment> findings;  // score >= report_threshold, not allowed
    std::vector<Assessment> allowed;   // score >= report_threshold, allowed
    std::size_t processes_examined = 0;
    std::size_t processes_not_fully_examined = 0;
};

// Highest score first, then PID. Processes below the threshold are left out.
RogueReport build_report(std::vector<Assessment> assessments, const RogueConfig& config);

}  // namespace gpukill::detect
