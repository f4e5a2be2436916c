// Every engine request described once, as a table of fields: its name on the wire (the
// agent's JSON body and query string, the MCP tool's arguments, the docs), its
// command-line option, the kind of value it holds, what it means and its default. The
// doors are written from these tables (engine/request_codec.hpp reads and writes every
// form; the command line registers its options from them; the fleet forwards a request
// by writing it out again; the MCP input schemas and the docs' field lists are
// generated), so a field added to a request exists on every door, or a test fails.
//
// A field is bound to its request by a pointer to the member that holds it. Requests
// that share fields (kill's and list's match selectors) inherit them from one struct, so
// those fields are described once too (engine/selectors.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace gpukill::engine {

// What a field holds, which decides how each door reads and writes it.
enum class FieldKind {
    flag,       // bool. CLI: present or not; JSON: true/false; text: "true"/"false"
    text,       // optional<string>: a name, an id
    pattern,    // optional<string>: a regular expression (model/pattern.hpp)
    texts,      // vector<string>: repeatable on the command line, a JSON array
    pids,       // vector<string>: PIDs as typed; JSON integers or decimal strings
    gpu,        // optional<string>: an index, UUID or PCI bus id; JSON string or integer
    byte_size,  // optional<uint64_t> or uint64_t: CLI "4G" or bytes; JSON integer bytes
    seconds,    // double, 0..3600
    hours,      // double, above 0 and at most a century (876,000)
    signal,     // string: a signal's name or number
    plan_id,    // optional<string>: 16 lowercase hex digits
    choice,     // string: one of FieldDoc::choices
    // optional<string>: a document's text (a policy's YAML, a saved snapshot's JSON). On
    // the command line `option` names a file to read it from and `text_option` takes the
    // text itself (what the fleet forwards, so the host reads no file of the controller's).
    document,
};

struct FieldDoc {
    std::string_view name;          // JSON, query string, MCP: "not_image"
    std::string_view option;        // the command line's long option: "--not-image"
    std::string_view short_option;  // "-p", or empty
    std::string_view value_name;    // "REGEX"; empty for a flag
    FieldKind kind = FieldKind::text;
    std::string_view help;          // one line, for --help, man pages, MCP and the docs
    std::string_view default_text;  // as documented ("SIGTERM", "5"); empty: none
    bool negated_option = false;    // the option turns the flag off (--no-rogue: rogue false)
    std::string_view text_option;   // FieldKind::document: "--policy-text"
    std::vector<std::string_view> choices = {};  // FieldKind::choice
};

// Where a request keeps a field's value.
template <class Request>
using FieldMember =
    std::variant<bool Request::*, std::optional<std::string> Request::*,
                 std::vector<std::string> Request::*, std::optional<std::uint64_t> Request::*,
                 std::uint64_t Request::*, double Request::*, std::string Request::*>;

template <class Request>
struct Field {
    FieldDoc doc;
    FieldMember<Request> member;
};

// The table of `Request`: defined once for each request type (engine/request_tables.cpp),
// in the order the docs list them.
template <class Request>
std::span<const Field<Request>> request_fields();

// The name of a request in the docs and errors ("kill", "list").
template <class Request>
std::string_view request_name();

// `T Base::*` as `T Derived::*`: a base's member is the derived request's member too.
template <class Derived, class Pointer>
struct MemberOf;
template <class Derived, class T, class Base>
struct MemberOf<Derived, T Base::*> {
    using type = T Derived::*;
};

// A table of a base's fields as fields of a request deriving from it (the match
// selectors of kill and list).
template <class Derived, class Base>
std::vector<Field<Derived>> inherited_fields(std::span<const Field<Base>> base) {
    std::vector<Field<Derived>> fields;
    fields.reserve(base.size());
    for (const Field<Base>& field : base) {
        fields.push_back(Field<Derived>{
            field.doc,
            std::visit(
                [](auto member) -> FieldMember<Derived> {
                    return static_cast<typename MemberOf<Derived, decltype(member)>::type>(member);
                },
                field.member)});
    }
    return fields;
}

}  // namespace gpukill::engine
