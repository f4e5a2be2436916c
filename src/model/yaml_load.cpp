#include "model/yaml_load.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "model/quoted_text.hpp"

#include <optional>
#include <sstream>
#include <string>

namespace gpukill {
namespace {

// Remembers where the current document started, nothing else.
class DocumentStarts final : public YAML::EventHandler {
  public:
    YAML::Mark start;
    void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

[[noreturn]] void refuse_stall(const YAML::Mark& at, std::string_view text) {
    const auto position = static_cast<std::size_t>(at.pos);
    const char c = position < text.size() ? text[position] : '\0';
    if (c == ',') {
        throw YAML::ParserException(at,
                                    "unexpected ',' outside [...] or {...}; quote the whole "
                                    "value or put the list in [ ]");
    }
    if (c == '?') {
        throw YAML::ParserException(at, "unexpected '?' key after a complete top-level value");
    }
    throw YAML::ParserException(at, "unexpected token; the YAML parser cannot continue here");
}

std::vector<YAML::Node> load_bounded(std::string_view text) {
    const std::string owned(text);
    {
        std::istringstream in(owned);
        YAML::Parser parser(in);
        DocumentStarts starts;
        std::optional<int> previous;
        std::size_t documents = 0;
        while (parser.HandleNextDocument(starts)) {
            if (previous && starts.start.pos == *previous) refuse_stall(starts.start, text);
            previous = starts.start.pos;
            if (++documents > kMaxYamlDocuments) {
                throw YAML::ParserException(
                    starts.start,
                    "more than " + std::to_string(kMaxYamlDocuments) + " YAML documents");
            }
        }
    }
    return YAML::LoadAll(owned);
}

}  // namespace

std::unexpected<Error> yaml_error(std::string_view source, const YAML::Mark& mark,
                                  std::string_view what) {
    std::string line(source);
    // yaml-cpp counts from 0.
    if (!mark.is_null()) {
        line += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
    }
    line += ": ";
    line += what;
    return fail(terminal_safe(line));
}

std::vector<YAML::Node> load_yaml_documents(std::string_view text) {
    try {
        return load_bounded(text);
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp's own message for this is "bad file".
        throw YAML::ParserException(e.mark, "nested too deeply (yaml-cpp stops at " +
                                                std::to_string(e.depth()) + " levels)");
    }
}
}  // namespace gpukill
