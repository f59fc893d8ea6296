# SPDX-License-Identifier: Apache-2.0
# sbx_install_man(PAGE COMPONENT): installs the roff page PAGE (name.N)
# compressed, as Debian policy wants (gzip -9n: reproducible).
function(sbx_install_man page component)
  get_filename_component(name ${page} NAME)
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${name})
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${name}.gz)
  add_custom_command(OUTPUT ${out}
                     COMMAND gzip -9n -c ${CMAKE_CURRENT_SOURCE_DIR}/${page} > ${out}
                     DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${page} VERBATIM)
  add_custom_target(man-${name} ALL DEPENDS ${out})
  install(FILES ${out} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section} COMPONENT ${component})
endfunction()
