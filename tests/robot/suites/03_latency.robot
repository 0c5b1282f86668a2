*** Settings ***
Documentation     End-to-end round trips: UI -> Android proxy -> shared memory -> RT component ->
...               back -> UI, measured in the Android cell on one clock. Under Android-side stress
...               the RT cell's 8 ms periodic tasks keep their deadlines.
Resource          ../resources/rtdroid.resource
Suite Setup       Board Is Up With The Cochlear Implant
Suite Teardown    Tear Down The Board


*** Test Cases ***
A Ping From The UI Is Answered By The RT Cell
    [Tags]    cell:android    cell:rt
    View Text Should Become    ping_result    ping    Pong    attempts=${FIRST_PING_ATTEMPTS}

End-To-End Round Trips Stay Within The Board's Budget
    [Tags]    cell:android    cell:rt
    Round Trips Should Stay Within The Board's Budget

Periodic Tasks Keep Their Deadlines While The Android Cell Is Stressed
    [Tags]    cell:rt
    ${window}=    Start RT Window    cochlear
    Start Android Stress    ${STRESS_SECONDS}
    Sleep    ${STRESS_SECONDS}
    Stop Android Stress
    RT Window Should Stay Within The Board's Budget    ${window}
    Take Screenshot    latency-after-stress

The Cochlear Implant Keeps Within Its Declared Costs From Its First Release
    [Documentation]    Since it was deployed (in the suite set-up, its code cold until the app's and
    ...    the runtime's warm-ups) and through the Android-side stress above, no release used more
    ...    CPU time than its declared 1 ms cost: a failure on a virtual-time board, a warning in the
    ...    host's clock. A worst response over the admission analysis's WCRT is logged as a warning
    ...    (JVM safepoints are outside the analysis).
    [Tags]    cell:rt
    RT App Should Hold Its Analysis    cochlear
