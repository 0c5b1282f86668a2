*** Settings ***
Documentation     Adaptive spark detection end to end (seed 004, section 5): the RT cell's reflective
...               SparkDetectionService plans read -> parse -> analyse -> display on its timeline, 25
...               frames a second, over the project's test video, and publishes each frame's result on
...               cross-context channel spark.result; the Android cell's SparkMonitor shows the frame
...               with the box; `rtdroid rt trace` writes both cells' timelines as a Perfetto
...               trace. The box must lie on the sparks and lightning of the video (found from
...               the video's own bytes) and appear on no other frame. On emulated boards the RT cell's
...               figures (rt services) are in its virtual time.
Resource          ../resources/rtdroid.resource
Library           ../libraries/SparkLibrary.py
Suite Setup       Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
Suite Teardown    Tear Down The Board
Test Tags         cell:rt    cell:android


*** Variables ***
# Under TCG the results cross the emulated CPU and both proxies by the host's clock: a generous
# wait, judged on function, not latency.
${SPARK_TIMEOUT_S}    120


*** Test Cases ***
The Monitor Shows A Box On The Frames With Sparks And None On The Others
    ${bundle}=    Build RT Bundle    spark
    Deploy RT Bundle    ${bundle}
    RT Service Should Be Running    spark
    Install Android App    spark-monitor
    ${detection}=    Spark Detection Should Be Shown    timeout_s=${SPARK_TIMEOUT_S}
    Take Screenshot    spark-detection
    Spark History Should Match The Video    frames=60    events=3    timeout_s=${SPARK_TIMEOUT_S}
    Take Screenshot    spark-monitor
    RT Service Should Be Running    spark
    Log The Spark Engine's Figures
    RT Trace Should Hold The Spark Timelines    seconds=5
    Undeploy RT App    spark
