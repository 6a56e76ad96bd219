// Self-describing checkpoints (docs/checkpoint-format.md): the envelope every task shares — format
// name and version, task, the task's model section, the scheme section, a training summary, the
// build, and every parameter by name with shape and row-major data. Each task writes and reads its
// model section (tasks/<task>/checkpoint.h) through these.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/errors.h"
#include "core/params.h"
#include "schemes/scheme.h"

namespace pe {

inline constexpr const char* kCheckpointFormat = "pe-bench-checkpoint";
inline constexpr int kCheckpointVersion = 1;

// The scheme section: name, shape, the published five's settings, the scheme's declared settings.
nlohmann::json scheme_config_to_json(const SchemeConfig& c);
SchemeConfig scheme_config_from_json(const nlohmann::json& j);

// A checkpoint of `task`: the envelope around the task's model section and the parameters (values
// laid out by `layout`); `extra` adds task fields (e.g. the char LM's vocabulary).
nlohmann::json checkpoint_envelope(const std::string& task, const nlohmann::json& model, const SchemeConfig& scheme,
                                   const nlohmann::json& training, const ParamLayout& layout, const float* values,
                                   const nlohmann::json& extra = nlohmann::json::object());
// The checkpoint as text: indented JSON with each parameter's data on one line.
std::string checkpoint_text(const nlohmann::json& checkpoint);

// Reading one: the constructor parses the file and checks format, version and task (empty: any);
// every problem is one CheckpointError naming the file.
class CheckpointReader {
 public:
  CheckpointReader(const std::string& path, const std::string& task);
  const std::string& path() const { return path_; }
  const nlohmann::json& json_() const { return j_; }
  CheckpointError fail(const std::string& why) const;
  // A sound checkpoint that cannot be read as asked (another task, another head): "checkpoint <path>: <why>",
  // with no advice to retrain it (why says what to do instead).
  CheckpointError mismatch(const std::string& why) const;
  SchemeConfig scheme() const;
  // Fills values (laid out by layout) from the params; every tensor with its shape, only numbers.
  void params(const ParamLayout& layout, float* values) const;
  // Runs `read`; a missing or mistyped field, or a setting the scheme code refuses, becomes fail().
  template <class F>
  auto fields(F&& read) const {
    try {
      return read();
    } catch (const nlohmann::json::exception& e) {
      throw fail(std::string("malformed (") + e.what() + ")");
    } catch (const CheckpointError&) {
      throw;
    } catch (const UsageError& e) {
      throw fail(e.what());
    }
  }
  // The whole file minus the parameters (the reader is spent).
  nlohmann::json meta();

 private:
  std::string path_;
  nlohmann::json j_;
};

// The task field of a checkpoint; CheckpointError when it is not a checkpoint.
std::string checkpoint_task(const std::string& path);
// The one task of several checkpoints; UsageError naming two of another task ("... ; <verb> one task at a time").
std::string common_checkpoint_task(const std::vector<std::string>& paths, const std::string& verb);
// What a reader (eval, analyze) reads: the checkpoints given, whose one task it is (`task`, when given, must be
// it); or every checkpoint below runs_dir, of `task` when given (a filter), else of the one task they hold
// (UsageError naming two tasks when they hold several; "... pass --task to <verb> one of them").
struct CheckpointsToRead {
  std::string task;
  std::vector<std::string> paths;
};
CheckpointsToRead checkpoints_to_read(const std::string& task, const std::vector<std::string>& checkpoints,
                                      const std::string& runs_dir, const std::string& verb);
// Every checkpoint.json below dir (sorted); with a task, only that task's checkpoints. Throws
// UsageError when there is none.
std::vector<std::string> find_checkpoints(const std::string& dir, const std::string& task = "");

// Refuses (UsageError) a list that holds one run twice — the same file, or two files of the same
// task, scheme, seed, frequency-plan map and randomised-positions range (a copied run directory): every
// reading would count that seed twice in the mean and narrow its interval. Unreadable files are left to
// the loader.
void check_distinct_runs(const std::vector<std::string>& checkpoints);

}  // namespace pe
