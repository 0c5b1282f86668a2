"""`rtdroid deploy ...` and `rtdroid undeploy ...`: a signed bundle to the RT cell's agent, a signed
APK to the Android cell over adb."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import adb, lifecycle
from .common import CliError, answer, board_opt, existing_file, result_ok, timeout_opt


def cmd_deploy_rt(a) -> int:
    bundle = existing_file("bundle", Path(a.bundle))
    mgmt = a.reach.mgmt()
    t0 = time.monotonic()
    res = mgmt.deploy(a.reach.region_of(a), str(bundle), timeout=a.timeout)
    print(f"deploy answered in {time.monotonic() - t0:.2f} s", file=sys.stderr)
    ok, text = result_ok(res)
    return answer(f"deploy {bundle.name}: {'OK' if ok else 'REFUSED'}: {text}", ok)


def cmd_deploy_android(a) -> int:
    app = Path(a.app).resolve()
    if not app.exists():
        raise CliError(f"app {app} does not exist")
    if app.is_dir():
        raise CliError(f"app {app} is a folder (an unsigned app bundle): the Android cell installs signed APKs "
                       f"only; pack and sign it with android-cell/apk/cell-apk.sh {app} {app}.apk")
    state = lifecycle.current_state(a.board)
    if "android" not in {c.get("role") for c in state["cells"].values()}:
        raise CliError(f"board {state['board']} has no Android cell running")
    device = adb.Adb(state["adb_port"], a.timeout)
    pkg = device.install(app)
    print(f"installed {app.name} as {pkg} (adb -s {device.serial} install)")
    if not a.no_launch:
        print(f"launched {pkg} (adb shell am start -W):\n{device.start(app).rstrip()}")
    return 0


def cmd_undeploy_rt(a) -> int:
    res = a.reach.mgmt().undeploy(a.reach.region_of(a), a.name, timeout=a.timeout)
    ok, text = result_ok(res)
    return answer(f"undeploy {a.name}: {'OK' if ok else 'REFUSED'}: {text}", ok)


def register(commands) -> None:
    deploy = commands.group("deploy", help="deploy to a cell", dest="cell")
    sp = deploy.add_parser("rt", help="send a signed bundle (.rtb) to the RT cell agent")
    sp.add_argument("bundle")
    board_opt(sp)
    timeout_opt(sp, 60.0)
    sp.set_defaults(func=cmd_deploy_rt)
    sp = deploy.add_parser("android", help="install (and launch) an app in the Android cell from its signed APK")
    sp.add_argument("app", help="the app's signed APK (android-cell/apk/cell-apk.sh makes one of a bundle folder)")
    board_opt(sp)
    timeout_opt(sp, 60.0)
    sp.add_argument("--no-launch", action="store_true")
    sp.set_defaults(func=cmd_deploy_android)

    undeploy = commands.group("undeploy", help="remove an application from a cell", dest="cell")
    sp = undeploy.add_parser("rt")
    sp.add_argument("name")
    board_opt(sp)
    timeout_opt(sp)
    sp.set_defaults(func=cmd_undeploy_rt)
