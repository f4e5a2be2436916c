// The hand-written regular-expression engine gpukill used before RE2, kept only as the
// pattern benchmark's "before" (bench/pattern_bench.cpp); no product code links it.
// It is src/model/pattern.hpp and pattern.cpp as of commit 17ce2d8, unchanged but for
// this note, its namespace (gpukill::bench::before) and the include of its header.
//
// Parse -> syntax tree -> NFA program -> simulation over the text, one step per
// character with a set of live instructions (no backtracking, so no blow-up).
#include "pattern_before.hpp"

#include "model/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace gpukill::bench::before {
// Named, not anonymous: Pattern::Program (declared in the header) holds these types.
namespace pattern_program {

using CodePoint = std::uint32_t;
// A byte that is not part of valid UTF-8 becomes one character above the Unicode range.
constexpr CodePoint kInvalidBase = 0x110000;
constexpr CodePoint kLastCodePoint = kInvalidBase + 0xff;
constexpr int kMaxNesting = 200;

// Decodes one character at `at`, advancing it; an invalid byte becomes one character
// above the Unicode range, which only `.` and negated classes match.
CodePoint decode_utf8(std::string_view text, std::size_t& at) {
    const Utf8Char c = next_utf8(text, at);
    at += c.length;
    return c.valid ? c.code : kInvalidBase + c.code;
}

bool is_word(CodePoint c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

struct Range {
    CodePoint low;
    CodePoint high;
};

struct CharClass {
    std::vector<Range> ranges;  // sorted, merged once built
    bool negated = false;

    bool contains(CodePoint c) const {
        auto it = std::upper_bound(ranges.begin(), ranges.end(), c,
                                   [](CodePoint v, const Range& r) { return v < r.low; });
        const bool inside = it != ranges.begin() && c <= std::prev(it)->high;
        return inside != negated;
    }
};

void normalise(CharClass& cls, bool ignore_case) {
    if (ignore_case) {
        const std::size_t count = cls.ranges.size();
        for (std::size_t i = 0; i < count; ++i) {
            const Range r = cls.ranges[i];
            const auto fold = [&](CodePoint from, CodePoint to, int shift) {
                const CodePoint low = std::max(r.low, from);
                const CodePoint high = std::min(r.high, to);
                if (low <= high) cls.ranges.push_back({low + shift, high + shift});
            };
            fold('a', 'z', 'A' - 'a');
            fold('A', 'Z', 'a' - 'A');
        }
    }
    std::sort(cls.ranges.begin(), cls.ranges.end(),
              [](const Range& a, const Range& b) { return a.low < b.low; });
    std::vector<Range> merged;
    for (const Range& r : cls.ranges) {
        if (!merged.empty() && r.low <= merged.back().high + 1) {
            merged.back().high = std::max(merged.back().high, r.high);
        } else {
            merged.push_back(r);
        }
    }
    cls.ranges = std::move(merged);
}

enum class NodeKind {
    empty,
    literal,
    any,
    char_class,
    begin,
    end,
    word_boundary,
    not_word_boundary,
    concat,
    alternation,
    repeat
};

struct Node {
    NodeKind kind = NodeKind::empty;
    CodePoint literal = 0;
    std::size_t class_index = 0;
    std::vector<Node> children;
    unsigned min = 0;
    std::optional<unsigned> max;  // empty: unbounded
};

Node node_of(NodeKind kind) {
    Node node;
    node.kind = kind;
    return node;
}

bool is_assertion(NodeKind kind) {
    return kind == NodeKind::begin || kind == NodeKind::end || kind == NodeKind::word_boundary ||
           kind == NodeKind::not_word_boundary;
}

class Parser {
  public:
    explicit Parser(std::string_view pattern) : text_(pattern) {}

    Result<Node> parse_all(bool& ignore_case) {
        if (text_.starts_with("(?i)")) {
            ignore_case = true;
            at_ = 4;
        }
        ignore_case_ = ignore_case;
        auto node = parse_alternation(0);
        if (!node) return node;
        if (at_ < text_.size()) return error("unmatched ')'");
        return node;
    }

    std::vector<CharClass> classes;

  private:
    std::unexpected<Error> error(const std::string& what) const {
        return fail(what + " at offset " + std::to_string(at_));
    }
    bool done() const { return at_ >= text_.size(); }
    char peek() const { return text_[at_]; }

    Result<Node> parse_alternation(int depth) {
        if (depth > kMaxNesting) return error("groups nested deeper than 200");
        Node alternation = node_of(NodeKind::alternation);
        while (true) {
            auto branch = parse_concat(depth);
            if (!branch) return branch;
            alternation.children.push_back(std::move(*branch));
            if (done() || peek() != '|') break;
            ++at_;
        }
        if (alternation.children.size() == 1) return std::move(alternation.children.front());
        return alternation;
    }

    Result<Node> parse_concat(int depth) {
        Node concat = node_of(NodeKind::concat);
        while (!done() && peek() != '|' && peek() != ')') {
            auto piece = parse_repeat(depth);
            if (!piece) return piece;
            concat.children.push_back(std::move(*piece));
        }
        if (concat.children.size() == 1) return std::move(concat.children.front());
        if (concat.children.empty()) return Node{};
        return concat;
    }

    static bool is_quantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

    Result<Node> parse_repeat(int depth) {
        auto atom = parse_atom(depth);
        if (!atom) return atom;
        if (done() || !is_quantifier(peek())) return atom;
        if (is_assertion(atom->kind))
            return error("nothing to repeat before '" + std::string(1, peek()) + "'");
        Node repeat = node_of(NodeKind::repeat);
        const char q = peek();
        ++at_;
        if (q == '*') {
            repeat.min = 0;
        } else if (q == '+') {
            repeat.min = 1;
        } else if (q == '?') {
            repeat.min = 0;
            repeat.max = 1;
        } else if (auto counted = parse_counts(repeat); !counted) {
            return std::unexpected(counted.error());
        }
        if (!done() && peek() == '?') ++at_;  // lazy: the same set of matching texts
        if (!done() && is_quantifier(peek())) {
            return error("nothing to repeat before '" + std::string(1, peek()) + "'");
        }
        repeat.children.push_back(std::move(*atom));
        return repeat;
    }

    // After '{': n}, n,} or n,m}. Counts are read digit by digit and refused as soon as
    // they pass kMaxRepeat, so no count can wrap around.
    Result<void> parse_counts(Node& repeat) {
        auto number = [&]() -> Result<std::optional<unsigned>> {
            const std::size_t start = at_;
            std::uint64_t value = 0;
            while (!done() && peek() >= '0' && peek() <= '9') {
                value = std::min<std::uint64_t>(value * 10 + (peek() - '0'), 1'000'000'000ULL);
                ++at_;
            }
            if (at_ == start) return std::optional<unsigned>{};
            if (value > Pattern::kMaxRepeat) {
                return fail("repeat count " + std::string(text_.substr(start, at_ - start)) +
                            " at offset " + std::to_string(start) + " exceeds " +
                            std::to_string(Pattern::kMaxRepeat));
            }
            return std::optional<unsigned>(static_cast<unsigned>(value));
        };
        const std::string malformed =
            "'{' that does not start a repeat {n}, {n,} or {n,m} (write \\{ for a brace)";
        auto low = number();
        if (!low) return std::unexpected(low.error());
        if (!*low) return error(malformed);
        repeat.min = **low;
        repeat.max = **low;
        if (!done() && peek() == ',') {
            ++at_;
            auto high = number();
            if (!high) return std::unexpected(high.error());
            repeat.max = *high;
            if (*high && **high < repeat.min) return error("repeat {n,m} with m below n");
        }
        if (done() || peek() != '}') return error(malformed);
        ++at_;
        return {};
    }

    Result<Node> parse_atom(int depth) {
        const char c = peek();
        switch (c) {
            case '(': {
                ++at_;
                if (!done() && peek() == '?') {
                    if (text_.substr(at_, 2) != "?:") {
                        return error(
                            "look-around, named groups and inline flags other than a "
                            "leading (?i) are not supported");
                    }
                    at_ += 2;
                }
                auto inner = parse_alternation(depth + 1);
                if (!inner) return inner;
                if (done() || peek() != ')') return error("missing ')'");
                ++at_;
                return inner;
            }
            case '[':
                return parse_class();
            case '.':
                ++at_;
                return node_of(NodeKind::any);
            case '^':
                ++at_;
                return node_of(NodeKind::begin);
            case '$':
                ++at_;
                return node_of(NodeKind::end);
            case '\\':
                return parse_escape_atom();
            case '*':
            case '+':
            case '?':
            case '{':
                return error("nothing to repeat before '" + std::string(1, c) + "'");
            default:
                return literal(decode_utf8(text_, at_));
        }
    }

    Node literal(CodePoint c) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!ignore_case_ || !letter) {
            Node node = node_of(NodeKind::literal);
            node.literal = c;
            return node;
        }
        CharClass cls;
        cls.ranges.push_back({c, c});
        return add_class(std::move(cls));
    }

    Node add_class(CharClass cls) {
        normalise(cls, ignore_case_);
        classes.push_back(std::move(cls));
        Node node = node_of(NodeKind::char_class);
        node.class_index = classes.size() - 1;
        return node;
    }

    static CharClass named_class(char letter) {
        CharClass cls;
        switch (letter) {
            case 'd':
            case 'D':
                cls.ranges = {{'0', '9'}};
                break;
            case 'w':
            case 'W':
                cls.ranges = {{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
                break;
            default:  // s, S: the ECMAScript white space and line terminators in ASCII and Latin-1
                cls.ranges = {
                    {'\t', '\r'}, {' ', ' '}, {0xa0, 0xa0}, {0x2028, 0x2029}, {0xfeff, 0xfeff}};
                break;
        }
        cls.negated = letter == 'D' || letter == 'W' || letter == 'S';
        return cls;
    }

    // After a backslash: a single character, or a class letter (returned as `cls`).
    Result<CodePoint> parse_escape(std::optional<CharClass>& cls, bool in_class) {
        ++at_;  // the backslash
        if (done()) return error("pattern ends with a lone backslash");
        const char c = peek();
        ++at_;
        switch (c) {
            case 'd':
            case 'D':
            case 'w':
            case 'W':
            case 's':
            case 'S':
                cls = named_class(c);
                return 0;
            case 't':
                return '\t';
            case 'n':
                return '\n';
            case 'r':
                return '\r';
            case 'f':
                return '\f';
            case 'v':
                return '\v';
            case '0':
                return 0;
            case 'b':
                if (in_class) return '\b';
                break;
            case 'x':
            case 'u': {
                const std::size_t digits = c == 'x' ? 2 : 4;
                CodePoint value = 0;
                for (std::size_t i = 0; i < digits; ++i) {
                    if (done() || !std::isxdigit(static_cast<unsigned char>(peek()))) {
                        return error(std::string("\\") + c + " needs " + std::to_string(digits) +
                                     " hex digits");
                    }
                    const char d = peek();
                    value = value * 16 + (d <= '9' ? d - '0' : (d | 0x20) - 'a' + 10);
                    ++at_;
                }
                return value;
            }
            default:
                break;
        }
        if (c >= '1' && c <= '9') return error("back-references are not supported");
        if (std::isalnum(static_cast<unsigned char>(c))) {
            return error(std::string("unknown escape \\") + c);
        }
        if (static_cast<unsigned char>(c) >= 0x80) {
            at_ -= 1;
            return decode_utf8(text_, at_);
        }
        return static_cast<CodePoint>(c);
    }

    Result<Node> parse_escape_atom() {
        if (text_.substr(at_, 2) == "\\b") {
            at_ += 2;
            return node_of(NodeKind::word_boundary);
        }
        if (text_.substr(at_, 2) == "\\B") {
            at_ += 2;
            return node_of(NodeKind::not_word_boundary);
        }
        std::optional<CharClass> cls;
        auto c = parse_escape(cls, false);
        if (!c) return std::unexpected(c.error());
        if (cls) return add_class(std::move(*cls));
        return literal(*c);
    }

    Result<void> add_posix_class(CharClass& into) {
        const std::size_t close = text_.find(":]", at_ + 2);
        if (close == std::string_view::npos) return error("unterminated [: class name");
        const std::string_view name = text_.substr(at_ + 2, close - at_ - 2);
        static const std::pair<std::string_view, std::vector<Range>> known[] = {
            {"alpha", {{'A', 'Z'}, {'a', 'z'}}},
            {"digit", {{'0', '9'}}},
            {"alnum", {{'0', '9'}, {'A', 'Z'}, {'a', 'z'}}},
            {"upper", {{'A', 'Z'}}},
            {"lower", {{'a', 'z'}}},
            {"space", {{'\t', '\r'}, {' ', ' '}}},
            {"blank", {{'\t', '\t'}, {' ', ' '}}},
            {"punct", {{'!', '/'}, {':', '@'}, {'[', '`'}, {'{', '~'}}},
            {"xdigit", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
            {"cntrl", {{0, 0x1f}, {0x7f, 0x7f}}},
            {"print", {{' ', '~'}}},
            {"graph", {{'!', '~'}}},
        };
        for (const auto& [known_name, ranges] : known) {
            if (name == known_name) {
                into.ranges.insert(into.ranges.end(), ranges.begin(), ranges.end());
                at_ = close + 2;
                return {};
            }
        }
        return error("unknown class [:" + std::string(name) + ":]");
    }

    // One class member: a character (returned) or a set already added to `into`.
    Result<std::optional<CodePoint>> class_member(CharClass& into) {
        if (text_.substr(at_, 2) == "[:") {
            if (auto added = add_posix_class(into); !added) return std::unexpected(added.error());
            return std::optional<CodePoint>{};
        }
        if (peek() == '\\') {
            std::optional<CharClass> named;
            auto c = parse_escape(named, true);
            if (!c) return std::unexpected(c.error());
            if (named) {
                // A negated escape inside brackets ([\D]) is its complement's ranges.
                CharClass set = std::move(*named);
                normalise(set, false);
                if (set.negated) {
                    CodePoint next = 0;
                    for (const Range& r : set.ranges) {
                        if (r.low > next) into.ranges.push_back({next, r.low - 1});
                        next = r.high + 1;
                    }
                    into.ranges.push_back({next, kLastCodePoint});
                } else {
                    into.ranges.insert(into.ranges.end(), set.ranges.begin(), set.ranges.end());
                }
                return std::optional<CodePoint>{};
            }
            return std::optional<CodePoint>(*c);
        }
        return std::optional<CodePoint>(decode_utf8(text_, at_));
    }

    Result<Node> parse_class() {
        ++at_;  // '['
        CharClass cls;
        if (!done() && peek() == '^') {
            cls.negated = true;
            ++at_;
        }
        while (true) {
            if (done()) return error("missing ']'");
            if (peek() == ']') {
                ++at_;
                break;
            }
            auto low = class_member(cls);
            if (!low) return std::unexpected(low.error());
            if (!*low) continue;
            if (at_ + 1 < text_.size() && peek() == '-' && text_[at_ + 1] != ']') {
                ++at_;
                auto high = class_member(cls);
                if (!high) return std::unexpected(high.error());
                if (!*high) return error("a range in [...] must end with a single character");
                if (**high < **low) return error("range out of order in [...]");
                cls.ranges.push_back({**low, **high});
            } else {
                cls.ranges.push_back({**low, **low});
            }
        }
        return add_class(std::move(cls));
    }

    std::string_view text_;
    std::size_t at_ = 0;
    bool ignore_case_ = false;
};

// Instructions the node compiles to, saturating so that nested repeats cannot overflow.
std::size_t program_size(const Node& node) {
    constexpr std::size_t cap = std::numeric_limits<std::size_t>::max() / 4;
    const auto add = [&](std::size_t a, std::size_t b) { return std::min(cap, a + b); };
    const auto times = [&](std::size_t a, std::size_t n) {
        return n == 0 ? 0 : (a > cap / n ? cap : a * n);
    };
    switch (node.kind) {
        case NodeKind::empty:
            return 0;
        case NodeKind::concat: {
            std::size_t total = 0;
            for (const Node& child : node.children) total = add(total, program_size(child));
            return total;
        }
        case NodeKind::alternation: {
            std::size_t total = 2 * (node.children.size() - 1);
            for (const Node& child : node.children) total = add(total, program_size(child));
            return total;
        }
        case NodeKind::repeat: {
            const std::size_t child = program_size(node.children.front());
            const std::size_t fixed = times(child, node.min);
            if (!node.max) return add(fixed, add(child, 2));
            return add(fixed, times(add(child, 1), *node.max - node.min));
        }
        default:
            return 1;
    }
}

enum class Op : std::uint8_t {
    literal,
    any,
    char_class,
    begin,
    end,
    word_boundary,
    not_word_boundary,
    split,
    jump,
    match
};

struct Instruction {
    Op op = Op::match;
    std::uint32_t x = 0;  // literal character; jump/split target; class index
    std::uint32_t y = 0;  // split's second target
};

}  // namespace pattern_program

struct Pattern::Program {
    std::vector<pattern_program::Instruction> code;
    std::vector<pattern_program::CharClass> classes;
};

namespace pattern_program {

Instruction op_of(Op op) {
    return Instruction{.op = op, .x = 0, .y = 0};
}

class Compiler {
  public:
    explicit Compiler(Pattern::Program& program) : program_(program) {}

    void emit(const Node& node) {
        switch (node.kind) {
            case NodeKind::empty:
                return;
            case NodeKind::literal:
                push({.op = Op::literal, .x = node.literal, .y = 0});
                return;
            case NodeKind::any:
                push(op_of(Op::any));
                return;
            case NodeKind::char_class:
                push({.op = Op::char_class,
                      .x = static_cast<std::uint32_t>(node.class_index),
                      .y = 0});
                return;
            case NodeKind::begin:
                push(op_of(Op::begin));
                return;
            case NodeKind::end:
                push(op_of(Op::end));
                return;
            case NodeKind::word_boundary:
                push(op_of(Op::word_boundary));
                return;
            case NodeKind::not_word_boundary:
                push(op_of(Op::not_word_boundary));
                return;
            case NodeKind::concat:
                for (const Node& child : node.children) emit(child);
                return;
            case NodeKind::alternation:
                emit_alternation(node.children, 0);
                return;
            case NodeKind::repeat:
                emit_repeat(node);
                return;
        }
    }

    void push(Instruction instruction) { program_.code.push_back(instruction); }

  private:
    std::uint32_t here() const { return static_cast<std::uint32_t>(program_.code.size()); }

    void emit_alternation(const std::vector<Node>& branches, std::size_t first) {
        if (first + 1 == branches.size()) {
            emit(branches[first]);
            return;
        }
        const std::uint32_t split = here();
        push(op_of(Op::split));
        program_.code[split].x = here();
        emit(branches[first]);
        const std::uint32_t jump = here();
        push(op_of(Op::jump));
        program_.code[split].y = here();
        emit_alternation(branches, first + 1);
        program_.code[jump].x = here();
    }

    void emit_repeat(const Node& node) {
        const Node& body = node.children.front();
        for (unsigned i = 0; i < node.min; ++i) emit(body);
        if (!node.max) {
            const std::uint32_t loop = here();
            push(op_of(Op::split));
            program_.code[loop].x = here();
            emit(body);
            push({.op = Op::jump, .x = loop, .y = 0});
            program_.code[loop].y = here();
            return;
        }
        // (body(body(...)?)?)?: every optional copy may skip to the end.
        std::vector<std::uint32_t> exits;
        for (unsigned i = node.min; i < *node.max; ++i) {
            exits.push_back(here());
            push(op_of(Op::split));
            program_.code[exits.back()].x = here();
            emit(body);
        }
        for (std::uint32_t exit : exits) program_.code[exit].y = here();
    }

    Pattern::Program& program_;
};

// The set of live instructions at one position, in the order they were added.
class ThreadSet {
  public:
    explicit ThreadSet(std::size_t size) : index_(size, 0), dense_(size, 0) {}
    bool contains(std::uint32_t pc) const {
        const std::uint32_t slot = index_[pc];
        return slot < count_ && dense_[slot] == pc;
    }
    void insert(std::uint32_t pc) {
        index_[pc] = static_cast<std::uint32_t>(count_);
        dense_[count_++] = pc;
    }
    void clear() { count_ = 0; }
    std::size_t size() const { return count_; }
    std::uint32_t operator[](std::size_t i) const { return dense_[i]; }

  private:
    std::vector<std::uint32_t> index_;
    std::vector<std::uint32_t> dense_;
    std::size_t count_ = 0;
};

}  // namespace pattern_program

Pattern::Pattern(std::string source, std::shared_ptr<const Program> program)
    : source_(std::move(source)), program_(std::move(program)) {}
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;
Pattern::Pattern(const Pattern&) = default;
Pattern& Pattern::operator=(const Pattern&) = default;
Pattern::~Pattern() = default;

Result<Pattern> Pattern::compile(std::string_view pattern) {
    using namespace pattern_program;
    Parser parser(pattern);
    bool ignore_case = false;
    auto tree = parser.parse_all(ignore_case);
    if (!tree) return std::unexpected(tree.error());
    const std::size_t size = program_size(*tree) + 1;
    if (size > kMaxInstructions) {
        return fail("pattern too large: it compiles to more than " +
                    std::to_string(kMaxInstructions) + " steps (lower its repeat counts)");
    }
    auto program = std::make_shared<Program>();
    program->classes = std::move(parser.classes);
    program->code.reserve(size);
    Compiler compiler(*program);
    compiler.emit(*tree);
    compiler.push(op_of(Op::match));
    return Pattern(std::string(pattern), std::move(program));
}

bool search_process(const Pattern& pattern, const ProcessInfo& info) {
    if (pattern.search(info.comm)) return true;
    std::string joined;
    for (const std::string& argument : info.cmdline) {
        if (!joined.empty()) joined.push_back(' ');
        joined += argument;
        if (joined.size() >= kMaxCommandLineSearched) {
            joined.resize(kMaxCommandLineSearched);
            break;
        }
    }
    return pattern.search(joined);
}

bool Pattern::search(std::string_view text) const {
    using namespace pattern_program;
    const Program& program = *program_;
    std::vector<CodePoint> chars;
    chars.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) chars.push_back(decode_utf8(text, at));
    const std::size_t n = chars.size();

    ThreadSet current(program.code.size());
    ThreadSet next(program.code.size());
    std::vector<std::uint32_t> stack;
    bool matched = false;
    const auto word_at = [&](std::size_t i) { return i < n && is_word(chars[i]); };

    // Follows jumps, splits and assertions at position `i`; consuming instructions and
    // the match stay in the set.
    const auto add = [&](ThreadSet& set, std::uint32_t start, std::size_t i) {
        stack.push_back(start);
        while (!stack.empty()) {
            const std::uint32_t pc = stack.back();
            stack.pop_back();
            if (set.contains(pc)) continue;
            set.insert(pc);
            const Instruction& in = program.code[pc];
            const bool boundary = (i > 0 && word_at(i - 1)) != word_at(i);
            switch (in.op) {
                case Op::jump:
                    stack.push_back(in.x);
                    break;
                case Op::split:
                    stack.push_back(in.y);
                    stack.push_back(in.x);
                    break;
                case Op::begin:
                    if (i == 0) stack.push_back(pc + 1);
                    break;
                case Op::end:
                    if (i == n) stack.push_back(pc + 1);
                    break;
                case Op::word_boundary:
                    if (boundary) stack.push_back(pc + 1);
                    break;
                case Op::not_word_boundary:
                    if (!boundary) stack.push_back(pc + 1);
                    break;
                case Op::match:
                    matched = true;
                    break;
                default:
                    break;
            }
        }
    };

    for (std::size_t i = 0;; ++i) {
        add(current, 0, i);  // a match may start at any position
        if (matched) return true;
        if (i == n) return false;
        const CodePoint c = chars[i];
        for (std::size_t t = 0; t < current.size(); ++t) {
            const std::uint32_t pc = current[t];
            const Instruction& in = program.code[pc];
            const bool step = (in.op == Op::literal && in.x == c) || in.op == Op::any ||
                              (in.op == Op::char_class && program.classes[in.x].contains(c));
            if (step) add(next, pc + 1, i + 1);
        }
        if (matched) return true;
        std::swap(current, next);
        next.clear();
    }
}

}  // namespace gpukill::bench::before
