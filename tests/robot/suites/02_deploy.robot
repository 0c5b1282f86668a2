*** Settings ***
Documentation     Deployment to both cells: signed RT bundles are verified and admitted (memory,
...               channels, schedulability with what runs) before anything runs; Android apps
...               install only from signed APKs, through adb (unsigned, tampered and broken ones,
...               and folders, are refused with their reason).
Resource          ../resources/rtdroid.resource
Suite Setup       Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
Suite Teardown    Tear Down The Board


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
    [Documentation]    The RT cell keeps its version record where it keeps state: the host board's
    ...    agent in the board's run directory (--state-dir, across `board restart rt`), the
    ...    qemu-x86_64 cell on its own raw state disk (--state-device, across `board down` and
    ...    `board up`, which restores the cell from its boot snapshot: the record is read after the
    ...    restore, never frozen in the snapshot), the Xen RT domain (qemu-arm64-xen, and
    ...    qemu-arm64-xen-smp, which boots cold) in its state bank (Xen static shared memory backed
    ...    by a file in the run directory, --state-device /dev/mem@ADDRESS+BYTES, put back after the
    ...    snapshot's restore). See rt-cell/README.md. The version deployed is the time in seconds,
    ...    above anything an earlier run or a boot snapshot can hold, and the one refused after the
    ...    restart is one below it: only this run's record, read back from the cell's store (its
    ...    start-up lines say from where and at which version), can refuse it.
    [Tags]    cell:rt
    Skip If    '${BOARD}' not in ('host', 'qemu-x86_64', 'qemu-arm64-xen', 'qemu-arm64-xen-smp')    this board's RT cell keeps no state across restarts
    ${version}=    Get Time    epoch
    ${below}=    Evaluate    ${version} - 1
    ${newer}=    Build RT Bundle    echo    version=${version}    name=echo-restarts
    Deploy RT Bundle    ${newer}
    IF    '${BOARD}' == 'host'
        Restart RT Cell
    ELSE
        Bring The Board Down
        Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
        Both Cells Should Report Ready
    END
    ${where}=    RT Cell Should Have Read Version    echo-restarts    ${version}
    IF    '${BOARD}'.startswith('qemu-arm64-xen')
        Should Start With    ${where}    /dev/mem@    the Xen RT domain's record is not from its state bank
    ELSE IF    '${BOARD}' == 'qemu-x86_64'
        Should Start With    ${where}    /dev/vd    the qemu-x86_64 cell's record is not from its state disk
    ELSE
        Should End With    ${where}    rt-state/versions    the host cell's record is not from its state directory
    END
    ${older}=    Build RT Bundle    echo    version=${below}    name=echo-restarts
    RT Bundle Should Be Refused    ${older}    DOWNGRADE (10): echo-restarts version ${below} < deployed ${version}
    Deploy RT Bundle    ${newer}
    RT Service Should Be Running    echo-restarts
    Undeploy RT App    echo-restarts

An Unschedulable Bundle Is Refused With Its Reason While The Cochlear Implant Keeps Its Deadlines
    [Documentation]    Admission control runs the static analysis (what `rtdroid validate` runs) over
    ...    everything deployed plus the new bundle before loading any of its classes. An echo made to
    ...    take 7 ms every 16 ms at priority 95 would push the implant's processingTask (1 ms every
    ...    8 ms at 89) to a 9 ms response: refused with that reason, and the implant runs on
    ...    undisturbed (its releases rise, its misses stay within the board's budget).
    [Tags]    cell:rt
    ${cochlear}=    Build RT Bundle    cochlear
    Deploy RT Bundle    ${cochlear}
    Analysed WCRT Should Be    cochlear/ProcessingService/processingTask    2 ms
    Analysed WCRT Should Be    cochlear/OutputReceiver    3 ms
    ${window}=    Start RT Window    cochlear
    ${releases}=    RT Releases    cochlear
    ${hog}=    Build RT Bundle    echo    unschedulable    name=echo-hog
    RT Bundle Should Be Refused    ${hog}    UNSCHEDULABLE: processingTask WCRT 9 ms > deadline 8 ms
    RT App Should Not Be Deployed    echo-hog
    RT Releases Should Keep Rising    cochlear    ${releases}
    RT Window Should Stay Within The Board's Budget    ${window}

A Schedulable Second App Is Admitted Beside The Cochlear Implant
    [Documentation]    The echo example (100 us at most every 4 ms, priority 80) fits below the implant:
    ...    admitted, analysed at 3.15 ms (the implant's three 1 ms jobs, its 50 us overrun handler and its
    ...    own 100 us), and the implant's figures stay as they were.
    [Tags]    cell:rt
    ${bundle}=    Build RT Bundle    echo
    Deploy RT Bundle    ${bundle}
    RT Service Should Be Running    echo
    Analysed WCRT Should Be    echo/EchoReceiver    3150 us
    Analysed WCRT Should Be    cochlear/ProcessingService/processingTask    2 ms
    Undeploy RT App    echo
    Undeploy RT App    cochlear

The UI App Installs And Its Activity Launches
    [Documentation]    As an Android developer does it, with Debian's adb: `adb install` (the cell's
    ...    package manager checks the signature), `adb shell am start -W`, `adb logcat`, `adb exec-out
    ...    screencap -p`.
    [Tags]    cell:android
    Install Android App    configuration-ui
    Android Log Should Contain    Displayed org.rtdroid.cochlear.ui/org.rtdroid.cochlear.ui.ConfigurationActivity
    Android Log Should Contain    I/ConfigurationUI(org.rtdroid.cochlear.ui): ConfigurationUI created
    ${state}=    Android State
    Log    ${state}
    Take Screenshot    deploy-configuration-ui

A Broken, Unsigned Or Tampered App Is Refused
    [Tags]    cell:android
    Android App Should Be Refused    broken-manifest    AndroidManifest.xml
    Android App Should Be Refused    folder    is a folder (an unsigned app bundle)
    Android App Should Be Refused    unsigned    is not signed or does not verify
    Android App Should Be Refused    tampered    DOES NOT VERIFY
