// The one description of every engine request (engine/request_fields.hpp): read
// together, these tables are what every door accepts. A field added here appears in the
// command line's options and help, the agent's JSON bodies and query strings, the
// fleet's forwarding, the MCP input schemas and the docs' field lists.
#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list_request.hpp"
#include "engine/request_fields.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"

namespace gpukill::engine {
namespace {

using enum FieldKind;

// Shared by kill and list (and so by the MCP tools list_processes and plan_kill).
const std::vector<Field<MatchSelectors>>& selector_fields() {
    using S = MatchSelectors;
    static const std::vector<Field<S>> fields = {
        {{.name = "gpu",
          .option = "--gpu",
          .short_option = "-g",
          .value_name = "GPU",
          .kind = gpu,
          .help = "only this GPU: index, UUID or PCI bus id"},
         &S::gpu},
        {{.name = "filter",
          .option = "--filter",
          .value_name = "REGEX",
          .kind = pattern,
          .help = "a regular expression searched in the process's name and command line"},
         &S::filter},
        {{.name = "user",
          .option = "--user",
          .short_option = "-u",
          .value_name = "USER",
          .kind = text,
          .help = "processes of this user (exact name or uid)"},
         &S::user},
        {{.name = "container",
          .option = "--container",
          .value_name = "ID",
          .kind = text,
          .help = "processes in this container (id prefix of at least 4 characters, or pod UID)"},
         &S::container},
        {{.name = "slurm_job",
          .option = "--slurm-job",
          .value_name = "JOBID",
          .kind = text,
          .help = "processes in this Slurm job (job id, from their cgroup)"},
         &S::slurm_job},
        {{.name = "namespace",
          .option = "--namespace",
          .value_name = "NAMESPACE",
          .kind = text,
          .help = "processes in a Kubernetes pod of this namespace (exact name, as the "
                  "container runtime recorded it)"},
         &S::pod_namespace},
        {{.name = "pod",
          .option = "--pod",
          .value_name = "NAME",
          .kind = text,
          .help = "processes in the Kubernetes pod of this name (exact; with --namespace "
                  "where names repeat across namespaces)"},
         &S::pod},
        {{.name = "image",
          .option = "--image",
          .value_name = "REGEX",
          .kind = pattern,
          .help = "processes in a container whose image matches this regular expression"},
         &S::image},
        {{.name = "not_image",
          .option = "--not-image",
          .value_name = "REGEX",
          .kind = pattern,
          .help = "processes in a container whose image is known and does not match"},
         &S::not_image},
        {{.name = "min_memory_bytes",
          .option = "--min-memory",
          .value_name = "SIZE",
          .kind = byte_size,
          .help = "holding at least this much GPU memory (4G, 512M, or bytes)"},
         &S::min_memory_bytes},
        {{.name = "orphaned",
          .option = "--orphaned",
          .kind = flag,
          .help = "only processes whose parent died"},
         &S::orphaned},
        {{.name = "unlisted",
          .option = "--unlisted",
          .kind = flag,
          .help = "only processes holding a GPU device file but absent from the driver's list"},
         &S::unlisted},
    };
    return fields;
}

// Kill's and reset's shared way of acting: the same option, the same words.
FieldDoc force_doc(std::string_view help) {
    return {.name = "force", .option = "--force", .short_option = "-f", .kind = flag, .help = help};
}
FieldDoc timeout_doc(std::string_view help) {
    return {.name = "timeout_seconds",
            .option = "--timeout-secs",
            .short_option = "-t",
            .value_name = "SECONDS",
            .kind = seconds,
            .help = help,
            .default_text = "5"};
}
FieldDoc verify_timeout_doc() {
    return {.name = "verify_timeout_seconds",
            .option = "--verify-timeout",
            .value_name = "SECONDS",
            .kind = seconds,
            .help = "seconds to wait for the memory to come back",
            .default_text = "10"};
}
FieldDoc dry_run_doc(std::string_view help) {
    return {.name = "dry_run", .option = "--dry-run", .kind = flag, .help = help};
}
FieldDoc plan_id_doc() {
    return {.name = "plan_id",
            .option = "--plan-id",
            .value_name = "ID",
            .kind = plan_id,
            .help =
                "act only if the plan built now is the one previewed with this id; else "
                "nothing is done (conflict)"};
}
FieldDoc hours_doc(std::string_view help) {
    return {.name = "hours",
            .option = "--audit-hours",
            .value_name = "HOURS",
            .kind = hours,
            .help = help,
            .default_text = "24"};
}
FieldDoc audit_user_doc(std::string_view help) {
    return {
        .name = "user", .option = "--audit-user", .value_name = "USER", .kind = text, .help = help};
}
FieldDoc audit_process_doc() {
    return {.name = "process",
            .option = "--audit-process",
            .value_name = "REGEX",
            .kind = pattern,
            .help = "only processes whose name or command line matches this regular expression"};
}

template <class Request>
std::vector<Field<Request>> with_selectors(std::vector<Field<Request>> own) {
    std::vector<Field<Request>> fields =
        inherited_fields<Request, MatchSelectors>(selector_fields());
    fields.insert(fields.end(), own.begin(), own.end());
    return fields;
}

}  // namespace

template <>
std::span<const Field<ListRequest>> request_fields<ListRequest>() {
    using R = ListRequest;
    static const std::vector<Field<R>> fields = with_selectors<R>({
        {{.name = "vendor",
          .option = "--vendor",
          .value_name = "VENDOR",
          .kind = choice,
          .help = "only this vendor's GPUs",
          .default_text = "all",
          .choices = {"nvidia", "amd", "intel", "all"}},
         &R::vendor},
    });
    return fields;
}

template <>
std::span<const Field<KillRequest>> request_fields<KillRequest>() {
    using R = KillRequest;
    static const std::vector<Field<R>> fields = with_selectors<R>({
        {{.name = "pids",
          .option = "--pid",
          .short_option = "-p",
          .value_name = "PID",
          .kind = pids,
          .help = "a process to stop (repeatable)"},
         &R::pids},
        {{.name = "tree",
          .option = "--tree",
          .kind = flag,
          .help = "also every descendant of each target"},
         &R::tree},
        {{.name = "group",
          .option = "--group",
          .kind = flag,
          .help = "also every process in each target's process group"},
         &R::group},
        {{.name = "batch",
          .option = "--batch",
          .kind = flag,
          .help = "act on what a many-process selector matched"},
         &R::batch},
        {{.name = "any_process",
          .option = "--any-process",
          .kind = flag,
          .help = "a named PID need not hold a GPU (without it, one that holds none and has "
                  "no descendant holding one is refused)"},
         &R::any_process},
        {{.name = "signal",
          .option = "--signal",
          .short_option = "-s",
          .value_name = "SIGNAL",
          .kind = signal,
          .help = "the first signal: a name or number (SIGINT for PyTorch)",
          .default_text = "SIGTERM"},
         &R::signal},
        {force_doc("SIGKILL what survives the first signal"), &R::force},
        {timeout_doc("seconds to wait after each signal"), &R::timeout_seconds},
        {verify_timeout_doc(), &R::verify_timeout_seconds},
        {dry_run_doc("show the plan, signal nothing"), &R::dry_run},
        {plan_id_doc(), &R::expected_plan_id},
    });
    return fields;
}

template <>
std::span<const Field<ResetRequest>> request_fields<ResetRequest>() {
    using R = ResetRequest;
    static const std::vector<Field<R>> fields = {
        {{.name = "gpus",
          .option = "--gpu",
          .short_option = "-g",
          .value_name = "GPU",
          .kind = gpu,
          .help = "the GPUs to reset: indexes, UUIDs or PCI bus ids, comma-separated"},
         &R::gpus},
        {{.name = "all", .option = "--all", .kind = flag, .help = "reset every GPU"}, &R::all},
        {force_doc("stop the processes holding the GPUs first"), &R::force},
        {timeout_doc("seconds to wait after each signal to a holder"), &R::timeout_seconds},
        {verify_timeout_doc(), &R::verify_timeout_seconds},
        {dry_run_doc("show the plan, reset nothing"), &R::dry_run},
        {plan_id_doc(), &R::expected_plan_id},
    };
    return fields;
}

template <>
std::span<const Field<CheckRequest>> request_fields<CheckRequest>() {
    using R = CheckRequest;
    static const std::vector<Field<R>> fields = {
        {{.name = "unaccounted_memory_bytes",
          .option = "--unaccounted-threshold",
          .value_name = "SIZE",
          .kind = byte_size,
          .help = "memory no listed process accounts for, per GPU, above which it is a problem",
          .default_text = "256M"},
         &R::unaccounted_memory_bytes},
        {{.name = "allowed_users",
          .option = "--allow-user",
          .value_name = "USER",
          .kind = texts,
          .help = "a holder of another user is a problem (repeatable)"},
         &R::allowed_users},
        {{.name = "idle",
          .option = "--idle",
          .kind = flag,
          .help = "any process holding a GPU is a problem"},
         &R::idle},
        {{.name = "rogue",
          .option = "--no-rogue",
          .kind = flag,
          .help = "judge rogue processes (--no-rogue: do not run rogue detection)",
          .default_text = "true",
          .negated_option = true},
         &R::rogue},
        {{.name = "orphans",
          .option = "--no-orphans",
          .kind = flag,
          .help = "orphaned holders are problems (--no-orphans: they are not)",
          .default_text = "true",
          .negated_option = true},
         &R::orphans},
    };
    return fields;
}

template <>
std::span<const Field<GuardTestRequest>> request_fields<GuardTestRequest>() {
    using R = GuardTestRequest;
    static const std::vector<Field<R>> fields = {
        {{.name = "policy",
          .option = "--policy",
          .value_name = "FILE",
          .kind = document,
          .help = "the policy (YAML, as guard.yaml); on the command line a file, or the text "
                  "itself with --policy-text",
          .default_text = "CONFIG_DIR/guard.yaml",
          .text_option = "--policy-text"},
         &R::policy},
        {{.name = "snapshot",
          .option = "--snapshot",
          .value_name = "FILE",
          .kind = document,
          .help = "judge a saved `gpukill list --json` instead of the live host; on the command "
                  "line a file, or the document itself with --snapshot-text",
          .text_option = "--snapshot-text"},
         &R::snapshot},
    };
    return fields;
}

template <>
std::span<const Field<ActionsRequest>> request_fields<ActionsRequest>() {
    using R = ActionsRequest;
    static const std::vector<Field<R>> fields = {
        {hours_doc("hours of records to look at, back from now"), &R::hours},
        {audit_user_doc("only records of this user: who acted, or whose process was the target"),
         &R::user},
        {audit_process_doc(), &R::process},
    };
    return fields;
}

template <>
std::span<const Field<UsageRequest>> request_fields<UsageRequest>() {
    using R = UsageRequest;
    static const std::vector<Field<R>> fields = {
        {hours_doc("hours of usage history to look at, back from now"), &R::hours},
        {audit_user_doc("only this user's processes (exact name or uid)"), &R::user},
        {audit_process_doc(), &R::process},
        {{.name = "summary",
          .option = "--audit-summary",
          .kind = flag,
          .help = "GPU-hours and peak memory per user and process, busiest GPUs, by hour"},
         &R::summary},
    };
    return fields;
}

template <>
std::span<const Field<RogueScanRequest>> request_fields<RogueScanRequest>() {
    using R = RogueScanRequest;
    static const std::vector<Field<R>> fields = {
        {hours_doc("hours of usage history the usage-shape signals look at"), &R::hours},
        {audit_user_doc("only this user's processes (exact name or uid)"), &R::user},
    };
    return fields;
}

template <>
std::string_view request_name<ListRequest>() {
    return "list";
}
template <>
std::string_view request_name<KillRequest>() {
    return "kill";
}
template <>
std::string_view request_name<ResetRequest>() {
    return "reset";
}
template <>
std::string_view request_name<CheckRequest>() {
    return "check";
}
template <>
std::string_view request_name<GuardTestRequest>() {
    return "guard test";
}
template <>
std::string_view request_name<ActionsRequest>() {
    return "audit --actions";
}
template <>
std::string_view request_name<UsageRequest>() {
    return "audit";
}
template <>
std::string_view request_name<RogueScanRequest>() {
    return "audit --rogue";
}

}  // namespace gpukill::engine
