// Typed errors thrown by the library; main() turns each into one line and an exit code.
#pragma once
#include <stdexcept>
#include <string>

namespace pe {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  virtual int exit_code() const { return 1; }
};
// The user asked for something malformed: unknown scheme/key, bad length list, wrong type.
struct UsageError : Error {
  using Error::Error;
  int exit_code() const override { return 2; }
};
// A config or experiment file is wrong (unknown key, wrong type, invalid JSON).
struct ConfigError : UsageError {
  using UsageError::UsageError;
};
// A checkpoint is missing, corrupt, of another version, or does not match the model.
struct CheckpointError : Error {
  using Error::Error;
  CheckpointError(const std::string& what, const std::string& why) : Error(what), why(why) {}
  std::string why;  // the problem alone, without the file's name and the advice (empty: what() is all)
  int exit_code() const override { return 3; }
};
// A data file (corpus) is missing or differs from what is expected.
struct DataError : Error {
  using Error::Error;
  int exit_code() const override { return 4; }
};
// Reading or writing a file failed.
struct IoError : Error {
  using Error::Error;
  int exit_code() const override { return 5; }
};

// Training met a non-finite loss or parameter (too high a learning rate, usually); nothing was written.
struct TrainingDiverged : Error {
  using Error::Error;
  int exit_code() const override { return 7; }
};

// SIGINT or SIGTERM stopped training at a step boundary; the runs in progress saved a state that
// --resume continues from (harness/training_state.h).
struct Interrupted : Error {
  Interrupted(const std::string& what, bool saved) : Error(what), saved_state(saved) {}
  int exit_code() const override { return 8; }
  bool saved_state;  // false: the run had not started
};

// Two output trees compared by `pe-bench diff` are not the same (the differences are printed first).
struct OutputsDiffer : Error {
  using Error::Error;
  int exit_code() const override { return 6; }
};

// `pe-bench doctor`: an invariant expected of a model does not hold (its FAIL row says which).
struct InvariantBroken : Error {
  using Error::Error;
  int exit_code() const override { return 9; }
};

}  // namespace pe
