# The corpus (corpus/README.md): one CTest test per fixture and mode.
#
#   corpus.run.NAME.jit     woc run corpus/run/NAME
#   corpus.run.NAME.native  woc build corpus/run/NAME, then run the executable
#   corpus.fail.NAME        woc check corpus/compile-fail/NAME exits 1 naming expected.code
#
# All carry the label `corpus` (ctest -L corpus); actor and multi-shard
# fixtures also `tsan` (`make test-tsan`). scripts/run-fixture.sh does
# the checking. The fixture folders are globbed with CONFIGURE_DEPENDS, so a
# new fixture is picked up by the next build without re-running cmake by hand.
set(WO_FIXTURE_RUNNER ${CMAKE_SOURCE_DIR}/scripts/run-fixture.sh)

function(wo_fixture_dirs out kind)
  file(GLOB _entries LIST_DIRECTORIES true CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/corpus/${kind}/*)
  set(_dirs "")
  foreach(_e IN LISTS _entries)
    if(IS_DIRECTORY ${_e})
      list(APPEND _dirs ${_e})
    endif()
  endforeach()
  list(SORT _dirs)
  set(${out} ${_dirs} PARENT_SCOPE)
endfunction()

wo_fixture_dirs(_wo_run_fixtures run)
foreach(_dir IN LISTS _wo_run_fixtures)
  get_filename_component(_name ${_dir} NAME)
  foreach(_mode jit native)
    add_test(NAME corpus.run.${_name}.${_mode}
             COMMAND bash ${WO_FIXTURE_RUNNER} ${_mode} ${_dir} $<TARGET_FILE:woc>)
    set_tests_properties(corpus.run.${_name}.${_mode} PROPERTIES LABELS "corpus;${_mode}" TIMEOUT 180)
  endforeach()
  # Actor, socket, HTTP-serving and key-pool/job fixtures and every fixture pinning
  # several shards also run under ThreadSanitizer (`make test-tsan`, label tsan).
  set(_env "")
  if(EXISTS ${_dir}/env)
    file(READ ${_dir}/env _env)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_dir}/env)
  endif()
  if(_name MATCHES "^((actor|net|http|serve)-|fw-(serve|keypool|limiter|idempotent|jobs))" OR _env MATCHES "WO_SHARDS=([2-9]|[1-9][0-9])")
    set_property(TEST corpus.run.${_name}.jit corpus.run.${_name}.native APPEND PROPERTY LABELS tsan)
  endif()
endforeach()

wo_fixture_dirs(_wo_fail_fixtures compile-fail)
foreach(_dir IN LISTS _wo_fail_fixtures)
  get_filename_component(_name ${_dir} NAME)
  add_test(NAME corpus.fail.${_name} COMMAND bash ${WO_FIXTURE_RUNNER} fail ${_dir} $<TARGET_FILE:woc>)
  set_tests_properties(corpus.fail.${_name} PROPERTIES LABELS "corpus;fail" TIMEOUT 60)
endforeach()
