// HTTP/1.1 messages read from a peer that may be hostile, bounded before anything is
// kept: the start line and headers together (bytes and count), the body after
// de-chunking (every framing: Content-Length, chunked, or until the connection closes),
// and chunk-size lines and trailers. Pure: bytes in, a parsed head and body out; the
// caller owns the socket and the clock (http_listener.hpp, http_client.hpp).
//
// Why gpukill reads HTTP itself: the listeners used cpp-httplib 0.11.4 (Debian 12),
// which buffers a whole request line or header line before checking its length, keeps
// any number of headers, applies its payload limit to Content-Length bodies only (a
// chunked body or one without a length is read into memory whole), and bounds time per
// read, not per request. docs/AGENT.md ("Limits") compares the alternatives.
//
// The reader stops after the head (state head_done), so a listener can authenticate a
// request and refuse it before reading a byte of its body; continue_body() goes on.
// Strict where laxness lets two parsers disagree (request smuggling): both
// Content-Length and Transfer-Encoding, differing Content-Lengths, a coding other than
// chunked, folded header lines, control bytes in a header, a space before a header's
// colon are all 400 (or 501 for an unknown coding).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpukill::net {

struct HttpLimits {
    std::size_t max_head_bytes = 16 * 1024;  // start line and headers with their line ends
    std::size_t max_headers = 64;            // header lines (and trailer lines)
    std::size_t max_body_bytes = 64 * 1024;  // after de-chunking
};

struct HttpField {
    std::string name;
    std::string value;
};

// Header fields in arrival order; names compared without regard to case.
class HttpFields {
  public:
    void add(std::string name, std::string value);
    // The first value of `name`; nullptr when absent.
    const std::string* find(std::string_view name) const;
    std::string value(std::string_view name) const;  // "" when absent
    bool has(std::string_view name) const { return find(name) != nullptr; }
    std::size_t count(std::string_view name) const;
    const std::vector<HttpField>& all() const { return fields_; }
    std::size_t size() const { return fields_.size(); }

  private:
    std::vector<HttpField> fields_;
};

bool equal_ignoring_case(std::string_view a, std::string_view b);

// Whether a comma-separated header value (Connection, Expect) lists `token`.
bool header_lists(std::string_view value, std::string_view token);

struct HttpHead {
    // A request's line: "GET /v1/snapshot?x=1 HTTP/1.1".
    std::string method;
    std::string target;
    // A response's line: "HTTP/1.1 200 OK".
    int status = 0;
    std::string reason;
    int minor_version = 1;  // HTTP/1.0 or HTTP/1.1
    HttpFields fields;

    // Whether the connection stays open after this message (HTTP/1.1 unless
    // "Connection: close"; HTTP/1.0 only with "Connection: keep-alive").
    bool keep_alive() const;
};

enum class HttpMessageKind { request, response };

enum class HttpReadState {
    head,       // reading the start line and headers
    head_done,  // the head is complete: call continue_body() to read the body
    body,       // reading the body
    done,       // the message is complete
    failed,     // refused: failure() says with which status and why
};

struct HttpReadFailure {
    int status = 400;  // 400, 413, 414, 431, 501, 505
    std::string reason;
};

class HttpMessageReader {
  public:
    HttpMessageReader(HttpMessageKind kind, HttpLimits limits);

    // Takes the next bytes from the peer and parses as far as they go (never past the
    // head until continue_body()). Bytes after the end of this message stay buffered
    // (leftover()); the buffer never holds more than the head limit plus what one call
    // passed.
    HttpReadState feed(std::string_view bytes);
    // After head_done: checks the declared length against the body limit (413 at once
    // when over it) and parses the body bytes already buffered.
    HttpReadState continue_body();
    // The peer closed its side: a body read until close is complete; anything else
    // unfinished fails (400).
    HttpReadState end_of_input();

    HttpReadState state() const { return state_; }
    bool started() const { return started_; }  // a byte of this message was seen
    const HttpHead& head() const { return head_; }
    std::string& body() { return body_; }
    const HttpReadFailure& failure() const { return failure_; }
    // The head announces a body (a positive Content-Length, chunked, or until close).
    bool body_expected() const;
    std::optional<std::uint64_t> content_length() const { return content_length_; }
    // Bytes received after this message ended (a pipelined request).
    std::string leftover() const;
    // A response to HEAD, or a client told it: no body whatever the head says.
    void expect_no_body() { no_body_ = true; }

  private:
    enum class Framing { none, length, chunked, until_close };
    enum class ChunkStep { size, data, data_end, trailers };

    HttpReadState fail(int status, std::string reason);
    HttpReadState parse_head();
    HttpReadState parse_body();
    bool parse_start_line(std::string_view line);
    bool parse_field_line(std::string_view line);
    HttpReadState decide_framing();
    // The next line in the buffer (without its CRLF or LF), or nothing yet.
    std::optional<std::string_view> take_line(std::size_t max_line, bool& too_long);
    void compact();

    HttpMessageKind kind_;
    HttpLimits limits_;
    HttpReadState state_ = HttpReadState::head;
    bool started_ = false;
    bool no_body_ = false;
    std::string buffer_;
    std::size_t pos_ = 0;  // parsed up to here in buffer_
    std::size_t head_bytes_ = 0;
    bool start_line_done_ = false;
    HttpHead head_;
    std::string body_;
    Framing framing_ = Framing::none;
    std::optional<std::uint64_t> content_length_;
    ChunkStep chunk_step_ = ChunkStep::size;
    std::uint64_t chunk_left_ = 0;
    std::size_t trailer_bytes_ = 0;
    std::size_t trailer_lines_ = 0;
    HttpReadFailure failure_;
};

// "a=1&b=x%20y" -> {a: 1, b: "x y"} ('+' is a space); pairs in order.
std::vector<std::pair<std::string, std::string>> parse_query(std::string_view query);

// "Not Found" for 404; "Unknown" for a code it does not name.
const char* http_reason(int status);

}  // namespace gpukill::net
