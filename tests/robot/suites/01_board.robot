*** Settings ***
Documentation     A user's first act: boot the partitioned board, see both cells ready, tear it down.
Resource          ../resources/rtdroid.resource
Suite Teardown    Tear Down The Board


*** Test Cases ***
Boot Board
    ${seconds}=    Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
    Log To Console    board ${BOARD} up in ${seconds} s

Both Cells Report Ready
    Both Cells Should Report Ready

RT Cell Runs A PREEMPT_RT Kernel
    [Documentation]    Only a board that boots its own RT kernel can promise this; the host
    ...                board's RT cell is a process on whatever kernel the host runs.
    [Tags]    cell:rt
    Skip If    '${BOARD}' == 'host'    the host board boots no kernel of its own
    RT Cell Should Run A PREEMPT_RT Kernel

RT Cell Kernel Bounds How Long A Real-Time Thread Holds Its CPU
    [Documentation]    The throttle the board file sets (1.9 ms of every 2 ms): a real-time thread
    ...                that spins waiting on one of the JVM's SCHED_OTHER threads lets it run within
    ...                tens of ms, not Linux's ~1 s. Read from the cell's kernel, and measured there
    ...                by the agent at start-up (a SCHED_FIFO spin until a starved thread ran).
    [Tags]    cell:rt
    Skip If    '${BOARD}' == 'host'    the host board boots no kernel of its own
    RT Cell Kernel Should Throttle Real-Time Tasks As Its Board File Says

Region Is Shared Both Ways With Every Xen Domain
    [Documentation]    The host's writes are read in every domU, the RT cell's writes in its domU
    ...                are read by the host and the borrowing domUs, and a frame makes the round trip.
    [Tags]    cell:rt
    Skip If    '${BOARD}' not in ('qemu-arm64-xen', 'qemu-arm64-xen-smp')    only a xen board has domains
    Region Should Be Shared Both Ways With Every Xen Domain

Clean Teardown
    Bring The Board Down
    Board Should Leave Nothing Behind
