// `--json` promises one JSON document on stdout, also when the command fails: a script
// that parses stdout must never get an empty or a half one. Commands print their
// document through print_json_result; when a command asked for JSON ends with an error
// before printing one, finish_json_result prints {"schema_version": 1, "error": {...}}
// with the error's one line and the exit code (docs/JSON.md).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/json_text.hpp"

namespace gpukill::cli {

// The command's document, already text, on stdout with a newline.
void print_json_text(const std::string& text);

// `document` on stdout, pretty (indent 2) or on one line (indent -1, JSON Lines).
template <class Json>
void print_json_result(const Json& document, int indent = 2) {
    print_json_text(json_text(document, indent));
}

// For a document printed another way (list --watch prints its frames itself).
void mark_json_result_printed();

// The last error printed (print_error), for the error document; warnings do not count.
void remember_error(const std::string& message);

// `code` unchanged; on the way, the error document when argv asks for JSON, `code` is
// not 0 and no document was printed.
int finish_json_result(int argc, char** argv, int code);

}  // namespace gpukill::cli
