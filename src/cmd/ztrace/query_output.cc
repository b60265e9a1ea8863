#include "src/cmd/ztrace/query_output.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace zt {
namespace ztrace {
namespace {

using processor::SqlValue;

// Display width: UTF-8 continuation bytes take no column.
size_t Width(const std::string& text) {
  size_t width = 0;
  for (unsigned char c : text)
    width += (c & 0xC0) != 0x80;
  return width;
}

std::string JsonNumber(const SqlValue& value) {
  if (value.type == SqlValue::kInt)
    return std::to_string(value.int_value);
  if (!std::isfinite(value.real_value))
    return "null";  // JSON has no NaN or infinity.
  return value.ToString();
}

}  // namespace

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos)
    return text;
  std::string quoted = "\"";
  for (char c : text) {
    quoted += c;
    if (c == '"')
      quoted += '"';
  }
  return quoted + "\"";
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void QueryPrinter::Begin(const std::vector<std::string>& columns) {
  End();
  open_ = true;
  columns_ = columns;
  rows_ = 0;
  switch (format_) {
    case QueryFormat::kTable:
      table_.clear();
      numeric_.assign(columns.size(), true);
      break;
    case QueryFormat::kCsv: {
      std::string line;
      for (size_t i = 0; i < columns.size(); i++)
        line += (i ? "," : "") + CsvField(columns[i]);
      fprintf(out_, "%s\n", line.c_str());
      break;
    }
    case QueryFormat::kJson:
      fputs("[", out_);
      break;
  }
}

void QueryPrinter::Row(const std::vector<SqlValue>& row) {
  switch (format_) {
    case QueryFormat::kTable: {
      std::vector<std::string> cells;
      for (size_t i = 0; i < row.size(); i++) {
        cells.push_back(row[i].is_null() ? "[NULL]" : row[i].ToString());
        if ((row[i].type == SqlValue::kText || row[i].type == SqlValue::kBlob) &&
            i < numeric_.size())
          numeric_[i] = false;
      }
      table_.push_back(std::move(cells));
      break;
    }
    case QueryFormat::kCsv: {
      std::string line;
      for (size_t i = 0; i < row.size(); i++)
        line += (i ? "," : "") + CsvField(row[i].ToString());
      fprintf(out_, "%s\n", line.c_str());
      break;
    }
    case QueryFormat::kJson: {
      std::string line = rows_ ? ",\n  {" : "\n  {";
      for (size_t i = 0; i < row.size() && i < columns_.size(); i++) {
        line += (i ? ", " : "") + JsonString(columns_[i]) + ": ";
        switch (row[i].type) {
          case SqlValue::kNull:
            line += "null";
            break;
          case SqlValue::kText:
          case SqlValue::kBlob:
            line += JsonString(row[i].text);
            break;
          default:
            line += JsonNumber(row[i]);
        }
      }
      fprintf(out_, "%s}", line.c_str());
      break;
    }
  }
  rows_++;
}

void QueryPrinter::End() {
  if (!open_)
    return;
  open_ = false;
  switch (format_) {
    case QueryFormat::kTable: {
      std::vector<size_t> widths;
      for (const std::string& column : columns_)
        widths.push_back(Width(column));
      for (const auto& cells : table_) {
        for (size_t i = 0; i < cells.size() && i < widths.size(); i++)
          widths[i] = std::max(widths[i], Width(cells[i]));
      }
      auto print_line = [&](const std::vector<std::string>& cells, bool header) {
        std::string line;
        for (size_t i = 0; i < cells.size() && i < widths.size(); i++) {
          const std::string pad(widths[i] - Width(cells[i]), ' ');
          const bool right = !header && numeric_[i];
          if (i)
            line += "  ";
          line += right ? pad + cells[i] : cells[i] + (i + 1 < cells.size() ? pad : "");
        }
        fprintf(out_, "%s\n", line.c_str());
      };
      print_line(columns_, true);
      std::string rule;
      for (size_t i = 0; i < widths.size(); i++)
        rule += (i ? "  " : "") + std::string(widths[i], '-');
      fprintf(out_, "%s\n", rule.c_str());
      for (const auto& cells : table_)
        print_line(cells, false);
      table_.clear();
      break;
    }
    case QueryFormat::kCsv:
      break;
    case QueryFormat::kJson:
      fputs(rows_ ? "\n]\n" : "]\n", out_);
      break;
  }
}

}  // namespace ztrace
}  // namespace zt
