// The --rogue table: a row per finding with its heaviest evidence, every piece under it
// with its weight, notes, allowed processes apart, and process text made terminal-safe.
#include "cli/rogue_table.hpp"
#include "detect/rogue_json.hpp"

#include <gtest/gtest.h>

namespace gpukill::cli {
namespace {

using namespace detect;

Assessment finding(pid_t pid, std::string comm, int score, std::vector<Evidence> evidence) {
    Assessment assessment;
    assessment.holder.info.pid = pid;
    assessment.holder.info.user = "bob";
    assessment.holder.info.comm = std::move(comm);
    assessment.score = score;
    assessment.risk = risk_for(score, RiskThresholds{});
    assessment.evidence = std::move(evidence);
    assessment.notes = {"no usage history: shape not judged"};
    return assessment;
}

ReportContext context() {
    return {.host = "node7",
            .timestamp_unix_ms = 0,
            .config_source = "built-in defaults",
            .report_threshold = 40,
            .window_hours = 24,
            .history_available = true,
            .history_note = std::nullopt};
}

TEST(RogueTable, FindingsWithEveryPieceOfEvidence) {
    RogueReport report;
    report.processes_examined = 3;
    report.findings.push_back(finding(4242, "xmrig", 100,
                                      {{Signal::miner_name, 60, "known miner program: x"},
                                       {Signal::stratum_url, 60, "stratum mining URL: y"}}));
    report.findings.push_back(
        finding(77, "python", 40, {{Signal::masquerade, 40, "poses as another program: z"}}));
    const std::string text = render_rogue_table(report_json(report, context()));
    EXPECT_EQ(text,
              "2 suspicious processes among 3 GPU processes (score >= 40; last 24 h of usage "
              "history; config: built-in defaults):\n"
              "\n"
              " PID  USER  NAME    SCORE  RISK      TOP EVIDENCE\n"
              "4242  bob   xmrig     100  critical  known miner program: x\n"
              "         +60  miner_name   known miner program: x\n"
              "         +60  stratum_url  stratum mining URL: y\n"
              "      note: no usage history: shape not judged\n"
              "  77  bob   python     40  medium    poses as another program: z\n"
              "         +40  masquerade  poses as another program: z\n"
              "      note: no usage history: shape not judged\n");
}

TEST(RogueTable, CleanHostAllowedAndHostileNames) {
    RogueReport report;
    report.processes_examined = 1;
    report.processes_not_fully_examined = 1;
    Assessment allowed =
        finding(9, "render\x1b[2J", 60, {{Signal::miner_name, 60, "known miner program: q"}});
    allowed.allowed = AllowMatch{"user", "bob"};
    report.allowed.push_back(allowed);
    auto ctx = context();
    ctx.history_available = false;
    ctx.history_note = "no usage history (missing): shape not judged";
    const std::string text = render_rogue_table(report_json(report, ctx));
    EXPECT_NE(text.find("No rogue processes among 1 GPU process (score >= 40; no usage history; "
                        "config: built-in defaults)."),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("Allowed by the configuration (not findings):"), std::string::npos);
    EXPECT_NE(text.find("allowed by user bob"), std::string::npos);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << "escape sequences never reach a terminal";
    EXPECT_NE(text.find("Note: no usage history (missing): shape not judged"), std::string::npos);
    EXPECT_NE(text.find("Note: 1 of 1 processes could not be fully examined (executable or "
                        "descriptors not readable without privilege)"),
              std::string::npos)
        << text;
}

}  // namespace
}  // namespace gpukill::cli
