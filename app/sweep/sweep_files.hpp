#pragma once
// An output file that appears only when it is complete: written as
// PATH.tmp and renamed over PATH on commit(), removed if never committed.
// A sweep that fails half-way, or is interrupted, then leaves no CSV that
// looks finished, so a later `ksim merge` cannot take it for a whole shard.
#include <fstream>
#include <string>

namespace ksim::app::sweep {

class AtomicFile {
 public:
  // Throws SweepError when the file cannot be created.
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  // Throws SweepError when writing or renaming failed.
  void commit();

 private:
  std::string path_;
  std::string temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

// PATH.json: the sidecar that describes the CSV at PATH.
std::string sidecar_path(const std::string& csv_path);

}  // namespace ksim::app::sweep
