*** Settings ***
Documentation     Fall detection end to end (dissertation 3.8.3.1): a motion trace replayed into the RT
...               cell's virtual accelerometer (a uinput device the RT cell agent made) travels the
...               kernel's input path (/dev/input/event*) to the RT SensorManager, whose listener at
...               the fall service's priority detects the fall and publishes it on cross-context
...               channel fall.alert; the Android cell's FallAlert app shows it. A trace without a
...               fall (walking, sitting down hard, a stumble) raises no alert. On a board whose RT
...               cell has no sensors (the host board's kernel has no /dev/uinput) the tests skip with
...               the cell's own reason.
Resource          ../resources/rtdroid.resource
Suite Setup       Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
Suite Teardown    Tear Down The Board
Test Tags         cell:rt    cell:android


*** Variables ***
# Under TCG the replay runs in the RT cell's virtual time and the alert crosses the emulated CPU
# and both proxies on the host's clock: a generous wait, judged on function, not latency.
${ALERT_TIMEOUT_S}    90
# Every accelerometer frame reaches the fall listener before the next one is written (the trace's
# 100 Hz: 10 ms), in the RT cell's clock (virtual time on emulated boards), measured by the cell
# from the kernel's time stamp of each frame.
${SENSOR_DELIVERY_BUDGET_US}    10000


*** Test Cases ***
A Replayed Fall Raises The Alert In The Android App
    Skip Unless The RT Cell Has Sensors
    ${bundle}=    Build RT Bundle    fall
    Deploy RT Bundle    ${bundle}
    RT Service Should Be Running    fall
    Install Android App    fall-alert
    View Text Should Read    alert    Monitoring: no fall    timeout_s=30
    Replay Motion Trace    fall
    View Text Should Read    alert    FALL DETECTED    timeout_s=${ALERT_TIMEOUT_S}
    View Text Should Read    falls    1
    ${peak}=    View Text    peak_g
    Should Match Regexp    ${peak}    ^[3-5]\\.\\d g$    the fall trace's impact peaks near 4.3 g
    Take Screenshot    fall-alert
    Motion Trace Replay Should End
    Sensor Delivery Should Stay Within    ${SENSOR_DELIVERY_BUDGET_US}
    RT Service Should Be Running    fall

A Replayed Walk, A Hard Sit And A Stumble Raise No Alert
    [Documentation]    Follows the fall above on the same deployment (the path is known to deliver):
    ...    once the whole no-fall trace has been replayed, and a moment more for an alert to arrive,
    ...    the app still counts one fall.
    Skip Unless The RT Cell Has Sensors
    View Text Should Read    falls    1
    Replay Motion Trace    no-fall
    Motion Trace Replay Should End
    Sleep    5s    an alert would cross the proxies well within this
    View Text Should Read    falls    1
    Take Screenshot    fall-alert-after-no-fall
    RT Service Should Be Running    fall
    Undeploy RT App    fall
