# SPDX-License-Identifier: Apache-2.0
# sbx_man_from_table(TEMPLATE TARGET COMPONENT): writes the man page
# TEMPLATE (name.N.in, in the current source directory) into the current
# binary directory, its option lists from TARGET's option tables
# (man_from_table.cmake), and installs it compressed, as Debian policy
# wants (gzip -9n: reproducible).
set(SBX_MAN_FROM_TABLE ${CMAKE_CURRENT_LIST_DIR}/man_from_table.cmake)
function(sbx_man_from_table template target component)
  get_filename_component(name ${template} NAME)
  string(REGEX REPLACE "\\.in$" "" name ${name})
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${name})
  set(page ${CMAKE_CURRENT_BINARY_DIR}/${name})
  set(out ${page}.gz)
  add_custom_command(OUTPUT ${page}
                     COMMAND ${CMAKE_COMMAND} -DBINARY=$<TARGET_FILE:${target}>
                             -DTEMPLATE=${CMAKE_CURRENT_SOURCE_DIR}/${template} -DOUTPUT=${page}
                             -P ${SBX_MAN_FROM_TABLE}
                     DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${template} ${target} ${SBX_MAN_FROM_TABLE}
                     VERBATIM)
  add_custom_command(OUTPUT ${out} COMMAND gzip -9n -c ${page} > ${out} DEPENDS ${page} VERBATIM)
  add_custom_target(man-${name} ALL DEPENDS ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ${component})
endfunction()
