#include "src/processor/sql/perfetto_sql_parser.h"

#include <algorithm>
#include <cctype>

namespace zt {
namespace processor {
namespace sql {
namespace {

struct Token {
  enum Type { kWord, kPunct, kQuoted, kEnd };
  Type type = kEnd;
  size_t begin = 0;
  size_t end = 0;
};

bool IsWordStart(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool IsWordChar(char c) {
  return IsWordStart(c) || c == '$';
}

// SQLite's lexical rules, as far as finding tokens needs them.
class Lexer {
 public:
  Lexer(std::string_view text, size_t pos) : text_(text), pos_(pos) {}

  size_t pos() const { return pos_; }

  // Past blanks and comments.
  bool SkipBlank(std::string* error) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        pos_++;
      } else if (c == '-' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '-') {
        while (pos_ < text_.size() && text_[pos_] != '\n')
          pos_++;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        const size_t close = text_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) {
          *error = "unterminated comment at " + Where(text_, pos_);
          return false;
        }
        pos_ = close + 2;
      } else {
        return true;
      }
    }
    return true;
  }

  bool Next(Token* token, std::string* error) {
    if (!SkipBlank(error))
      return false;
    token->begin = pos_;
    if (pos_ >= text_.size()) {
      token->type = Token::kEnd;
      token->end = pos_;
      return true;
    }
    const char c = text_[pos_];
    if (c == '\'' || c == '"' || c == '`' || c == '[') {
      const char close = c == '[' ? ']' : c;
      size_t i = pos_ + 1;
      for (;; i++) {
        if (i >= text_.size()) {
          *error = std::string(c == '\'' ? "unterminated string" : "unterminated quoted name") +
                   " at " + Where(text_, pos_);
          return false;
        }
        if (text_[i] == close) {
          if (close != ']' && i + 1 < text_.size() && text_[i + 1] == close) {
            i++;  // A doubled quote stands for itself.
            continue;
          }
          break;
        }
      }
      pos_ = i + 1;
      token->type = Token::kQuoted;
    } else if (IsWordStart(c) ||
               (c == '$' && pos_ + 1 < text_.size() && IsWordStart(text_[pos_ + 1]))) {
      // Words, numbers, and $name parameters (a PerfettoSQL argument).
      pos_++;
      while (pos_ < text_.size() && IsWordChar(text_[pos_]))
        pos_++;
      token->type = Token::kWord;
    } else {
      pos_++;
      token->type = Token::kPunct;
    }
    token->end = pos_;
    return true;
  }

 private:
  std::string_view text_;
  size_t pos_;
};

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front()))))
    text.remove_prefix(1);
  while (!text.empty() && (std::isspace(static_cast<unsigned char>(text.back())) ||
                           text.back() == ';'))
    text.remove_suffix(1);
  return text;
}

// Reads a statement's tokens for the parser.
class Parser {
 public:
  Parser(std::string_view text, std::string* error) : text_(text), lexer_(text, 0), error_(error) {}

  bool Next(Token* token) { return lexer_.Next(token, error_); }
  std::string_view Text(const Token& token) const {
    return text_.substr(token.begin, token.end - token.begin);
  }
  bool IsKeyword(const Token& token, const char* keyword) const {
    return token.type == Token::kWord && Upper(Text(token)) == keyword;
  }
  // The next token, which must be `keyword`.
  bool Expect(const char* keyword, const std::string& context) {
    Token token;
    if (!Next(&token))
      return false;
    if (!IsKeyword(token, keyword))
      return Fail(context + ": expected " + keyword + " at " + Where(text_, token.begin));
    return true;
  }
  bool Fail(const std::string& message) {
    *error_ = message;
    return false;
  }
  // A name: a word or a quoted name (its quotes removed).
  bool Name(const std::string& context, std::string* name) {
    Token token;
    if (!Next(&token))
      return false;
    if (token.type == Token::kWord) {
      *name = std::string(Text(token));
      return true;
    }
    if (token.type == Token::kQuoted && text_[token.begin] != '\'') {
      *name = std::string(text_.substr(token.begin + 1, token.end - token.begin - 2));
      return true;
    }
    return Fail(context + ": expected a name at " + Where(text_, token.begin));
  }
  // `(name TYPE, ...)`, the opening parenthesis already read.
  bool ArgList(const std::string& context, std::vector<PerfettoStatement::Arg>* args) {
    int depth = 0;
    PerfettoStatement::Arg arg;
    size_t type_begin = std::string_view::npos, type_end = 0;
    bool has_name = false;
    auto finish = [&]() {
      if (!has_name)
        return args->empty() && type_begin == std::string_view::npos;
      if (type_begin == std::string_view::npos)
        return false;
      std::string type;
      for (char c : text_.substr(type_begin, type_end - type_begin)) {
        if (!std::isspace(static_cast<unsigned char>(c)))
          type += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      }
      arg.type = type;
      args->push_back(arg);
      arg = PerfettoStatement::Arg();
      has_name = false;
      type_begin = std::string_view::npos;
      return true;
    };
    for (;;) {
      Token token;
      if (!Next(&token))
        return false;
      if (token.type == Token::kEnd)
        return Fail(context + ": the argument list never closes");
      const std::string_view t = Text(token);
      if (depth == 0 && token.type == Token::kPunct && (t == "," || t == ")")) {
        const bool closing = t == ")";
        if (!finish() && !(closing && args->empty() && !has_name))
          return Fail(context + ": expected 'name TYPE' before " + Where(text_, token.begin));
        if (closing)
          return true;
        continue;
      }
      if (token.type == Token::kPunct && t == "(")
        depth++;
      if (token.type == Token::kPunct && t == ")")
        depth--;
      if (!has_name) {
        if (token.type != Token::kWord)
          return Fail(context + ": expected an argument name at " + Where(text_, token.begin));
        arg.name = std::string(t);
        has_name = true;
        continue;
      }
      if (type_begin == std::string_view::npos)
        type_begin = token.begin;
      type_end = token.end;
    }
  }
  // The rest of the statement, past AS.
  std::string Rest() const { return std::string(Trim(text_.substr(lexer_.pos()))); }

 private:
  std::string_view text_;
  Lexer lexer_;
  std::string* error_;
};

}  // namespace

std::string Where(std::string_view text, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); i++) {
    if (text[i] == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

bool NextStatement(std::string_view text, size_t pos, size_t* begin, size_t* end,
                   std::string* error) {
  Lexer lexer(text, pos);
  if (!lexer.SkipBlank(error))
    return false;
  *begin = lexer.pos();
  for (;;) {
    Token token;
    if (!lexer.Next(&token, error))
      return false;
    if (token.type == Token::kEnd) {
      *end = text.size();
      return true;
    }
    if (token.type == Token::kPunct && text[token.begin] == ';') {
      *end = token.end;
      return true;
    }
  }
}

bool ParsePerfettoStatement(std::string_view statement, PerfettoStatement* out,
                            std::string* error) {
  *out = PerfettoStatement();
  Parser p(statement, error);
  Token first, token;
  if (!p.Next(&first))
    return false;
  if (p.IsKeyword(first, "INCLUDE")) {
    if (!p.Next(&token))
      return false;
    if (!p.IsKeyword(token, "PERFETTO"))
      return true;  // Not ours: SQLite will say what it makes of it.
    if (!p.Expect("MODULE", "INCLUDE PERFETTO MODULE"))
      return false;
    out->kind = PerfettoStatement::kInclude;
    out->name = p.Rest();
    for (char c : out->name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '*')
        return p.Fail("INCLUDE PERFETTO MODULE: '" + out->name + "' is not a module name "
                      "(dotted words, as in slices.with_context, or a prefix and .*)");
    }
    if (out->name.empty())
      return p.Fail("INCLUDE PERFETTO MODULE: the module name is missing");
    return true;
  }
  if (!p.IsKeyword(first, "CREATE"))
    return true;
  if (!p.Next(&token))
    return false;
  bool replace = false;
  if (p.IsKeyword(token, "OR")) {
    if (!p.Expect("REPLACE", "CREATE OR"))
      return false;
    replace = true;
    if (!p.Next(&token))
      return false;
  }
  if (!p.IsKeyword(token, "PERFETTO"))
    return true;
  Token kind_token;
  if (!p.Next(&kind_token))
    return false;
  const std::string kind = Upper(p.Text(kind_token));
  const std::string context = "CREATE PERFETTO " + kind;
  out->replace = replace;
  if (kind == "TABLE" || kind == "VIEW") {
    out->kind = kind == "TABLE" ? PerfettoStatement::kTable : PerfettoStatement::kView;
    if (!p.Name(context, &out->name) || !p.Next(&token))
      return false;
    if (token.type == Token::kPunct && p.Text(token) == "(") {
      if (!p.ArgList(context + " " + out->name, &out->columns) || !p.Next(&token))
        return false;
    }
    if (!p.IsKeyword(token, "AS"))
      return p.Fail(context + " " + out->name + ": expected AS at " +
                    Where(statement, token.begin));
  } else if (kind == "FUNCTION" || kind == "MACRO") {
    out->kind = kind == "FUNCTION" ? PerfettoStatement::kFunction : PerfettoStatement::kMacro;
    if (!p.Name(context, &out->name) || !p.Next(&token))
      return false;
    const std::string named = context + " " + out->name;
    if (token.type != Token::kPunct || p.Text(token) != "(")
      return p.Fail(named + ": expected ( and the arguments at " + Where(statement, token.begin));
    if (!p.ArgList(named, &out->args))
      return false;
    if (!p.Expect("RETURNS", named + " (after the arguments)") || !p.Next(&token))
      return false;
    if (token.type != Token::kWord)
      return p.Fail(named + ": expected the return type at " + Where(statement, token.begin));
    out->returns = Upper(p.Text(token));
    if (!p.Next(&token))
      return false;
    if (out->returns == "TABLE") {
      if (token.type != Token::kPunct || p.Text(token) != "(")
        return p.Fail(named + ": expected ( and the columns after RETURNS TABLE at " +
                      Where(statement, token.begin));
      if (!p.ArgList(named, &out->columns) || !p.Next(&token))
        return false;
    } else if (token.type == Token::kPunct && p.Text(token) == "(") {
      // A parameterized type (JOINID(slice.id)): part of the type.
      int depth = 1;
      while (depth > 0) {
        if (!p.Next(&token))
          return false;
        if (token.type == Token::kEnd)
          return p.Fail(named + ": the return type never closes");
        if (p.Text(token) == "(")
          depth++;
        if (p.Text(token) == ")")
          depth--;
      }
      if (!p.Next(&token))
        return false;
    }
    if (!p.IsKeyword(token, "AS"))
      return p.Fail(named + ": expected AS after the return type at " +
                    Where(statement, token.begin));
  } else if (kind == "INDEX") {
    out->kind = PerfettoStatement::kIndex;
    if (!p.Name(context, &out->name) || !p.Expect("ON", context + " " + out->name))
      return false;
  } else {
    return p.Fail("CREATE PERFETTO " + std::string(p.Text(kind_token)) +
                  ": not a PerfettoSQL statement (TABLE, VIEW, FUNCTION, MACRO or INDEX)");
  }
  out->body = p.Rest();
  if (out->body.empty())
    return p.Fail(context + " " + out->name + ": nothing after " +
                  (kind == "INDEX" ? "ON" : "AS"));
  return true;
}

namespace {

constexpr int kMaxMacroDepth = 64;
// A macro that uses an argument twice doubles its text at each level:
// nested calls could grow without bound before the depth limit.
constexpr size_t kMaxExpansionBytes = 16u << 20;
// The text read while expanding, over every level (32 MiB): a call's arguments are
// read at its level and again in the body they are put into, so nested
// calls read the same bytes up to kMaxMacroDepth times. Bounding the output
// alone let a 2 KB statement take seconds (found by perfetto_sql_parser_fuzzer).
constexpr size_t kMaxExpansionWork = 32u << 20;

bool Expand(std::string_view text, MacroLookup lookup, const void* data, int depth,
            size_t* work, std::string* out, std::string* error) {
  *work += text.size();
  if (*work > kMaxExpansionWork) {
    *error = "the macros expand past 32 MiB of text to read (do calls nest too deep?)";
    return false;
  }
  if (text.find("!(") == std::string_view::npos) {
    out->append(text);
    return true;
  }
  Lexer lexer(text, 0);
  size_t copied = 0;
  for (;;) {
    Token token;
    if (!lexer.Next(&token, error))
      return false;
    if (token.type == Token::kEnd)
      break;
    // name ! ( ... )
    if (token.type == Token::kWord && token.end + 1 < text.size() && text[token.end] == '!' &&
        text[token.end + 1] == '(') {
      const std::string_view name = text.substr(token.begin, token.end - token.begin);
      const Macro* macro = lookup(data, name);
      if (!macro) {
        *error = "no macro named " + std::string(name) + " (at " + Where(text, token.begin) +
                 "); CREATE PERFETTO MACRO defines one";
        return false;
      }
      if (depth >= kMaxMacroDepth) {
        *error = "macro " + std::string(name) + " expands more than " +
                 std::to_string(kMaxMacroDepth) + " levels deep (does it expand into itself?)";
        return false;
      }
      Token skip;
      lexer.Next(&skip, error);  // !
      lexer.Next(&skip, error);  // (
      std::vector<std::string> args;
      size_t arg_begin = skip.end;
      int parens = 1;
      for (;;) {
        Token t;
        if (!lexer.Next(&t, error))
          return false;
        if (t.type == Token::kEnd) {
          *error = "the call of macro " + std::string(name) + " at " + Where(text, token.begin) +
                   " never closes";
          return false;
        }
        if (t.type != Token::kPunct)
          continue;
        const char c = text[t.begin];
        if (c == '(')
          parens++;
        if ((c == ',' && parens == 1) || (c == ')' && parens == 1)) {
          args.emplace_back(Trim(text.substr(arg_begin, t.begin - arg_begin)));
          arg_begin = t.end;
        }
        if (c == ')' && --parens == 0)
          break;
      }
      if (args.size() == 1 && args[0].empty() && macro->args.empty())
        args.clear();
      if (args.size() != macro->args.size()) {
        *error = "macro " + std::string(name) + " takes " + std::to_string(macro->args.size()) +
                 " argument(s), the call at " + Where(text, token.begin) + " gives " +
                 std::to_string(args.size());
        return false;
      }
      std::string body;
      if (macro->native) {
        std::string native_error;
        if (!macro->native(args, &body, &native_error)) {
          *error = std::string(name) + "!: " + native_error + " (at " +
                   Where(text, token.begin) + ")";
          return false;
        }
      }
      // The body with each $arg replaced by its text.
      Lexer body_lexer(macro->body, 0);
      size_t body_copied = 0;
      for (; !macro->native;) {
        Token t;
        if (!body_lexer.Next(&t, error))
          return false;
        if (t.type == Token::kEnd)
          break;
        if (t.type != Token::kWord || macro->body[t.begin] != '$')
          continue;
        const std::string_view word(macro->body.data() + t.begin + 1, t.end - t.begin - 1);
        for (size_t i = 0; i < macro->args.size(); i++) {
          if (macro->args[i] == word) {
            body.append(macro->body, body_copied, t.begin - body_copied);
            body += args[i];
            body_copied = t.end;
            break;
          }
        }
      }
      if (!macro->native)
        body.append(macro->body, body_copied, std::string::npos);
      out->append(text.substr(copied, token.begin - copied));
      if (!Expand(body, lookup, data, depth + 1, work, out, error)) {
        // Where the user's text called what failed, not only where in the
        // macro's body.
        if (depth == 0)
          *error += ", in " + std::string(name) + "! at " + Where(text, token.begin);
        return false;
      }
      if (out->size() > kMaxExpansionBytes) {
        *error = "the expansion of macro " + std::string(name) + " at " +
                 Where(text, token.begin) + " exceeds 16 MiB";
        return false;
      }
      copied = lexer.pos();
    }
  }
  out->append(text.substr(copied));
  return true;
}

}  // namespace

bool SplitMacroList(std::string_view list, std::vector<std::string>* items, std::string* error) {
  items->clear();
  list = Trim(list);
  if (list.size() < 2 || list.front() != '(' || list.back() != ')') {
    *error = "expected a list in parentheses, as (a, b), not '" + std::string(list) + "'";
    return false;
  }
  const std::string_view inner = list.substr(1, list.size() - 2);
  Lexer lexer(inner, 0);
  size_t item_begin = 0;
  int parens = 0;
  for (;;) {
    Token t;
    if (!lexer.Next(&t, error))
      return false;
    const bool end = t.type == Token::kEnd;
    if (!end && t.type != Token::kPunct)
      continue;
    const char c = end ? ',' : inner[t.begin];
    if (c == '(')
      parens++;
    if (c == ')' && --parens < 0) {
      *error = "unbalanced parentheses in the list '" + std::string(list) + "'";
      return false;
    }
    if (c == ',' && parens == 0) {
      const std::string_view item = Trim(inner.substr(item_begin, t.begin - item_begin));
      if (item.empty() && !(end && items->empty())) {
        *error = "an empty item in the list '" + std::string(list) + "'";
        return false;
      }
      if (!item.empty())
        items->emplace_back(item);
      item_begin = t.end;
    }
    if (end)
      break;
  }
  if (parens != 0) {
    *error = "unbalanced parentheses in the list '" + std::string(list) + "'";
    return false;
  }
  return true;
}

bool ExpandColumnList(const std::vector<std::string>& args, std::string* body,
                      std::string* error) {
  std::vector<std::string> items;
  if (!SplitMacroList(args[0], &items, error))
    return false;
  if (items.empty()) {
    *error = "needs at least one column, as (a) or (a, b)";
    return false;
  }
  body->clear();
  for (const std::string& item : items)
    *body += (body->empty() ? "" : ", ") + item;
  return true;
}

bool ExpandTokenApply(const std::vector<std::string>& args, std::string* body,
                      std::string* error) {
  const std::string& macro = args[0];
  const bool identifier =
      !macro.empty() && std::all_of(macro.begin(), macro.end(), [](char c) {
        return isalnum(static_cast<unsigned char>(c)) || c == '_';
      });
  if (!identifier) {
    *error = "the first argument must name a macro, not '" + macro + "'";
    return false;
  }
  std::vector<std::string> items;
  if (!SplitMacroList(args[1], &items, error))
    return false;
  body->clear();
  for (const std::string& item : items)
    *body += (body->empty() ? "" : ", ") + macro + "!(" + item + ")";
  return true;
}

bool ExpandMacros(std::string_view text, MacroLookup lookup, const void* data, std::string* out,
                  std::string* error) {
  out->clear();
  size_t work = 0;
  return Expand(text, lookup, data, 0, &work, out, error);
}

}  // namespace sql
}  // namespace processor
}  // namespace zt
