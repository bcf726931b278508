# SPDX-License-Identifier: MIT
# Writes OUT (a .cpp defining zkmill::build::git_commit_string()) from the source tree's
# current commit, "-dirty" when tracked files differ. Run at every build, not at configure
# time, so a binary never reports a stale commit; the file is rewritten only when the value
# changes, so an unchanged tree recompiles nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SRC_DIR} RESULT_VARIABLE dirty ERROR_QUIET)
  if(NOT dirty EQUAL 0)
    string(APPEND commit "-dirty")
  endif()
endif()
set(content "// Generated at build time by cmake/git_commit.cmake.\nnamespace zkmill::build {\nconst char* git_commit_string() { return \"${commit}\"; }\n}  // namespace zkmill::build\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
else()
  set(old "")
endif()
if(NOT old STREQUAL content)
  file(WRITE ${OUT} "${content}")
endif()
