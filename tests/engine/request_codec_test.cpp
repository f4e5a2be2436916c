// The request tables and every form a request takes on a door: JSON (agent bodies, MCP
// arguments), named text (query strings, the parsed command line), the arguments the
// fleet forwards, and the MCP schema. What each door reads back is what was sent, for
// every field of every request; what cannot be read exactly is refused, by name.
#include "engine/request_codec.hpp"

#include <gtest/gtest.h>

#include <set>
#include <type_traits>

#include "engine/audit_queries.hpp"
#include "engine/guard_test.hpp"
#include "engine/health_check.hpp"
#include "engine/kill.hpp"
#include "engine/list_request.hpp"
#include "engine/reset.hpp"
#include "engine/rogue_scan.hpp"
#include "reclaim/select.hpp"

namespace gpukill::engine {
namespace {

using nlohmann::json;

// Sets every field of `request` to a value other than its default, one a door could
// carry, and returns the request.
template <class Request>
Request every_field_set() {
    Request request;
    for (const Field<Request>& field : request_fields<Request>()) {
        std::visit(
            [&](auto member) {
                auto& slot = request.*member;
                using Slot = std::remove_reference_t<decltype(slot)>;
                const FieldDoc& doc = field.doc;
                if constexpr (std::is_same_v<Slot, bool>) {
                    slot = !slot;
                } else if constexpr (std::is_same_v<Slot, std::vector<std::string>>) {
                    slot = {"1234", "5678"};
                } else if constexpr (std::is_same_v<Slot, std::optional<std::uint64_t>> ||
                                     std::is_same_v<Slot, std::uint64_t>) {
                    slot = 8589934592ULL;
                } else if constexpr (std::is_same_v<Slot, double>) {
                    slot = doc.kind == FieldKind::hours ? 36.5 : 2.5;
                } else {
                    if (doc.kind == FieldKind::plan_id) {
                        slot = "0123456789abcdef";
                    } else if (doc.kind == FieldKind::choice) {
                        slot = std::string(doc.choices.front());
                    } else if (doc.kind == FieldKind::signal) {
                        slot = "SIGINT";
                    } else if (doc.kind == FieldKind::document) {
                        slot = "mode: enforce\n# a document, quoted \"as is\"\n";
                    } else {
                        slot = std::string(doc.name) + "-value with space";
                    }
                }
            },
            field.member);
    }
    return request;
}

template <class Request>
bool same_fields(const Request& a, const Request& b, std::string& differs) {
    for (const Field<Request>& field : request_fields<Request>()) {
        const bool equal =
            std::visit([&](auto member) { return a.*member == b.*member; }, field.member);
        if (!equal) {
            differs = std::string(field.doc.name);
            return false;
        }
    }
    return true;
}

// The command-line arguments as the command line's parser hands them to the codec: each
// option's value under its field's name (a flag given is "true", a negated one "false").
template <class Request>
NamedValues parsed_arguments(const std::vector<std::string>& arguments) {
    NamedValues values;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const FieldDoc* doc = field_for_option<Request>(arguments[i]);
        if (doc == nullptr) throw std::runtime_error("no field for " + arguments[i]);
        if (doc->kind == FieldKind::flag) {
            values.emplace_back(std::string(doc->name), doc->negated_option ? "false" : "true");
        } else {
            values.emplace_back(std::string(doc->name), arguments.at(++i));
        }
    }
    return values;
}

template <class Request>
void expect_every_door_reads_back_what_was_sent() {
    const Request sent = every_field_set<Request>();
    const std::string name(request_name<Request>());
    std::string differs;

    auto from_json = request_from_json<Request>(json::parse(request_to_json(sent).dump()));
    ASSERT_TRUE(from_json) << name << ": " << from_json.error().what;
    EXPECT_TRUE(same_fields(sent, *from_json, differs)) << name << " JSON: " << differs;

    auto from_text = request_from_text<Request>(request_to_text(sent), Spelling::field);
    ASSERT_TRUE(from_text) << name << ": " << from_text.error().what;
    EXPECT_TRUE(same_fields(sent, *from_text, differs)) << name << " text: " << differs;

    auto from_arguments = request_from_text<Request>(
        parsed_arguments<Request>(request_to_arguments(sent)), Spelling::option);
    ASSERT_TRUE(from_arguments) << name << ": " << from_arguments.error().what;
    EXPECT_TRUE(same_fields(sent, *from_arguments, differs)) << name << " arguments: " << differs;

    // A default request is written as nothing at all.
    EXPECT_TRUE(request_to_json(Request{}).empty()) << name;
    EXPECT_TRUE(request_to_arguments(Request{}).empty()) << name;
    EXPECT_TRUE(request_to_text(Request{}).empty()) << name;
    // Every field is in the MCP schema and the docs' table.
    const auto schema = request_schema<Request>();
    const std::string markdown = request_markdown<Request>();
    for (const Field<Request>& field : request_fields<Request>()) {
        EXPECT_TRUE(schema.contains(std::string(field.doc.name))) << name << " " << field.doc.name;
        EXPECT_NE(markdown.find("| `" + std::string(field.doc.name) + "` |"), std::string::npos);
    }
}

TEST(RequestCodec, EveryFieldOfEveryRequestSurvivesEveryDoor) {
    expect_every_door_reads_back_what_was_sent<ListRequest>();
    expect_every_door_reads_back_what_was_sent<KillRequest>();
    expect_every_door_reads_back_what_was_sent<ResetRequest>();
    expect_every_door_reads_back_what_was_sent<CheckRequest>();
    expect_every_door_reads_back_what_was_sent<GuardTestRequest>();
    expect_every_door_reads_back_what_was_sent<ActionsRequest>();
    expect_every_door_reads_back_what_was_sent<UsageRequest>();
    expect_every_door_reads_back_what_was_sent<RogueScanRequest>();
}

// Each kind is held by the member type the codec reads it into; names and options are
// unique within a request; an option is a long option.
template <class Request>
void expect_a_consistent_table() {
    std::set<std::string_view> names;
    std::set<std::string_view> options;
    for (const Field<Request>& field : request_fields<Request>()) {
        const FieldDoc& doc = field.doc;
        EXPECT_TRUE(names.insert(doc.name).second) << doc.name;
        EXPECT_TRUE(options.insert(doc.option).second) << doc.option;
        EXPECT_TRUE(doc.option.starts_with("--")) << doc.option;
        EXPECT_FALSE(doc.help.empty()) << doc.name;
        EXPECT_EQ(doc.kind == FieldKind::flag, doc.value_name.empty()) << doc.name;
        EXPECT_EQ(doc.kind == FieldKind::document, !doc.text_option.empty()) << doc.name;
        EXPECT_EQ(doc.kind == FieldKind::choice, !doc.choices.empty()) << doc.name;
        std::visit(
            [&](auto member) {
                using Slot = std::remove_cvref_t<decltype(Request{}.*member)>;
                switch (doc.kind) {
                    case FieldKind::flag:
                        EXPECT_TRUE((std::is_same_v<Slot, bool>)) << doc.name;
                        break;
                    case FieldKind::texts:
                    case FieldKind::pids:
                        EXPECT_TRUE((std::is_same_v<Slot, std::vector<std::string>>)) << doc.name;
                        break;
                    case FieldKind::byte_size:
                        EXPECT_TRUE((std::is_same_v<Slot, std::optional<std::uint64_t>> ||
                                     std::is_same_v<Slot, std::uint64_t>))
                            << doc.name;
                        break;
                    case FieldKind::seconds:
                    case FieldKind::hours:
                        EXPECT_TRUE((std::is_same_v<Slot, double>)) << doc.name;
                        break;
                    case FieldKind::signal:
                    case FieldKind::choice:
                        EXPECT_TRUE((std::is_same_v<Slot, std::string>)) << doc.name;
                        break;
                    default:
                        EXPECT_TRUE((std::is_same_v<Slot, std::optional<std::string>>)) << doc.name;
                }
            },
            field.member);
    }
}

TEST(RequestCodec, EveryTableIsConsistent) {
    expect_a_consistent_table<ListRequest>();
    expect_a_consistent_table<KillRequest>();
    expect_a_consistent_table<ResetRequest>();
    expect_a_consistent_table<CheckRequest>();
    expect_a_consistent_table<GuardTestRequest>();
    expect_a_consistent_table<ActionsRequest>();
    expect_a_consistent_table<UsageRequest>();
    expect_a_consistent_table<RogueScanRequest>();
}

// Kill and list share their selectors: described once, they are the same fields.
TEST(RequestCodec, KillAndListShareEveryMatchSelector) {
    for (const Field<ListRequest>& field : request_fields<ListRequest>()) {
        if (field.doc.name == "vendor") continue;
        const FieldDoc* in_kill = field_for_option<KillRequest>(field.doc.option);
        ASSERT_NE(in_kill, nullptr) << field.doc.option;
        EXPECT_EQ(in_kill->name, field.doc.name);
        EXPECT_EQ(in_kill->help, field.doc.help);
    }
}

TEST(KillRequestJson, ReadsEveryField) {
    auto request = request_from_json<KillRequest>(json::parse(R"({
        "pids": [42, "043"], "gpu": 1, "filter": "python", "user": "alice",
        "container": "abcd1234", "slurm_job": "4242", "image": "^nvcr", "not_image": "x",
        "min_memory_bytes": 8589934592, "orphaned": true,
        "unlisted": true, "tree": true, "group": true, "batch": true, "any_process": true,
        "force": true, "dry_run": true, "signal": "SIGINT", "timeout_seconds": 2.5,
        "verify_timeout_seconds": 7, "plan_id": "0123456789abcdef"})"));
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->pids, (std::vector<std::string>{"42", "043"}));
    EXPECT_EQ(request->gpu, "1");
    EXPECT_EQ(request->filter, "python");
    EXPECT_EQ(request->user, "alice");
    EXPECT_EQ(request->container, "abcd1234");
    EXPECT_EQ(request->slurm_job, "4242");
    EXPECT_EQ(request->image, "^nvcr");
    EXPECT_EQ(request->not_image, "x");
    EXPECT_EQ(request->min_memory_bytes, 8589934592ULL);
    EXPECT_TRUE(request->orphaned && request->unlisted && request->tree && request->group &&
                request->batch && request->any_process);
    EXPECT_TRUE(request->force && request->dry_run);
    EXPECT_EQ(request->signal, "SIGINT");
    EXPECT_DOUBLE_EQ(request->timeout_seconds, 2.5);
    EXPECT_DOUBLE_EQ(request->verify_timeout_seconds, 7);
    EXPECT_EQ(request->expected_plan_id, "0123456789abcdef");
}

// The huge and negative PIDs reach the plan's own gate as typed, to be refused there by
// name; nothing here wraps 4294967295 into -1.
TEST(KillRequestJson, KeepsHugeAndNegativePidsAsTypedForThePlanToRefuse) {
    auto request = request_from_json<KillRequest>(json::parse(R"({"pids": [4294967295, -1]})"));
    ASSERT_TRUE(request);
    EXPECT_EQ(request->pids, (std::vector<std::string>{"4294967295", "-1"}));
    EXPECT_FALSE(reclaim::parse_target_pid(request->pids[0], 4194304));
    EXPECT_FALSE(reclaim::parse_target_pid(request->pids[1], 4194304));
}

TEST(KillRequestJson, RefusesWhatItCannotReadExactly) {
    for (const char* body :
         {R"([1])", R"({"forse": true})", R"({"pids": 42})", R"({"pids": [1.5]})",
          R"({"pids": [true]})", R"({"force": "yes"})", R"({"gpu": -1})", R"({"gpu": [0]})",
          R"({"min_memory_bytes": -5})", R"({"min_memory_bytes": "8G"})",
          R"({"timeout_seconds": 99999})", R"({"timeout_seconds": -1})", R"({"plan_id": "XYZ"})",
          R"({"plan_id": "0123456789ABCDEF"})", R"({"signal": 9})"}) {
        auto request = request_from_json<KillRequest>(json::parse(body));
        ASSERT_FALSE(request) << body;
        EXPECT_EQ(request.error().category, ErrorCategory::invalid_input) << body;
        EXPECT_EQ(request.error().what.find('\n'), std::string::npos) << body;
    }
}

TEST(KillRequestJson, NamesTheUnknownField) {
    auto request = request_from_json<KillRequest>(json::parse(R"({"pid": [42]})"));
    ASSERT_FALSE(request);
    EXPECT_EQ(request.error().what, "unknown field 'pid'");
}

TEST(RequestText, NamesTheFieldAsTheDoorSpellsIt) {
    auto query =
        request_from_text<CheckRequest>({{"unaccounted_memory_bytes", "lots"}}, Spelling::field);
    ASSERT_FALSE(query);
    EXPECT_EQ(query.error().what.rfind("'unaccounted_memory_bytes': ", 0), 0u)
        << query.error().what;
    auto option = request_from_text<KillRequest>({{"timeout_seconds", "-1"}}, Spelling::option);
    ASSERT_FALSE(option);
    EXPECT_EQ(option.error().what, "--timeout-secs must be between 0 and 3600 seconds");
    auto twice =
        request_from_text<KillRequest>({{"filter", "a"}, {"filter", "b"}}, Spelling::option);
    ASSERT_FALSE(twice);
    EXPECT_EQ(twice.error().what, "--filter is given more than once");
    auto unknown = request_from_text<ListRequest>({{"pids", "1"}}, Spelling::field);
    ASSERT_FALSE(unknown);
    EXPECT_EQ(unknown.error().what, "unknown parameter 'pids'");
    auto vendor = request_from_text<ListRequest>({{"vendor", "apple"}}, Spelling::option);
    ASSERT_FALSE(vendor);
    EXPECT_EQ(vendor.error().what, "--vendor must be nvidia, amd, intel or all");
    // Repeatable fields collect; sizes are read as people write them.
    auto check = request_from_text<CheckRequest>(
        {{"allowed_users", "ann"}, {"allowed_users", "bob"}, {"unaccounted_memory_bytes", "1G"}},
        Spelling::field);
    ASSERT_TRUE(check) << check.error().what;
    EXPECT_EQ(check->allowed_users, (std::vector<std::string>{"ann", "bob"}));
    EXPECT_EQ(check->unaccounted_memory_bytes, 1ULL << 30);
}

TEST(ResetRequestJson, ReadsAndRoundTrips) {
    auto request = request_from_json<ResetRequest>(
        json::parse(R"({"gpus": "0,1", "force": true, "dry_run": true, "timeout_seconds": 4})"));
    ASSERT_TRUE(request) << request.error().what;
    EXPECT_EQ(request->gpus, "0,1");
    EXPECT_TRUE(request->force && request->dry_run);
    EXPECT_FALSE(request->all);
    auto again = request_from_json<ResetRequest>(json::parse(request_to_json(*request).dump()));
    ASSERT_TRUE(again);
    EXPECT_EQ(again->gpus, "0,1");
    EXPECT_DOUBLE_EQ(again->timeout_seconds, 4);
}

TEST(ResetRequestJson, NeverTakesTheProgramToRunFromAClient) {
    auto request = request_from_json<ResetRequest>(json::parse(R"({"nvidia_smi": "/tmp/evil"})"));
    ASSERT_FALSE(request);
    EXPECT_EQ(request.error().what, "unknown field 'nvidia_smi'");
}

}  // namespace
}  // namespace gpukill::engine
