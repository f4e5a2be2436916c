// The command line's side of the request tables (engine/request_fields.hpp): every
// option of every engine request, registered once on the parser from the tables, its
// values kept as typed; after parsing, one request read from them through the engine's
// codec, exactly as the agent reads a query string. A field added to a table is an
// option here, in the help, the man pages and the completions, with nothing to write.
//
// Which command takes which request is here too (requests_of), so the help shows each
// command's own words for a shared option (--gpu is "the GPUs to reset" for reset) and
// an option given to a command whose requests lack it is refused by name.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_id.hpp"
#include "engine/request_codec.hpp"
#include "engine/request_fields.hpp"
#include "model/result.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace gpukill::cli {

// The fields of every request `command` reads, in table order (audit reads three:
// usage, actions and the rogue scan; top reads list's --gpu). Empty for commands that
// read no engine request (doctor, agent, mcp).
std::vector<const engine::FieldDoc*> request_fields_of(Command command);

// The commands whose requests have a field with this long option (or text option).
std::vector<Command> commands_taking(std::string_view option);

// Every request option's long name: --gpu, --filter, ..., --policy-text.
std::vector<std::string> request_option_names();

// `markdown` with every `<!-- fields:NAME -->` ... `<!-- /fields:NAME -->` block filled
// with that request's field table (list, kill, reset, check, audit-actions, audit-usage,
// rogue, guard-test): how docs/API.md's field lists are written from the tables, and
// checked. invalid_input names a block whose NAME is no request, or one left open.
Result<std::string> with_request_field_tables(std::string_view markdown);

class RequestOptions {
  public:
    // Registers every request option on `app` (each once, whatever tables share it).
    // This object must outlive the parse: it holds the values.
    void add_to(CLI::App& app);

    bool given(std::string_view option) const;
    // The values `option` was given, in order (a flag: one "true" each time).
    std::vector<std::string> values(std::string_view option) const;
    // For the command line's own sugar: `gpukill 1234` is --pid 1234; `gpukill reset 0 1`
    // is --gpu 0,1.
    void add_value(std::string_view option, std::string value);
    void replace_value(std::string_view option, std::string value);

    // The request these options ask for. invalid_input: an option given that `Request`
    // has no field for ("--vendor does not apply to kill"), a value its field cannot
    // take, a document file that cannot be read.
    template <class Request>
    Result<Request> request() const;

  private:
    Result<engine::NamedValues> named_values(const std::vector<const engine::FieldDoc*>& fields,
                                             std::string_view request_name) const;

    std::map<std::string, std::vector<std::string>, std::less<>> values_;
    std::map<std::string, std::int64_t, std::less<>> flags_;
};

}  // namespace gpukill::cli
