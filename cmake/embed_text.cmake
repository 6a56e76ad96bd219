# Writes a text file as a C++ raw string literal (the laboratory's page, src/lab/page.html, built
# into pe-bench so that `pe-bench lab` works from any directory). Usage: cmake -DIN=... -DOUT=... -P
file(READ "${IN}" text)
string(FIND "${text}" ")PEBENCH_TEXT\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains the raw string's closing delimiter")
endif()
file(WRITE "${OUT}.tmp" "R\"PEBENCH_TEXT(${text})PEBENCH_TEXT\"\n")
file(RENAME "${OUT}.tmp" "${OUT}")
