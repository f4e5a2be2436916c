// guard.yaml: every section read into the policy with its defaults resolved, and every
// way a file can be wrong reported as one "FILE:LINE:COLUMN: what" line.
#include "guard/policy_yaml.hpp"
#include "guard/policy_fields.hpp"

#include <gtest/gtest.h>

#include <string>

#include "host/proc_reader.hpp"

namespace gpukill::guard {
namespace {

constexpr std::uint64_t GiB = 1ULL << 30;

Result<Policy> parse(std::string_view text) {
    return parse_policy(text, "guard.yaml");
}

std::string error_of(std::string_view text) {
    auto parsed = parse(text);
    if (parsed) return "(parsed)";
    return parsed.error().what;
}

TEST(PolicyYaml, TheDocumentedExampleLoads) {
    const std::string path = std::string(GPUKILL_FIXTURES_DIR) + "/../../docs/examples/guard.yaml";
    auto policy = load_policy_file(path);
    ASSERT_TRUE(policy) << policy.error().what;
    EXPECT_EQ(policy->mode, Mode::dry_run);
    EXPECT_EQ(policy->check_interval, std::chrono::seconds(30));
    EXPECT_EQ(policy->defaults.memory_bytes, 40 * GiB);
    ASSERT_EQ(policy->users.size(), 2u);
    EXPECT_EQ(policy->users[0].user, "alice");
    EXPECT_EQ(policy->users[0].allowed_gpus, (std::set<unsigned>{0, 1, 2}));
    // alice names no action: she inherits the top level's, not the defaults section's.
    EXPECT_EQ(policy->users[0].enforcement, (Enforcement{Action::warn, std::chrono::minutes(5)}));
    EXPECT_EQ(policy->users[1].enforcement,
              (Enforcement{Action::terminate, std::chrono::minutes(2)}));
    EXPECT_EQ(policy->defaults_enforcement,
              (Enforcement{Action::terminate, std::chrono::minutes(10)}));
    ASSERT_EQ(policy->groups.size(), 2u);
    EXPECT_FALSE(policy->groups[0].members.has_value());
    EXPECT_EQ(policy->groups[1].members, (std::set<std::string>{"carol", "dave"}));
    ASSERT_EQ(policy->gpus.size(), 2u);
    EXPECT_EQ(policy->gpus[0].index, 3u);
    EXPECT_TRUE(policy->gpus[0].exclusive);
    EXPECT_EQ(policy->gpus[0].enforcement, (Enforcement{Action::kill, std::chrono::seconds(0)}));
    EXPECT_EQ(policy->gpus[1].user_memory_limit_bytes, 24 * GiB);
    ASSERT_EQ(policy->windows.size(), 1u);
    EXPECT_EQ(policy->windows[0].days, (std::set<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(policy->windows[0].start_minute, 9 * 60);
    EXPECT_EQ(policy->windows[0].end_minute, 18 * 60);
    EXPECT_EQ(policy->windows[0].users.at("alice").memory_bytes, 32 * GiB);
    ASSERT_EQ(policy->rules.size(), 4u);
    EXPECT_EQ(policy->rules[0].kind, RunawayKind::stuck);
    EXPECT_EQ(policy->rules[0].duration, std::chrono::minutes(10));
    EXPECT_EQ(policy->rules[1].kind, RunawayKind::idle);
    EXPECT_EQ(policy->rules[1].memory_above_bytes, GiB);
    EXPECT_EQ(policy->rules[2].pattern, "python[0-9.]* .*train\\.py");
    EXPECT_EQ(policy->rules[3].score_above, 70);
    EXPECT_EQ(policy->protected_processes.executables,
              (std::set<std::string>{"/usr/bin/nvidia-persistenced", "dcgm-exporter"}));
}

// guard check's one line counts every section, projects too (issue 33).
TEST(PolicyYaml, TheSummaryCountsEverySectionProjectsToo) {
    auto policy = parse(R"(mode: enforce
users:
  alice: {memory_limit: 8G}
projects:
  vision:
    kubernetes_namespaces: [vision-train]
    memory_limit: 160G
  nlp:
    unix_groups: [nlp]
    max_processes: 16
)");
    ASSERT_TRUE(policy) << policy.error().what;
    EXPECT_EQ(policy_contents(*policy),
              "mode enforce; 1 user, 0 groups, 2 projects, 0 GPU rules, 0 time windows, 0 runaway "
              "rules");
}

TEST(PolicyYaml, AnEmptyFileIsAnEmptyDryRunPolicy) {
    auto policy = parse("# nothing yet\n");
    ASSERT_TRUE(policy) << policy.error().what;
    EXPECT_EQ(policy->mode, Mode::dry_run);
    EXPECT_TRUE(policy->users.empty());
    EXPECT_TRUE(policy->rules.empty());
}

TEST(PolicyYaml, TopLevelActionAppliesWhereverItIsWritten) {
    auto policy = parse("users:\n  eve: {memory_limit: 1G}\naction: kill\ngrace_period: 90\n");
    ASSERT_TRUE(policy) << policy.error().what;
    EXPECT_EQ(policy->users[0].enforcement, (Enforcement{Action::kill, std::chrono::seconds(90)}));
}

TEST(PolicyYaml, UnknownKeysAreReportedWithLineAndColumn) {
    EXPECT_EQ(error_of("mode: enforce\nusers:\n  alice:\n    memory_limt: 8G\n"),
              "guard.yaml:4:5: users.alice: unknown key \"memory_limt\" (expected memory_limit, "
              "max_processes, allowed_gpus, blocked_gpus, action, grace_period)");
    EXPECT_EQ(error_of("mode: enforce\nmodes: off\n").substr(0, 40),
              "guard.yaml:2:1: policy: unknown key \"mod");
}

TEST(PolicyYaml, WrongTypesAreReported) {
    EXPECT_EQ(error_of("mode: sometimes\n"),
              "guard.yaml:1:7: mode must be off, dry-run or enforce");
    EXPECT_EQ(error_of("users:\n  alice:\n    max_processes: \"4\"\n"),
              "guard.yaml:3:20: users.alice.max_processes must be a whole number, not \"4\"");
    EXPECT_EQ(error_of("gpus:\n  0:\n    exclusive: yes\n"),
              "guard.yaml:3:16: gpus.0.exclusive must be true or false, not \"yes\"");
    EXPECT_EQ(error_of("users: [alice]\n"), "guard.yaml:1:8: users must be a mapping");
    EXPECT_EQ(error_of("defaults:\n  memory_limit: [8G]\n"),
              "guard.yaml:2:17: defaults.memory_limit must be a size such as 8G or 512M, not a "
              "list");
}

TEST(PolicyYaml, ImpossibleValuesAreReported) {
    EXPECT_EQ(error_of("defaults:\n  memory_limit: -8G\n"),
              "guard.yaml:2:17: defaults.memory_limit: bad size '-8G': must not be negative");
    EXPECT_EQ(error_of("users:\n  bob:\n    max_processes: -1\n"),
              "guard.yaml:3:20: users.bob.max_processes must not be negative (-1)");
    EXPECT_EQ(error_of("grace_period: -5m\n"),
              "guard.yaml:1:15: policy.grace_period: bad duration \"-5m\": must not be negative");
    EXPECT_EQ(error_of("check_interval: 0s\n"),
              "guard.yaml:1:17: check_interval must be between 1s and 86400s");
    EXPECT_EQ(error_of("rules:\n  - {name: busy, kind: stuck, utilization_above: 140}\n"),
              "guard.yaml:2:50: rules.busy.utilization_above is 140%, a percentage is 0..100");
    EXPECT_EQ(error_of("rules:\n  - {name: busy, kind: stuck, utilization_above: 100}\n"),
              "guard.yaml:2:50: rules.busy.utilization_above is 100%: utilisation is never "
              "above it");
    EXPECT_EQ(error_of("rules:\n  - {name: busy, kind: stuck, for: 0s}\n"),
              "guard.yaml:2:36: rules.busy.for must be longer than 0s: a sustained condition "
              "needs time");
    EXPECT_EQ(error_of("protected:\n  pids: [0]\n"),
              "guard.yaml:2:10: protected.pids: 0 is not a PID");
}

TEST(PolicyYaml, HoursPointAtTheBadPartOfTheRange) {
    EXPECT_EQ(error_of("windows:\n  - name: late\n    hours: 09:00-25:00\n    max_processes: 1\n"),
              "guard.yaml:3:18: windows.late.hours: hour 25 is not an hour of the day (00..23, or "
              "24:00 as an end)");
    // Quoted: one column further.
    EXPECT_EQ(error_of("windows:\n  - name: late\n    hours: \"09:61-10:00\"\n    max_processes: "
                       "1\n"),
              "guard.yaml:3:16: windows.late.hours: minute 61 is not a minute (00..59)");
    EXPECT_EQ(error_of("windows:\n  - name: none\n    hours: 09:00-09:00\n    max_processes: 1\n"),
              "guard.yaml:3:12: windows.none.hours: \"09:00-09:00\" is empty; write 00:00-24:00 "
              "for the whole day");
    EXPECT_EQ(error_of("windows:\n  - name: x\n    days: [monday]\n    max_processes: 1\n"),
              "guard.yaml:3:12: windows.x.days: \"monday\" is not a day (mon, tue, wed, thu, fri, "
              "sat, sun, weekdays, weekend)");
}

TEST(PolicyYaml, AUserBothAllowedAndBlockedOnAGpuIsAContradiction) {
    EXPECT_EQ(error_of("users:\n  alice:\n    allowed_gpus: [0, 1]\n    blocked_gpus: [2, 1]\n"),
              "guard.yaml:4:23: users.alice: GPU 1 is both allowed and blocked");
    EXPECT_EQ(error_of("gpus:\n  3:\n    allowed_users: [svc]\nusers:\n  alice:\n    "
                       "allowed_gpus: [3]\n"),
              "guard.yaml:5:3: users.alice allows GPU 3, but gpus.3 (line 2) does not list alice "
              "in allowed_users");
    EXPECT_EQ(error_of("users:\n  svc:\n    blocked_gpus: [3]\ngpus:\n  3:\n    allowed_users: "
                       "[svc]\n"),
              "guard.yaml:2:3: users.svc blocks GPU 3, but gpus.3 (line 5) lists svc in "
              "allowed_users");
}

TEST(PolicyYaml, ExclusiveGpuWithSeveralAllowedUsersIsOneAtATime) {
    auto policy = parse("gpus:\n  1:\n    exclusive: true\n    allowed_users: [a, b]\n");
    ASSERT_TRUE(policy) << policy.error().what;
    EXPECT_TRUE(policy->gpus[0].exclusive);
}

TEST(PolicyYaml, OverlappingWindowsMayNotDisagree) {
    const std::string nights =
        "windows:\n  - name: nights\n    hours: 22:00-06:00\n    memory_limit: 40G\n";
    // Saturday early morning is in both: Friday's night and the weekend.
    EXPECT_EQ(error_of(nights + "  - name: weekend\n    days: [weekend]\n    memory_limit: 60G\n"),
              "guard.yaml:5:5: windows.weekend overlaps windows.nights (line 2) from sat 00:00 and "
              "sets a different limit for every user: memory_limit 42949672960 bytes against "
              "64424509440 bytes");
    // The same value, or different limits, may overlap.
    EXPECT_TRUE(parse(nights + "  - name: weekend\n    days: [weekend]\n    memory_limit: 40G\n"));
    EXPECT_TRUE(parse(nights + "  - name: weekend\n    days: [weekend]\n    max_processes: 2\n"));
    // Windows that never meet may say anything.
    EXPECT_TRUE(parse(nights + "  - name: day\n    hours: 06:00-22:00\n    memory_limit: 8G\n"));
    // Per-user limits conflict only for the same user.
    const std::string per_user =
        "windows:\n  - name: a\n    users: {alice: {memory_limit: 8G}}\n"
        "  - name: b\n    days: [sun]\n    users: {alice: {memory_limit: 9G}}\n";
    EXPECT_NE(error_of(per_user).find("sets a different limit for alice"), std::string::npos);
}

TEST(PolicyYaml, RulesTakeOnlyTheirKindsKeys) {
    EXPECT_EQ(error_of("rules:\n  - name: o\n    kind: orphaned\n    for: 5m\n"),
              "guard.yaml:4:5: rules.o: unknown key \"for\" (expected name, kind, action, "
              "grace_period, pattern)");
    EXPECT_EQ(error_of("rules:\n  - name: o\n    kind: lazy\n"),
              "guard.yaml:3:11: rules.o.kind must be stuck, idle, orphaned or rogue, not \"lazy\"");
    EXPECT_EQ(error_of("rules:\n  - name: r\n    kind: rogue\n"),
              "guard.yaml:2:5: rules.r needs score_above (the rogue-detection score that "
              "triggers it)");
    EXPECT_TRUE(error_of("rules:\n  - name: o\n    kind: orphaned\n    pattern: \"train(\"\n")
                    .starts_with("guard.yaml:4:14: rules.o.pattern: \"train(\" is not a pattern "
                                 "gpukill accepts: missing ')'"));
    EXPECT_EQ(error_of("rules:\n  - {name: a, kind: idle}\n  - {name: a, kind: stuck}\n"),
              "guard.yaml:3:5: rules: the name \"a\" is used twice (also at line 2)");
}

TEST(PolicyYaml, RepeatedKeysAndSecondDocumentsAreRefused) {
    EXPECT_EQ(error_of("mode: off\nmode: enforce\n"),
              "guard.yaml:2:1: policy: key \"mode\" appears twice");
    EXPECT_EQ(error_of("gpus:\n  0: {exclusive: true}\n  00: {exclusive: false}\n"),
              "guard.yaml:3:3: gpus: GPU 0 appears twice (also at line 2)");
    EXPECT_EQ(error_of("mode: off\n---\nmode: enforce\n"),
              "guard.yaml:3:1: more than one YAML document; use one");
    EXPECT_EQ(error_of("version: 2\n"),
              "guard.yaml:1:10: version 2 is not supported (this gpukill reads version 1)");
    EXPECT_EQ(error_of("groups:\n  g: {members: [a]}\n"),
              "guard.yaml:2:3: groups.g sets no limit (memory_limit or max_processes)");
}

TEST(PolicyYaml, SyntaxErrorsCarryTheirPosition) {
    EXPECT_EQ(error_of("users:\n  alice: {memory_limit: 8G\n").substr(0, 15), "guard.yaml:3:1:");
}

TEST(PolicyYaml, DurationsReadAsPeopleWriteThem) {
    EXPECT_EQ(parse_duration("90"), std::chrono::seconds(90));
    EXPECT_EQ(parse_duration("1h30m"), std::chrono::seconds(5400));
    EXPECT_EQ(parse_duration("2d"), std::chrono::seconds(2 * 86400));
    EXPECT_FALSE(parse_duration("5 m"));
    EXPECT_FALSE(parse_duration("5m30"));
    EXPECT_FALSE(parse_duration("1h1h"));  // once accepted as 2h
    EXPECT_FALSE(parse_duration("30m1h"));
    EXPECT_EQ(parse_duration("1d2h3m4s"), std::chrono::seconds(86400 + 7200 + 180 + 4));
    EXPECT_FALSE(parse_duration("1w"));
    EXPECT_FALSE(parse_duration(""));
}

TEST(PolicyYaml, AnUnreadableFileKeepsItsErrno) {
    auto policy = load_policy_file("/nonexistent/guard.yaml");
    ASSERT_FALSE(policy);
    EXPECT_EQ(policy.error().errno_value, ENOENT);
}

}  // namespace
}  // namespace gpukill::guard
