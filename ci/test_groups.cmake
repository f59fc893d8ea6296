# SPDX-License-Identifier: Apache-2.0
# Every ctest in one group, named by a label, so that a developer can run a
# group (`ctest -L unit`) and the sanitizer build can run only the groups
# where instrumented code earns its time (ci/test.sh --sanitize runs
# unit|interop|fuzz|clean|faults). A test a CMakeLists.txt already labelled
# keeps its label; the others get theirs here, from their names. A test that
# matches no rule below is a "proof" (variants, sweeps, packages, images, the
# transport and TLS set-ups, load and attack tests): regular build only.
#
#   unit     no daemon, or a daemon driven in-process; seconds
#   interop  real peers and clients against the daemon and the suite; seconds
#   fuzz     the fuzz targets replaying their corpora
#   clean    the whole suite against the clean sandboxd-ref
#   faults   the fault matrix (one ctest per fault) and the daemon's own
#            fault probes
#   static   style, static analysis and generated-file checks; no test binary
#   proof    everything else (the slowest group)
set(SBX_TEST_GROUP_RULES
    "unit:^(grpc_(wire|session|output|inbox|client_peer)_test|fs_(resolve|atomic_write)|rest_(units|multipart|api|faults)|proc_(spawn|manager|env_cwd)|runner_units|rest_wire_test|openapi_[a-z]+_test|payload_test|prefix_flag_test|bench_unit|compare_results|cli_options_test|daemon_options)$"
    "interop:^(grpc_interop_.*|daemon_(exec|start|grpc|lifecycle|hostile_.*|stream_end_.*|reflection_upstream_names|fault_unknown_name)|runner_(end_to_end|hostile_[a-z]+|launches_sandboxd_ref)|bench_(smoke_launch|smoke_attach|cli))$"
    "fuzz:^fuzz_replay_"
    "clean:^cases_clean_daemon_passes$"
    "faults:^(cases_catch_fault_.*|daemon_faults_[0-9]+)$"
    "static:^(grpc_symbols_prefixed|licence_spdx_every_file|style_clang_format|static_cppcheck|proto_contract|openapi_document|contract_.*|daemon_(fault_table|sources_fault_free|binary_fault_free|static_binary_fault_free|links_without_tls)|man_pages_.*|deploy_manifests_.*)$")

# The properties of a test that runs the whole suite or most of it (variant
# sets, sweeps, the sentinel, packages, images, the nginx proofs): such a run
# keeps about one core busy, while most other tests (a fault's ctest: about
# 12 % of a core) wait on sockets and timers. Each takes two ctest slots and
# one "whole_run" resource; ci/test.sh gives ctest one such resource per
# core (--resource-spec-file), so whole runs never outnumber the cores while
# the waiting tests fill the other slots. SBX_WHOLE_RUN_ALONE takes every
# whole_run resource: no other whole run beside it (the clean pass, which
# must pass every case).
set(SBX_WHOLE_RUN PROCESSORS 2 RESOURCE_GROUPS "whole_run:1")
set(SBX_WHOLE_RUN_ALONE PROCESSORS 2 RESOURCE_GROUPS "2,whole_run:1")

# Labels the tests of the calling directory; each CMakeLists.txt that adds
# tests schedules it for its end: cmake_language(DEFER CALL sbx_label_tests).
function(sbx_label_tests)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t ${tests})
    get_test_property(${t} LABELS have)
    if(have)
      continue()
    endif()
    set(group proof)
    foreach(rule ${SBX_TEST_GROUP_RULES})
      string(REGEX REPLACE ":.*" "" name ${rule})
      string(REGEX REPLACE "^[a-z]+:" "" pattern ${rule})
      if(t MATCHES "${pattern}")
        set(group ${name})
        break()
      endif()
    endforeach()
    set_tests_properties(${t} PROPERTIES LABELS ${group})
  endforeach()
endfunction()
