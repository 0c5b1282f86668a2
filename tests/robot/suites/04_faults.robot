*** Settings ***
Documentation     Faults on the Android side never reach the RT cell: a killed Android cell, a
...               hostile peer flooding a channel with good and corrupted frames.
Resource          ../resources/rtdroid.resource
Suite Setup       Board Is Up With The Cochlear Implant
Suite Teardown    Tear Down The Board
Test Tags         any


*** Test Cases ***
The Android Cell Dies And Comes Back Mid-Stream
    [Tags]    cell:android    cell:rt
    ${before}=    Deadline Misses    cochlear
    Measure UI Round Trips    20
    Kill Android Cell
    Sleep    2
    Restart Android Cell
    Install Android App    configuration-ui
    Measure UI Round Trips    20
    Deadline Misses Should Stay Within The Board's Budget    ${before}

A Hostile Android Peer Floods A Channel
    [Tags]    cell:rt
    ${before}=    Deadline Misses    cochlear
    Kill Android Cell
    ${flood}=    Flood Cross Context Channel    cochlear.config    20000    10
    Flood Should Be Contained    ${flood}
    Deadline Misses Should Stay Within The Board's Budget    ${before}
    Restart Android Cell
    Install Android App    configuration-ui
    Measure UI Round Trips    20
