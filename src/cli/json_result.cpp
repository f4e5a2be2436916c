#include "cli/json_result.hpp"

#include <cstdio>
#include <optional>
#include <string_view>

#include "model/json_text.hpp"

namespace gpukill::cli {
namespace {

// Process-wide by nature: there is one stdout, and one last error on it.
bool g_document_printed = false;
std::optional<std::string> g_last_error;

bool has_argument(int argc, char** argv, std::string_view a, std::string_view b) {
    for (int i = 1; i < argc; ++i) {
        if (argv[i] == a || argv[i] == b) return true;
    }
    return false;
}

bool asks_for_json(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--json" || arg == "--output=json" || arg == "-ojson") return true;
        if ((arg == "--output" || arg == "-o") && i + 1 < argc &&
            std::string_view(argv[i + 1]) == "json") {
            return true;
        }
    }
    return false;
}

}  // namespace

void print_json_text(const std::string& text) {
    std::fputs((text + "\n").c_str(), stdout);
    g_document_printed = true;
}

void mark_json_result_printed() {
    g_document_printed = true;
}

void remember_error(const std::string& message) {
    if (message.rfind("warning: ", 0) == 0) return;
    g_last_error = message;
}

int finish_json_result(int argc, char** argv, int code) {
    if (code == 0 || g_document_printed || !asks_for_json(argc, argv)) return code;
    nlohmann::ordered_json document;
    document["schema_version"] = 1;
    document["error"] = {{"message", g_last_error.value_or("failed")}, {"exit_code", code}};
    // list --watch --json writes JSON Lines: its error is one line too.
    print_json_result(document, has_argument(argc, argv, "--watch", "-w") ? -1 : 2);
    return code;
}

}  // namespace gpukill::cli
