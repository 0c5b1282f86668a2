*** Settings ***
Documentation     Deployment to both cells: signed RT bundles are verified before anything runs;
...               broken app bundles are refused with their reason.
Resource          ../resources/rtdroid.resource
Suite Setup       Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
Suite Teardown    Tear Down The Board
Test Tags         any    board:qemu-arm64-xen


*** Test Cases ***
A Signed RT Bundle Deploys And Starts
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    echo
    Deploy RT Bundle    ${bundle}
    RT Service Should Be Running    echo

An Unsigned Bundle Is Refused
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    cochlear    unsigned
    RT Bundle Should Be Refused    ${bundle}    BAD_

A Tampered Bundle Is Refused
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    cochlear    tampered-jar
    RT Bundle Should Be Refused    ${bundle}    BAD_SIGNATURE
    ${bundle}=    Build RT Bundle    cochlear    tampered-manifest
    RT Bundle Should Be Refused    ${bundle}    BAD_SIGNATURE
    ${bundle}=    Build RT Bundle    cochlear    wrong-key
    RT Bundle Should Be Refused    ${bundle}    BAD_SIGNATURE

A Bundle With A Broken Manifest Is Refused With Its Reason
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    cochlear    broken-manifest
    RT Bundle Should Be Refused    ${bundle}    BAD_MANIFEST

A Bundle Asking For More Memory Than The Cell Has Is Refused
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    cochlear    over-budget
    RT Bundle Should Be Refused    ${bundle}    OVER_BUDGET

An Older Bundle Is Refused After An Undeploy Unless Signed As A Downgrade
    [Documentation]    The RT cell keeps the version deployed last per application across undeploys
    ...    (and, on the host board, across restarts: build/run/host/rt-state). The app takes the echo
    ...    example's channel under a name of its own, so the versions it records touch no other test.
    [Tags]    cell:rt
    Undeploy RT App    echo
    ${newer}=    Build RT Bundle    echo    version=3    name=echo-versions
    Deploy RT Bundle    ${newer}
    Undeploy RT App    echo-versions
    ${older}=    Build RT Bundle    echo    version=2    name=echo-versions
    RT Bundle Should Be Refused    ${older}    DOWNGRADE (10): echo-versions version 2 < deployed 3
    ${relabelled}=    Build RT Bundle    echo    relabelled-downgrade    version=2    name=echo-versions
    RT Bundle Should Be Refused    ${relabelled}    BAD_SIGNATURE
    ${downgrade}=    Build RT Bundle    echo    downgrade    version=2    name=echo-versions
    Deploy RT Bundle    ${downgrade}
    RT Service Should Be Running    echo-versions
    Undeploy RT App    echo-versions
    Deploy RT Bundle    ${newer}
    Undeploy RT App    echo-versions

An Older Bundle Is Still Refused After The RT Cell Restarts
    [Documentation]    The host board's RT cell keeps its version record in the board's run
    ...    directory; a qemu board's RT cell keeps it for the cell's lifetime only (rt-cell/README.md).
    [Tags]    cell:rt
    Skip If    '${BOARD}' != 'host'    only the host board restarts its RT cell and keeps its state across it
    ${newer}=    Build RT Bundle    echo    version=3    name=echo-versions
    Deploy RT Bundle    ${newer}
    Restart RT Cell
    ${older}=    Build RT Bundle    echo    version=2    name=echo-versions
    RT Bundle Should Be Refused    ${older}    DOWNGRADE (10): echo-versions version 2 < deployed 3
    Deploy RT Bundle    ${newer}
    RT Service Should Be Running    echo-versions
    Undeploy RT App    echo-versions

The UI App Installs And Its Activity Launches
    [Tags]    cell:android
    Install Android App    configuration-ui
    ${state}=    Android State
    Log    ${state}
    Take Screenshot    deploy-configuration-ui

A Broken App Bundle Is Refused
    [Tags]    cell:android
    Android App Should Be Refused    AndroidManifest.xml
