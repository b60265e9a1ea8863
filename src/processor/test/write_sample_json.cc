// Writes the sample storage (sample_storage.h) as JSON to the file named by
// argv[1], or stdout for "-": the browser test's input until it can convert
// a recorded fixture.

#include <stdio.h>

#include "src/processor/exporters/export_json.h"
#include "src/processor/test/sample_storage.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT.json|-\n", argv[0]);
    return 2;
  }
  const bool to_stdout = argv[1][0] == '-' && argv[1][1] == '\0';
  FILE* out = to_stdout ? stdout : fopen(argv[1], "w");
  if (!out) {
    perror(argv[1]);
    return 1;
  }
  zt::processor::TraceStorage storage;
  zt::processor::test::FillSampleStorage(&storage);
  zt::processor::FileJsonSink sink(out);
  const zt::processor::JsonExportResult result = zt::processor::ExportJson(storage, &sink);
  if (!to_stdout && fclose(out) != 0 && result.ok) {
    perror(argv[1]);
    return 1;
  }
  for (const std::string& note : result.notes) fprintf(stderr, "note: %s\n", note.c_str());
  if (!result.ok) {
    fprintf(stderr, "%s: %s\n", argv[1], result.error.c_str());
    return 1;
  }
  return 0;
}
