*** Settings ***
Documentation     The board's datasheet (seeds 002 and 003): both cells characterised with the quick
...               profile, every probe's rows written with their time base named, and the RT cell's
...               figures within the budgets of the board file (ratios against baselines of the same
...               run; in the RT cell's virtual time on emulated boards). The goals of issue 34 are
...               reported in the log and the JSON, met or not.
Resource          ../resources/rtdroid.resource
Library           ../libraries/CharacteriseLibrary.py
Suite Setup       Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
Suite Teardown    Tear Down The Board
Test Tags         characterise


*** Test Cases ***
Both Cells Are Characterised
    [Tags]    cell:rt    cell:android
    Characterise The Board Quickly
    Every Probe Should Have Written Its Rows
    The RT Cell Should Be Timed In The Board's Clock

The RT Cell Keeps The Board's Budgets
    [Documentation]    No timer interrupt lost at the board's declared rate, the PI waiter's
    ...                blocking bounded by the critical section and without PI by the hog, scoped
    ...                allocation flat across sizes.
    [Tags]    cell:rt
    The Board's Budgets Should Hold

Characterising Waits Until No Application Runs
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    echo
    Deploy RT Bundle    ${bundle}
    Characterising Should Be Refused While    applications are deployed
    Undeploy RT App    echo
