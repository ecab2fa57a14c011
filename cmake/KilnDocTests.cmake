# The tests that hold a document to the suite (doc-tests/doc_checks.py), each
# registered beside its document:
#
#   kiln_add_doc_checks(PREFIX SCRIPT CHECK...)
#
# adds the ctest PREFIX-CHECK for each CHECK (`commands`, `figures`), which runs
# `SCRIPT CHECK SOURCE_DIR BIN_DIR` with the system python3. They need the
# runner's programs, and are left out without them.
function(kiln_add_doc_checks prefix script)
  if(NOT KILN_SYSTEM_PYTHON OR NOT KILN_BUILD_RUNNER)
    return()
  endif()
  foreach(check IN LISTS ARGN)
    add_test(NAME ${prefix}-${check}
             COMMAND ${KILN_SYSTEM_PYTHON} ${script} ${check}
                     ${PROJECT_SOURCE_DIR} $<TARGET_FILE_DIR:kiln-conformance>)
    # Imports from doc-tests/ must not leave bytecode in the source tree.
    set_tests_properties(${prefix}-${check} PROPERTIES
                         LABELS docs ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
  endforeach()
endfunction()
