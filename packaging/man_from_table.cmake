# SPDX-License-Identifier: Apache-2.0
# Writes a man page from its template: each line "@OPTIONS COMMAND GROUP@"
# becomes the .TP rows the binary prints from its option table
# (BINARY --man-options COMMAND:GROUP). A template line naming no rows, or
# a binary that refuses, fails the build.
#   cmake -DBINARY=... -DTEMPLATE=page.1.in -DOUTPUT=page.1 -P man_from_table.cmake
file(READ ${TEMPLATE} text)
string(REGEX MATCHALL "@OPTIONS [a-z]+ [a-z]+@" markers "${text}")
if(NOT markers)
  message(FATAL_ERROR "${TEMPLATE}: no @OPTIONS COMMAND GROUP@ line")
endif()
foreach(marker ${markers})
  string(REGEX REPLACE "@OPTIONS ([a-z]+) ([a-z]+)@" "\\1:\\2" what "${marker}")
  execute_process(COMMAND ${BINARY} --man-options ${what} OUTPUT_VARIABLE rows
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR rows STREQUAL "")
    message(FATAL_ERROR "${TEMPLATE}: ${BINARY} --man-options ${what}: exit ${rc}, no rows")
  endif()
  string(REPLACE "${marker}\n" "${rows}" text "${text}")
endforeach()
file(WRITE ${OUTPUT}.tmp "${text}")
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
