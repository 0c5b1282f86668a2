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

The UI App Installs And Its Activity Launches
    [Tags]    cell:android
    Install Android App    configuration-ui
    ${state}=    Android State
    Log    ${state}
    Take Screenshot    deploy-configuration-ui

A Broken App Bundle Is Refused
    [Tags]    cell:android
    Android App Should Be Refused    AndroidManifest.xml
