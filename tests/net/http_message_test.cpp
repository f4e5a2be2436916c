// HTTP/1.1 messages from a peer that may be hostile: every framing bounded, the head
// bounded in bytes and fields, and the constructions two parsers read differently
// (request smuggling) refused.
#include <gtest/gtest.h>

#include <string>

#include "net/http_message.hpp"

namespace gpukill::net {
namespace {

constexpr HttpLimits kSmall{.max_head_bytes = 1024, .max_headers = 8, .max_body_bytes = 100};

HttpMessageReader request_of(std::string_view text, HttpLimits limits = kSmall) {
    HttpMessageReader reader(HttpMessageKind::request, limits);
    reader.feed(text);
    if (reader.state() == HttpReadState::head_done) reader.continue_body();
    return reader;
}

// The same bytes fed one at a time: a dripping peer reads the same.
HttpMessageReader dripped(std::string_view text, HttpLimits limits = kSmall) {
    HttpMessageReader reader(HttpMessageKind::request, limits);
    for (char c : text) {
        reader.feed(std::string_view(&c, 1));
        if (reader.state() == HttpReadState::head_done) reader.continue_body();
    }
    return reader;
}

TEST(HttpMessage, ReadsARequestWithItsLengthBody) {
    for (auto reader : {request_of("POST /v1/kill/plan?a=1&b=x%20y HTTP/1.1\r\nHost: h\r\n"
                                   "Content-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n"),
                        dripped("POST /v1/kill/plan?a=1&b=x%20y HTTP/1.1\r\nHost: h\r\n"
                                "Content-Length: 5\r\n\r\nhello")}) {
        ASSERT_EQ(reader.state(), HttpReadState::done) << reader.failure().reason;
        EXPECT_EQ(reader.head().method, "POST");
        EXPECT_EQ(reader.head().target, "/v1/kill/plan?a=1&b=x%20y");
        EXPECT_EQ(reader.head().fields.value("host"), "h");
        EXPECT_EQ(reader.body(), "hello");
        EXPECT_TRUE(reader.head().keep_alive());
    }
    EXPECT_EQ(request_of("POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\nxGET /").leftover(), "GET /");
    EXPECT_EQ(parse_query("a=1&b=x%20y+z&c"), (std::vector<std::pair<std::string, std::string>>{
                                                  {"a", "1"}, {"b", "x y z"}, {"c", ""}}));
}

TEST(HttpMessage, StopsAfterTheHeadUntilTheBodyIsWanted) {
    HttpMessageReader reader(HttpMessageKind::request, kSmall);
    EXPECT_EQ(reader.feed("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab"),
              HttpReadState::head_done);
    EXPECT_TRUE(reader.body_expected());
    EXPECT_EQ(reader.body(), "");
    EXPECT_EQ(reader.continue_body(), HttpReadState::body);
    EXPECT_EQ(reader.feed("c"), HttpReadState::done);
    EXPECT_EQ(reader.body(), "abc");
}

TEST(HttpMessage, DechunksAndBoundsChunkedBodies) {
    const std::string chunked =
        "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n"
        "0\r\nX-Trailer: t\r\n\r\n";
    for (auto reader : {request_of(chunked), dripped(chunked)}) {
        ASSERT_EQ(reader.state(), HttpReadState::done) << reader.failure().reason;
        EXPECT_EQ(reader.body(), "hello world");
    }
    // A chunked body over the limit is refused at the chunk that passes it, never buffered.
    auto big = request_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n60\r\n" +
                          std::string(96, 'x') + "\r\n10\r\n");
    ASSERT_EQ(big.state(), HttpReadState::failed);
    EXPECT_EQ(big.failure().status, 413);
    EXPECT_EQ(
        request_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n")
            .failure()
            .status,
        400);
    EXPECT_EQ(
        request_of("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").failure().status,
        400);
}

TEST(HttpMessage, ABodyOverTheLimitIsRefusedBeforeItIsRead) {
    auto declared = request_of("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n");
    ASSERT_EQ(declared.state(), HttpReadState::failed);
    EXPECT_EQ(declared.failure().status, 413);
    // A request without a length has no body: what follows is the next request.
    auto lengthless = request_of("POST / HTTP/1.1\r\nHost: h\r\n\r\n" + std::string(200, 'x'));
    ASSERT_EQ(lengthless.state(), HttpReadState::done);
    EXPECT_EQ(lengthless.body(), "");
}

TEST(HttpMessage, BoundsTheHeadInBytesAndFields) {
    std::string many = "GET / HTTP/1.1\r\n";
    for (int i = 0; i < 9; ++i) many += "X-" + std::to_string(i) + ": v\r\n";
    EXPECT_EQ(request_of(many + "\r\n").failure().status, 431);
    EXPECT_EQ(dripped(many).failure().status, 431);
    // One endless header line: refused once it passes the limit, without its end.
    HttpMessageReader endless(HttpMessageKind::request, kSmall);
    endless.feed("GET / HTTP/1.1\r\nX-Long: ");
    for (int i = 0; i < 100 && endless.state() == HttpReadState::head; ++i) {
        endless.feed(std::string(100, 'a'));
    }
    ASSERT_EQ(endless.state(), HttpReadState::failed);
    EXPECT_EQ(endless.failure().status, 431);
    EXPECT_EQ(request_of("GET /" + std::string(2000, 'a')).failure().status, 414);
}

TEST(HttpMessage, RefusesWhatTwoParsersCouldReadDifferently) {
    const auto status = [](std::string_view text) { return request_of(text).failure().status; };
    EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
              400);
    EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n"), 400);
    EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: 3, 4\r\n\r\n"), 400);
    EXPECT_EQ(status("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
    EXPECT_EQ(status("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 501);
    EXPECT_EQ(status("GET / HTTP/1.1\r\nHost : h\r\n\r\n"), 400);
    EXPECT_EQ(status("GET / HTTP/1.1\r\nA: b\r\n continued\r\n\r\n"), 400);
    EXPECT_EQ(status("GET / HTTP/1.1\r\nA: b\x1b[31m\r\n\r\n"), 400);
    EXPECT_EQ(status("GET / HTTP/2.0\r\n\r\n"), 505);
    EXPECT_EQ(status("GET http://evil/ HTTP/1.1\r\n\r\n"), 400);
    EXPECT_EQ(status("GET  / HTTP/1.1\r\n\r\n"), 400);
    // The same Content-Length twice is one length.
    EXPECT_EQ(
        request_of("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx").state(),
        HttpReadState::done);
}

TEST(HttpMessage, ReadsResponsesToTheEndOfTheConnection) {
    HttpMessageReader reply(HttpMessageKind::response, kSmall);
    EXPECT_EQ(reply.feed("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}"),
              HttpReadState::head_done);
    EXPECT_EQ(reply.head().status, 200);
    reply.continue_body();
    EXPECT_EQ(reply.state(), HttpReadState::body);
    EXPECT_EQ(reply.end_of_input(), HttpReadState::done);
    EXPECT_EQ(reply.body(), "{}");
    HttpMessageReader endless(HttpMessageKind::response, kSmall);
    endless.feed("HTTP/1.1 200 OK\r\n\r\n");
    endless.continue_body();
    for (int i = 0; i < 5 && endless.state() == HttpReadState::body; ++i)
        endless.feed(std::string(30, 'x'));
    EXPECT_EQ(endless.failure().status, 413);
    HttpMessageReader cut(HttpMessageKind::response, kSmall);
    cut.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    cut.continue_body();
    EXPECT_EQ(cut.end_of_input(), HttpReadState::failed);
    EXPECT_FALSE(HttpHead{.minor_version = 0}.keep_alive());
}

}  // namespace
}  // namespace gpukill::net
