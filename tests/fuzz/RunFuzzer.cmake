# Runs one fuzzer for a bounded time from the seed corpus; new inputs go to a scratch folder so
# the committed corpus stays as it is. Fails on any crash or sanitizer report.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=4096
                        -print_final_stats=1 ${SCRATCH} ${CORPUS}
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${output}")
message(STATUS "${FUZZER}: ${runs}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${result}):\n${output}")
endif()
