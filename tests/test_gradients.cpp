// Every hand-written gradient against central differences in double precision.
#include <doctest/doctest.h>

#include "harness/task.h"
#include "models/gradcheck.h"
#include "schemes/scheme.h"
#include "tasks/cue/gradcheck.h"
#include "tasks/filings/gradcheck.h"

using namespace pe;

TEST_CASE("cue model gradients match central differences for every scheme and tensor") {
  for (auto& s : scheme_list()) {
    if (s.min_layers > 1) continue;  // a per-layer hybrid needs the char LM's layers (checked below)
    const auto rows = gradcheck_cue(s.name);
    CHECK(rows.size() >= 3);  // tok_emb, w_qkv, w_out (+ the scheme's own)
    for (auto& r : rows) {
      INFO(r.what, " ", r.tensor, " worst rel ", r.max_rel, " worst abs ", r.max_abs);
      CHECK(r.count > 0);
      CHECK(r.ok);
    }
  }
}

TEST_CASE("the head answering at every position (filings): gradients match central differences for every scheme") {
  for (auto& s : scheme_list()) {
    if (s.min_layers > 1) continue;
    const auto rows = gradcheck_head_every_position(s.name);
    CHECK(rows.size() >= 3);
    for (auto& r : rows) {
      INFO(r.what, " ", r.tensor, " worst rel ", r.max_rel, " worst abs ", r.max_abs);
      CHECK(r.count > 0);
      CHECK(r.ok);
    }
  }
}

TEST_CASE("every task's model: gradients match central differences for every scheme it can hold") {
  for (auto* task : task_list()) {
    int rows = 0;
    for (auto& s : scheme_list())
      for (auto& r : task->trainer().gradcheck(s.name)) {
        INFO(task->name(), " ", r.what, " ", r.tensor, " worst rel ", r.max_rel, " worst abs ", r.max_abs);
        CHECK(r.count > 0);
        CHECK(r.ok);
        ++rows;
      }
    CHECK(rows > 0);
  }
}

TEST_CASE("the passkey model's gradient ignores the filler rows and covers every scheme") {
  const Task& passkey = find_task("passkey");
  for (auto& s : scheme_list()) {
    const auto rows = passkey.trainer().gradcheck(s.name);
    CHECK(rows.size() >= 5);  // tok_emb, 2 x (w_qkv, w_proj) (+ the scheme's own)
  }
}

TEST_CASE("multi-head causal attention layer gradients match central differences for every scheme") {
  for (auto& s : scheme_list()) {
    for (auto& r : gradcheck_attention(s.name)) {
      INFO(r.what, " ", r.tensor, " worst rel ", r.max_rel, " worst abs ", r.max_abs);
      CHECK(r.ok);
    }
  }
}

TEST_CASE("the learned table's gradient reaches only the rows the batch used") {
  const auto rows = gradcheck_cue("learned");
  bool found = false;
  for (auto& r : rows) found |= (r.tensor == "pos.table");
  CHECK(found);
}
