*** Settings ***
Documentation     Faults on the Android side never reach the RT cell: a killed Android cell, a
...               hostile peer flooding a channel with good and corrupted frames, a cell
...               scribbling on the other's fields of the region.
Resource          ../resources/rtdroid.resource
Suite Setup       Board Is Up With The Cochlear Implant
Suite Teardown    Tear Down The Board


*** Test Cases ***
The Android Cell Dies And Comes Back Mid-Stream
    [Tags]    cell:android    cell:rt
    ${window}=    Start RT Window    cochlear
    Measure UI Round Trips    20
    Kill Android Cell
    Sleep    2
    Restart Android Cell
    Install Android App    configuration-ui
    Measure UI Round Trips    20
    RT Window Should Stay Within The Board's Budget    ${window}

A Hostile Android Peer Floods A Channel
    [Tags]    cell:rt
    # a failure before the restart below must not leave the next test without an Android cell
    [Teardown]    Run Keyword If Test Failed    Run Keywords    Restart Android Cell
    ...           AND    Install Android App    configuration-ui
    ${window}=    Start RT Window    cochlear
    Kill Android Cell
    ${flood}=    Flood Cross Context Channel    cochlear.config    20000    10
    Flood Should Be Contained    ${flood}
    RT Window Should Stay Within The Board's Budget    ${window}
    Restart Android Cell
    Install Android App    configuration-ui
    Measure UI Round Trips    20

A Cell Scribbles On The Other's Fields Of The Region
    [Documentation]    Every field a cell owns is put back by its owner (self-healing bridge),
    ...                the link works again both ways, and the RT cell keeps its deadlines.
    [Tags]    cell:rt    cell:android
    ${window}=    Start RT Window    cochlear
    Every Owned Field Scribbled On Is Put Back
    Measure UI Round Trips    20
    RT Window Should Stay Within The Board's Budget    ${window}
