#include "src/cmd/ztrace/templight_view.h"

#include <cinttypes>

namespace zt {
namespace ztrace {

const char* TemplightView::Usage() {
  return "  --blacklist FILE  Templight: leave out instantiations whose name matches\n"
         "              a line 'context REGEX' or 'identifier REGEX' of FILE\n"
         "              (templight-tools' blacklist), with all they hold\n"
         "  --instantiations-only\n"
         "              Templight: only template instantiations; other kinds move\n"
         "              what they hold up to their parent, memoizations fold into\n"
         "              the instantiation they stand for\n";
}

bool TemplightView::ParseOption(const std::vector<std::string>& args, size_t* i,
                                std::string* error) {
  error->clear();
  const std::string& arg = args[*i];
  if (arg == "--instantiations-only") {
    instantiations_only_ = true;
    return true;
  }
  if (arg == "--blacklist") {
    if (*i + 1 >= args.size() || args[*i + 1].empty()) {
      *error = "--blacklist needs a file";
      return false;
    }
    blacklist_path_ = args[++*i];
    return true;
  }
  return false;
}

bool TemplightView::Load(std::string* error) {
  return blacklist_path_.empty() || blacklist_.Load(blacklist_path_, error);
}

void TemplightView::Apply(processor::TraceStorage* storage, const std::string& path,
                          FILE* err) const {
  if (!active())
    return;
  if (storage->templight_units.empty()) {
    fprintf(err, "ztrace: %s is not a Templight trace: --blacklist and --instantiations-only do "
                 "not apply\n", path.c_str());
    return;
  }
  const processor::TemplightFilterResult result = processor::FilterTemplight(
      storage, blacklist_path_.empty() ? nullptr : &blacklist_, instantiations_only_);
  if (!blacklist_path_.empty())
    fprintf(err, "ztrace: %s: %" PRIu64 " instantiations left out by the blacklist\n", path.c_str(),
            result.blacklisted);
  if (instantiations_only_)
    fprintf(err, "ztrace: %s: %" PRIu64 " entries that are not instantiations folded away\n",
            path.c_str(), result.not_instantiations);
}

}  // namespace ztrace
}  // namespace zt
