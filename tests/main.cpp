#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "core/eigen_blocking.h"
#include "tasks/registry.h"

int main(int argc, char** argv) {
  pe::fix_eigen_blocking();  // as pe-bench does: the same product blocking on every CPU
  pe::register_tasks();      // and the tasks into the harness's table
  return doctest::Context(argc, argv).run();
}
