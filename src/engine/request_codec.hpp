// Every form a request takes on a door, read and written from its one table
// (engine/request_fields.hpp):
//
//   JSON            the agent's POST bodies, the MCP tools' arguments, the fleet's agent
//                   transport: request_from_json / request_to_json
//   named text      the agent's query strings, and the command line once its options are
//                   parsed (each value as typed, under the field's name): request_from_text
//   arguments       the command line a host runs (the fleet's SSH transport):
//                   request_to_arguments, which request_from_text reads back exactly
//   schema          the MCP tools' inputSchema properties: request_schema
//   docs            the field lists of docs/API.md and docs/MCP.md: request_markdown
//
// Reading is strict on every door: an unknown field, a value of the wrong type or out of
// range is an invalid_input error naming the field as that door spells it ("'gpu'" in
// JSON, "--gpu" on the command line); nothing is guessed or dropped. Values that the
// engine checks when it plans (patterns, PIDs, signal names, GPU names) pass through as
// typed, so every door is refused by the same check with the same words.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/request_fields.hpp"
#include "model/result.hpp"

namespace gpukill::engine {

// How a request's text values are spelled in errors: by field name (a query string) or
// by command-line option.
enum class Spelling { field, option };

// (name, value) pairs as a door gives them: the query string's parameters; the command
// line's options, each under its field's name (a flag given is "true").
using NamedValues = std::vector<std::pair<std::string, std::string>>;

template <class Request>
Result<Request> request_from_json(const nlohmann::json& body);

// Only the fields whose value differs from a default-constructed Request: what was asked.
template <class Request>
nlohmann::ordered_json request_to_json(const Request& request);

template <class Request>
Result<Request> request_from_text(const NamedValues& values, Spelling spelling);

// The same as named text: what request_from_text(..., Spelling::field) reads back (a
// query string's parameters). Only non-default fields.
template <class Request>
NamedValues request_to_text(const Request& request);

// The command-line options (`--gpu 1 --not-image ^nvcr\.io/ --batch`) that ask for exactly
// this request: only non-default fields, in table order.
template <class Request>
std::vector<std::string> request_to_arguments(const Request& request);

// {name: {type, description, ...}} for every field but those named in `left_out` (a tool
// that fixes a field itself, such as plan_kill's dry_run).
template <class Request>
nlohmann::ordered_json request_schema(const std::vector<std::string_view>& left_out = {});

// A Markdown table of the fields: name, option, type, default, meaning.
template <class Request>
std::string request_markdown();

// A field's help with its choices and default, as every door documents it.
std::string field_description(const FieldDoc& doc);

// The field of `Request` the command-line option `option` ("--gpu" or "-g") names.
template <class Request>
const FieldDoc* field_for_option(std::string_view option);

}  // namespace gpukill::engine
