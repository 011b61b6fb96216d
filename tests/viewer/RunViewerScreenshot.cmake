# One viewer screenshot test: runs raycar-viewer headless under xvfb-run, then
# raycar-check-screenshot on the PNG it wrote.
# -DXVFB_RUN= -DVIEWER= -DCHECKER= -DSCENE= -DVIEW= (3d or topdown) -DFRAMES= -DOUTPUT=
file(REMOVE "${OUTPUT}")
execute_process(
  COMMAND "${XVFB_RUN}" -a -s "-screen 0 1280x800x24"
          "${VIEWER}" "${SCENE}" --view "${VIEW}" --screenshot "${OUTPUT}" --frames "${FRAMES}"
  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE errors)
message("${output}${errors}")
if(NOT result EQUAL 0)
  message(FATAL_ERROR "raycar-viewer exited with ${result}")
endif()
if(NOT EXISTS "${OUTPUT}")
  message(FATAL_ERROR "raycar-viewer wrote no ${OUTPUT}")
endif()
execute_process(COMMAND "${CHECKER}" "${OUTPUT}" 800 600 RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "the screenshot ${OUTPUT} does not show the scene")
endif()
