*** Settings ***
Documentation     A user's first act: boot the partitioned board, see both cells ready, tear it down.
Resource          ../resources/rtdroid.resource
Suite Teardown    Tear Down The Board
Test Tags         any


*** Test Cases ***
Boot Board
    ${seconds}=    Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
    Log To Console    board ${BOARD} up in ${seconds} s

Both Cells Report Ready
    Both Cells Should Report Ready

RT Cell Runs A PREEMPT_RT Kernel
    [Documentation]    Only a board that boots its own RT kernel can promise this; the host
    ...                board's RT cell is a process on whatever kernel the host runs.
    [Tags]    board:qemu-x86_64    cell:rt
    Skip If    '${BOARD}' == 'host'    the host board boots no kernel of its own
    RT Cell Should Run A PREEMPT_RT Kernel

Clean Teardown
    Bring The Board Down
    Board Should Leave Nothing Behind
