*** Settings ***
Documentation     The Android cell keeps apps apart as Android does, as far as the cell builds it
...               (docs/android-cell.md, "How the host works"): each app its own Linux uid and data
...               directory, a file of one unreadable to the other's uid, the system server's IPC
...               naming every caller by the kernel's uid and refusing a hostile one, and an app
...               stopped mid-stream and started again while the cochlear implant keeps every
...               deadline. Apps do not run in processes of their own yet: what needs them (two
...               pids in /proc, a killed app process) is not tested here. The Android cell is the
...               same host process on every board, so only the host board's file lists this suite
...               (another board's boot would add a minute or more to a run that must stay under 20
...               minutes); on another board: robot --variablefile
...               tests/robot/variables/board.py:BOARD tests/robot/suites/07_isolation.robot
Resource          ../resources/rtdroid.resource
Suite Setup       Board Is Up With The Cochlear Implant
Suite Teardown    Tear Down The Board
Test Tags         isolation    cell:android


*** Test Cases ***
Two Apps Have Two Uids And Their Own Data
    Install Android App    fall-alert
    ${ui}=    App Uid And Data    org.rtdroid.cochlear.ui
    ${fall}=    App Uid And Data    org.rtdroid.fall.ui
    Uids Should Differ    ${ui}    ${fall}
    Another Uid Should Not Read The Apps Files    ${ui}    ${fall}
    Set Suite Variable    ${UI_APP}    ${ui}

A Hostile Caller Is Refused And Counted
    A Hostile Caller Should Be Refused    ${UI_APP}

An App Stopped Mid-Stream Starts Again While The Implant Keeps Every Deadline
    [Tags]    cell:rt
    Start App    configuration-ui
    ${window}=    Start RT Window    cochlear
    Measure UI Round Trips    10
    Stop And Restart App    org.rtdroid.cochlear.ui
    Measure UI Round Trips    10
    RT Window Should Stay Within The Board's Budget    ${window}
