# Tests are hermetic: none reads or writes the user's persistent profile
# cache ($XDG_CACHE_HOME/hce or ~/.cache/hce).  A program's profile is keyed
# by its name, so two tests' programs called `prog` shared one, and a
# profile left by an earlier run seeded the schedulers of the next (a
# CpuTeam test run by hand failed on the models its ctest runs had left).
# The tests of the profile itself set XDG_CACHE_HOME or HCE_PROFILE.

# HCE_PROFILE=off for every test add_test() made in the calling directory
# (gtest_discover_tests sets its own ENVIRONMENT; lit sets it in lit.cfg.py).
function(hce_tests_without_profile)
  get_property(tests DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTY TESTS)
  foreach(t IN LISTS tests)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "HCE_PROFILE=off")
  endforeach()
endfunction()
