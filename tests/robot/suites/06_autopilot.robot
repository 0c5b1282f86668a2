*** Settings ***
Documentation     The autopilot end to end (dissertation 3.8.3.2, jPapaBench): the RT bundle's flight
...               simulator writes its aircraft's accelerometer and gyroscope frames into the RT cell's
...               virtual input devices (the uinput devices the RT cell agent made), the kernel's input
...               path carries them to the RT SensorManager, whose orientation fusion feeds the
...               autopilot's 50 ms Stabilization task; jPapaBench's 14 tasks (the simulator's 3, the
...               fly-by-wire's 4, the autopilot's 7, joined by the SPI link as intent broadcasts) fly
...               the flight plan on the simulator's GPS fixes, and the autopilot's Reporting task
...               publishes position and mode on cross-context channel autopilot.position, which the
...               Android cell's AutopilotMonitor shows. A mode button in the app sends SET_MODE back
...               on autopilot.control (to the fly-by-wire's radio, TestPPM). The 14 tasks miss no
...               deadline over the flight (the board's budget, in the RT cell's clock: virtual time
...               on the emulated boards). On a board whose RT cell
...               has no sensors (the host board's kernel has no /dev/uinput) the test skips with the
...               cell's own reason.
Resource          ../resources/rtdroid.resource
Suite Setup       Boot Board    ${BOARD}    ${BOOT_BUDGET_S}
Suite Teardown    Tear Down The Board
Test Tags         cell:rt    cell:android


*** Variables ***
# The flight plan takes about 25 s of flight to its last waypoint; under TCG the RT cell runs in
# virtual time and the records cross the emulated CPU and both proxies on the host's clock: a
# generous wait, judged on function (the waypoints reached, the modes), not on time.
${FLIGHT_TIMEOUT_S}    240


*** Test Cases ***
The Autopilot Flies Its Flight Plan And The Android App Shows Position And Mode
    Skip Unless The RT Cell Has Sensors
    ${bundle}=    Build RT Bundle    autopilot
    Deploy RT Bundle    ${bundle}
    RT Service Should Be Running    autopilot
    ${window}=    Start RT Window    autopilot
    Install Android App    autopilot-monitor
    View Text Should Read    mode    AUTO2    timeout_s=60
    View Text Should Read    waypoint    waypoint 1    timeout_s=${FLIGHT_TIMEOUT_S}
    View Text Should Read    mode    HOME    timeout_s=${FLIGHT_TIMEOUT_S}
    ${altitude}=    View Text    altitude
    Should Match Regexp    ${altitude}    ^(9\\d|10\\d|110)\\.\\d m$    the flight plan's 100 m, held within 10 m
    Take Screenshot    autopilot-home
    View Text Should Become    mode    set_auto1    AUTO1    timeout_s=60    attempts=2
    View Text Should Read    waypoint    –
    Take Screenshot    autopilot-auto1
    RT Service Should Be Running    autopilot
    RT Window Should Stay Within The Board's Budget    ${window}
    Undeploy RT App    autopilot
